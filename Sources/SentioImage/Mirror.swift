extension Image {
    /// The image flipped left to right (as a selfie camera shows it).
    public func mirrored() -> Image {
        let c = channels
        return withUnsafeBytes { src in
            Image(uninitializedWidth: width, height: height, format: format) { dst in
                for y in 0 ..< height {
                    let s = y * rowStride, d = y * width * c
                    for x in 0 ..< width {
                        for k in 0 ..< c { dst[d + (width - 1 - x) * c + k] = src[s + x * c + k] }
                    }
                }
            }
        }
    }
}
