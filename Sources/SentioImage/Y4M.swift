/// YUV4MPEG2 (`.y4m`) video: the uncompressed format ffmpeg and most tools read and write,
/// so a recorded clip can be fed to the trackers without a video decoder.
public enum Y4M {
    /// The stream header.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Frames per second as a fraction (F30:1).
        public var frameRate: (numerator: Int, denominator: Int)
        /// Chroma layout: "420" (any 4:2:0 siting), "422", "444" or "mono".
        public var chroma: String

        public static func == (a: Header, b: Header) -> Bool {
            a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.chroma == b.chroma
        }

        var chromaSize: (Int, Int) {
            switch chroma {
            case "444": (width, height)
            case "422": ((width + 1) / 2, height)
            case "mono": (0, 0)
            default: ((width + 1) / 2, (height + 1) / 2)
            }
        }

        var frameBytes: Int { width * height + 2 * chromaSize.0 * chromaSize.1 }
    }

    /// Reads every frame of a Y4M file as RGB images (BT.601, limited range, as video is).
    public static func frames(_ bytes: [UInt8], source: String = "video", maxPixels: Int = 100_000_000) throws -> (Header, [Image]) {
        guard let newline = bytes.prefix(1024).firstIndex(of: 0x0A) else { throw ImageError.unknownFormat(source: source) }
        let line = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard line.first == "YUV4MPEG2" else { throw ImageError.unknownFormat(source: source) }
        var header = Header(width: 0, height: 0, frameRate: (30, 1), chroma: "420")
        for field in line.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": header.width = Int(value) ?? 0
            case "H": header.height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":").compactMap { Int($0) }
                if parts.count == 2, parts[0] > 0, parts[1] > 0 { header.frameRate = (parts[0], parts[1]) }
            case "C":
                let c = String(value)
                header.chroma = c.hasPrefix("420") ? "420" : c.hasPrefix("422") ? "422" : c.hasPrefix("444") && !c.hasPrefix("444alpha") ? "444" : c == "mono" ? "mono" : c
            default: break
            }
        }
        guard header.width > 0, header.height > 0, header.width <= 1 << 15, header.height <= 1 << 15 else {
            throw ImageError.invalidDimensions(width: header.width, height: header.height)
        }
        guard header.width * header.height <= maxPixels else {
            throw ImageError.tooLarge(width: header.width, height: header.height, limit: maxPixels)
        }
        guard ["420", "422", "444", "mono"].contains(header.chroma) else {
            throw ImageError.invalidArgument("\(source): Y4M colour space C\(header.chroma) is not supported (420, 422, 444, mono are)")
        }
        var images: [Image] = []
        var at = newline + 1
        while at < bytes.count {
            guard let end = bytes[at...].firstIndex(of: 0x0A), bytes[at ..< min(end, at + 5)].elementsEqual(Array("FRAME".utf8)) else {
                throw ImageError.invalidArgument("\(source): frame \(images.count) does not start with FRAME at byte \(at)")
            }
            let start = end + 1
            guard start + header.frameBytes <= bytes.count else {
                throw ImageError.invalidArgument("\(source): frame \(images.count) is truncated at byte \(bytes.count)")
            }
            images.append(try rgb(bytes, at: start, header: header))
            at = start + header.frameBytes
        }
        return (header, images)
    }

    static func rgb(_ bytes: [UInt8], at start: Int, header h: Header) throws -> Image {
        let (cw, ch) = h.chromaSize
        let uBase = start + h.width * h.height, vBase = uBase + cw * ch
        return try bytes.withUnsafeBufferPointer { src in
            var image = try Image(width: h.width, height: h.height, format: .rgb8)
            image.withUnsafeMutableBytes { dst in
                for y in 0 ..< h.height {
                    let cy = ch == 0 ? 0 : y * ch / h.height
                    for x in 0 ..< h.width {
                        let luma = (Int(src[start + y * h.width + x]) - 16) * 298
                        var u = 0, v = 0
                        if cw > 0 {
                            let cx = x * cw / h.width
                            u = Int(src[uBase + cy * cw + cx]) - 128
                            v = Int(src[vBase + cy * cw + cx]) - 128
                        }
                        let o = (y * h.width + x) * 3
                        dst[o] = UInt8(clamping: (luma + 409 * v + 128) >> 8)
                        dst[o + 1] = UInt8(clamping: (luma - 100 * u - 208 * v + 128) >> 8)
                        dst[o + 2] = UInt8(clamping: (luma + 516 * u + 128) >> 8)
                    }
                }
            }
            return image
        }
    }

    /// Writes `frames` (all the same size) as 4:2:0 Y4M at `fps` frames per second.
    public static func encode(_ frames: [Image], fps: Int = 30) throws -> [UInt8] {
        guard let first = frames.first else { throw ImageError.invalidArgument("no frames to write") }
        let w = first.width, h = first.height, cw = (w + 1) / 2, ch = (h + 1) / 2
        var out = Array("YUV4MPEG2 W\(w) H\(h) F\(fps):1 Ip A1:1 C420jpeg\n".utf8)
        for frame in frames {
            guard frame.width == w, frame.height == h else { throw ImageError.invalidArgument("frames differ in size") }
            out += Array("FRAME\n".utf8)
            var ys = [UInt8](repeating: 0, count: w * h), us = [UInt8](repeating: 128, count: cw * ch), vs = us
            for y in 0 ..< h {
                for x in 0 ..< w {
                    let p = frame.pixel(x: x, y: y)
                    let r = Int(p.r), g = Int(p.g), b = Int(p.b)
                    ys[y * w + x] = UInt8(clamping: ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16)
                    if x % 2 == 0 && y % 2 == 0 {
                        us[(y / 2) * cw + x / 2] = UInt8(clamping: ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128)
                        vs[(y / 2) * cw + x / 2] = UInt8(clamping: ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128)
                    }
                }
            }
            out += ys + us + vs
        }
        return out
    }
}
