import CSentioCodecs

/// JPEG through libjpeg-turbo: baseline, progressive, grayscale and CMYK (Adobe-inverted or
/// plain) files; the EXIF orientation is read from APP1.
public enum JPEG {
    /// Decodes a JPEG.
    public static func decode(_ bytes: [UInt8], source: String = "image", options: DecodeOptions = DecodeOptions()) throws -> Image {
        try withDecoder(bytes, source: source, options: options) { decoder, info, orientation in
            try ImageIO.checkLimits(width: Int(info.width), height: Int(info.height), options: options)
            let format = options.format ?? (info.components == 1 ? .gray8 : .rgb8)
            var error = [CChar](repeating: 0, count: Int(SENTIO_ERR_LEN))
            var status: Int32 = 0
            let stored = Image(uninitializedWidth: Int(info.width), height: Int(info.height), format: format) { out in
                status = sentio_jpeg_decode(decoder, out.baseAddress, format.channels * Int(info.width),
                                            Int32(format.channels), &error)
            }
            guard status == 0 else {
                throw ImageError.corrupt(source: source, format: .jpeg, detail: cMessage(error))
            }
            return options.applyOrientation ? stored.applying(orientation) : stored
        }
    }

    /// The header of a JPEG.
    public static func info(_ bytes: [UInt8], source: String = "image") throws -> ImageFileInfo {
        try withDecoder(bytes, source: source, options: DecodeOptions()) { _, info, orientation in
            let model = switch Int(info.color_model) {
            case Int(SENTIO_JPEG_GRAY): "gray"
            case Int(SENTIO_JPEG_RGB): "rgb"
            case Int(SENTIO_JPEG_CMYK): "cmyk"
            case Int(SENTIO_JPEG_YCCK): "ycck"
            default: "ycbcr"
            }
            return ImageFileInfo(format: .jpeg, storedWidth: Int(info.width), storedHeight: Int(info.height),
                                 channels: Int(info.components), colorModel: model, bitDepth: 8,
                                 progressive: info.progressive != 0, orientation: orientation, lossless: false)
        }
    }

    private static func withDecoder<R>(
        _ bytes: [UInt8], source: String, options: DecodeOptions,
        _ body: (OpaquePointer, sentio_jpeg_info, ImageOrientation) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { data in
            var error = [CChar](repeating: 0, count: Int(SENTIO_ERR_LEN))
            var info = sentio_jpeg_info()
            guard let decoder = sentio_jpeg_open(data.baseAddress, data.count, Int32(options.maxProgressiveScans),
                                                 options.strict ? 1 : 0, &info, &error)
            else {
                throw ImageError.corrupt(source: source, format: .jpeg, detail: cMessage(error))
            }
            defer { sentio_jpeg_close(decoder) }
            var exifLength = 0
            var orientation = ImageOrientation.up
            if let exif = sentio_jpeg_exif(decoder, &exifLength) {
                let payload = Array(UnsafeBufferPointer(start: exif, count: exifLength))
                orientation = EXIF.orientation(inAPP1: payload) ?? .up
            }
            return try body(decoder, info, orientation)
        }
    }

    /// Encodes `image` (alpha is dropped). With `orientation`, an EXIF block carrying it is
    /// written, so viewers turn the stored pixels that way.
    public static func encode(_ image: Image, quality: Int = 92, progressive: Bool = false,
                              orientation: ImageOrientation? = nil) throws -> [UInt8] {
        try encode(image, quality: quality, progressive: progressive, orientation: orientation, cmyk: false)
    }

    /// Encodes a 4-channel image whose bytes are C, M, Y, K (stored as given: Adobe's
    /// convention is inverted values) as a CMYK JPEG.
    public static func encodeCMYK(_ image: Image, quality: Int = 92) throws -> [UInt8] {
        guard image.format == .rgba8 else { throw ImageError.invalidArgument("CMYK needs 4 channels") }
        return try encode(image, quality: quality, progressive: false, orientation: nil, cmyk: true)
    }

    private static func encode(_ image: Image, quality: Int, progressive: Bool, orientation: ImageOrientation?,
                               cmyk: Bool) throws -> [UInt8] {
        guard (1 ... 100).contains(quality) else { throw ImageError.invalidArgument("JPEG quality \(quality) is not in 1…100") }
        guard image.width <= 65_500, image.height <= 65_500 else {
            throw ImageError.encodeFailed(format: .jpeg, detail: "JPEG is limited to 65500 pixels a side")
        }
        let app1 = orientation.map { EXIF.app1(orientation: $0) } ?? []
        var error = [CChar](repeating: 0, count: Int(SENTIO_ERR_LEN))
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = image.withUnsafeBytes { pixels in
            app1.withUnsafeBufferPointer { marker in
                sentio_jpeg_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), image.rowStride,
                                   Int32(image.channels), cmyk ? 1 : 0, Int32(quality), progressive ? 1 : 0,
                                   marker.baseAddress, marker.count, &out, &length, &error)
            }
        }
        guard status == 0, let out else {
            throw ImageError.encodeFailed(format: .jpeg, detail: cMessage(error))
        }
        defer { sentio_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}

/// The NUL-terminated message a C function wrote into `buffer`.
func cMessage(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
