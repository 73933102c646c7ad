extension Image {
    /// The mean colour of `rect`, averaged in linear light (so a black-and-white checkerboard
    /// averages to middle gray as the eye sees it, not to sRGB 128), alpha ignored.
    public func meanColor(in rect: PixelRect? = nil) throws -> SRGB {
        let region = rect ?? PixelRect(x: 0, y: 0, width: width, height: height)
        let view = try cropped(to: region)
        // A 256-entry table makes the transfer function free per pixel.
        let table = (0 ..< 256).map { SRGB.decode(Double($0) / 255) }
        var sum = (0.0, 0.0, 0.0)
        view.withUnsafeBytes { bytes in
            let c = view.channels
            for y in 0 ..< view.height {
                var i = y * view.rowStride
                for _ in 0 ..< view.width {
                    if c < 3 {
                        let v = table[Int(bytes[i])]
                        sum.0 += v; sum.1 += v; sum.2 += v
                    } else {
                        sum.0 += table[Int(bytes[i])]
                        sum.1 += table[Int(bytes[i + 1])]
                        sum.2 += table[Int(bytes[i + 2])]
                    }
                    i += c
                }
            }
        }
        let n = Double(view.pixelCount)
        return LinearRGB(r: sum.0 / n, g: sum.1 / n, b: sum.2 / n).srgb
    }

    /// Perceived lightness L* (0–100) of the mean colour of `rect`.
    public func lightness(in rect: PixelRect? = nil) throws -> Double {
        try meanColor(in: rect).lab.l
    }
}
