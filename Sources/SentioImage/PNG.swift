import CSentioCodecs

/// PNG through libpng: every colour type and bit depth, palettes, transparency, 16-bit and
/// Adam7-interlaced files (16-bit samples are reduced to 8 bits).
public enum PNG {
    /// Decodes a PNG.
    public static func decode(_ bytes: [UInt8], source: String = "image", options: DecodeOptions = DecodeOptions()) throws -> Image {
        // libpng's own limit would stop absurd sizes too, but only after its message; check first.
        let header = try info(bytes, source: source)
        try ImageIO.checkLimits(width: header.storedWidth, height: header.storedHeight, options: options)
        return try bytes.withUnsafeBufferPointer { data in
            var error = [CChar](repeating: 0, count: Int(SENTIO_ERR_LEN))
            var width: Int32 = 0, height: Int32 = 0, hasColor: Int32 = 0, hasAlpha: Int32 = 0
            guard let decoder = sentio_png_open(data.baseAddress, data.count, &width, &height, &hasColor, &hasAlpha, &error)
            else { throw ImageError.corrupt(source: source, format: .png, detail: cMessage(error)) }
            defer { sentio_png_close(decoder) }
            let format = options.format ?? (hasAlpha != 0 ? .rgba8 : hasColor != 0 ? .rgb8 : .gray8)
            var status: Int32 = 0
            let image = Image(uninitializedWidth: Int(width), height: Int(height), format: format) { out in
                status = sentio_png_decode(decoder, out.baseAddress, format.channels * Int(width), Int32(format.channels), &error)
            }
            guard status == 0 else { throw ImageError.corrupt(source: source, format: .png, detail: cMessage(error)) }
            return image
        }
    }

    /// The header (IHDR) of a PNG.
    public static func info(_ bytes: [UInt8], source: String = "image") throws -> ImageFileInfo {
        guard bytes.count >= 33, ImageFileFormat.sniff(bytes) == .png,
              bytes[12 ..< 16].elementsEqual([0x49, 0x48, 0x44, 0x52])
        else { throw ImageError.corrupt(source: source, format: .png, detail: "no IHDR chunk at offset 8") }
        func u32(_ at: Int) -> Int { bytes[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = u32(16), height = u32(20)
        let depth = Int(bytes[24]), colorType = Int(bytes[25]), interlace = bytes[28]
        let (model, channels): (String, Int) = switch colorType {
        case 0: ("gray", 1)
        case 2: ("rgb", 3)
        case 3: ("palette", 1)
        case 4: ("gray+alpha", 2)
        case 6: ("rgba", 4)
        default: throw ImageError.corrupt(source: source, format: .png, detail: "unknown colour type \(colorType)")
        }
        // The PNG specification caps both at 2³¹ − 1.
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw ImageError.invalidDimensions(width: width, height: height)
        }
        return ImageFileInfo(format: .png, storedWidth: width, storedHeight: height, channels: channels,
                             colorModel: model, bitDepth: depth, progressive: interlace == 1, orientation: .up,
                             lossless: true)
    }

    /// Encodes `image` losslessly.
    public static func encode(_ image: Image) throws -> [UInt8] {
        var error = [CChar](repeating: 0, count: Int(SENTIO_ERR_LEN))
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = image.withUnsafeBytes { pixels in
            sentio_png_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowStride,
                              Int32(image.channels), &out, &length, &error)
        }
        guard status == 0, let out else { throw ImageError.encodeFailed(format: .png, detail: cMessage(error)) }
        defer { sentio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
