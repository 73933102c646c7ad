/// The file formats Sentio reads and writes.
public enum ImageFileFormat: String, Sendable, CaseIterable {
    case png
    case jpeg
    case webp

    /// The format the first bytes announce, or nil. The name a file goes by plays no part:
    /// files saved from the web carry WebP under `.jpg` names too.
    public static func sniff(_ bytes: [UInt8]) -> ImageFileFormat? {
        if bytes.count >= 8, bytes[0 ..< 8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        // "RIFF", a 32-bit size, "WEBP" (other RIFF files, WAV for one, say something else there).
        if bytes.count >= 12, bytes[0 ..< 4].elementsEqual("RIFF".utf8), bytes[8 ..< 12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }

    /// The format's media type (`image/png`, `image/jpeg`, `image/webp`).
    public var mediaType: String { "image/\(rawValue)" }

    /// The format a file name's extension names (for writing), or nil.
    public init?(pathExtension path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { self = .png }
        else if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") { self = .jpeg }
        else if lower.hasSuffix(".webp") { self = .webp }
        else { return nil }
    }
}

/// How to decode.
public struct DecodeOptions: Sendable {
    /// Images with more pixels are refused before any pixel memory is allocated.
    public var maxPixels: Int = 100_000_000
    /// Turn the stored pixels upright as the EXIF orientation says (JPEG only); false keeps
    /// the stored pixels.
    public var applyOrientation: Bool = true
    /// The pixel format wanted; nil keeps the file's own (gray, RGB, or RGBA with transparency).
    public var format: PixelFormat? = nil
    /// Refuse JPEGs with corrupt or missing data instead of filling the gap with gray.
    public var strict: Bool = true
    /// Bound on progressive JPEG scans (damaged files can carry thousands and decode for minutes).
    public var maxProgressiveScans: Int = 1000

    public init(maxPixels: Int = 100_000_000, applyOrientation: Bool = true, format: PixelFormat? = nil,
                strict: Bool = true) {
        self.maxPixels = maxPixels
        self.applyOrientation = applyOrientation
        self.format = format
        self.strict = strict
    }
}

/// What a file's header says, without decoding its pixels.
public struct ImageFileInfo: Sendable, Equatable {
    public var format: ImageFileFormat
    /// Stored width and height (before orientation).
    public var storedWidth: Int
    public var storedHeight: Int
    /// Channels stored in the file (JPEG: components; PNG: from the colour type; WebP: 3, or 4
    /// with alpha).
    public var channels: Int
    /// "gray", "gray+alpha", "rgb", "rgba", "palette", "ycbcr", "cmyk", "ycck".
    public var colorModel: String
    /// Bits per sample (JPEG and WebP: 8).
    public var bitDepth: Int
    /// Progressive JPEG or interlaced (Adam7) PNG.
    public var progressive: Bool
    /// EXIF orientation (PNG and WebP: always up).
    public var orientation: ImageOrientation
    /// Whether the pixels are stored exactly (PNG: yes; JPEG: no; WebP: lossless VP8L or lossy
    /// VP8); nil when the file does not say (an animated WebP's frames can mix both).
    public var lossless: Bool? = nil
    /// An animated WebP (decoded as its first frame).
    public var animated: Bool = false

    /// Width as displayed.
    public var width: Int { orientation.swapsDimensions ? storedHeight : storedWidth }
    /// Height as displayed.
    public var height: Int { orientation.swapsDimensions ? storedWidth : storedHeight }
}

/// Reading and writing image files.
public enum ImageIO {
    /// Reads and decodes the image file at `path`.
    public static func read(_ path: String, options: DecodeOptions = DecodeOptions()) throws -> Image {
        try decode(FileIO.read(path), source: path, options: options)
    }

    /// Decodes PNG, JPEG or WebP bytes, told apart by their content; `source` names them in errors.
    public static func decode(_ bytes: [UInt8], source: String = "image", options: DecodeOptions = DecodeOptions()) throws -> Image {
        switch ImageFileFormat.sniff(bytes) {
        case .png: return try PNG.decode(bytes, source: source, options: options)
        case .jpeg: return try JPEG.decode(bytes, source: source, options: options)
        case .webp: return try WebP.decode(bytes, source: source, options: options)
        case nil: throw ImageError.unknownFormat(source: source)
        }
    }

    /// The header of the file at `path`.
    public static func info(_ path: String) throws -> ImageFileInfo {
        try info(FileIO.read(path), source: path)
    }

    /// The header of PNG, JPEG or WebP bytes.
    public static func info(_ bytes: [UInt8], source: String = "image") throws -> ImageFileInfo {
        switch ImageFileFormat.sniff(bytes) {
        case .png: return try PNG.info(bytes, source: source)
        case .jpeg: return try JPEG.info(bytes, source: source)
        case .webp: return try WebP.info(bytes, source: source)
        case nil: throw ImageError.unknownFormat(source: source)
        }
    }

    /// Encodes `image` in `format`: JPEG at `quality` 1–100, WebP lossy at `quality` 0–100 or
    /// `lossless` (PNG is always lossless, JPEG never; both ignore `lossless`).
    public static func encode(_ image: Image, as format: ImageFileFormat, quality: Int = 92, lossless: Bool = false) throws -> [UInt8] {
        switch format {
        case .png: try PNG.encode(image)
        case .jpeg: try JPEG.encode(image, quality: quality)
        case .webp: try WebP.encode(image, quality: quality, lossless: lossless)
        }
    }

    /// Encodes and writes `image`, choosing the format from the path's extension.
    public static func write(_ image: Image, to path: String, quality: Int = 92, lossless: Bool = false) throws {
        guard let format = ImageFileFormat(pathExtension: path) else {
            throw ImageError.unwritable(path: path, reason: "unknown extension (use .png, .jpg, .jpeg or .webp)")
        }
        try FileIO.write(encode(image, as: format, quality: quality, lossless: lossless), to: path)
    }

    static func checkLimits(width: Int, height: Int, options: DecodeOptions) throws {
        guard width > 0, height > 0 else { throw ImageError.invalidDimensions(width: width, height: height) }
        // Header fields are untrusted: two 32-bit sizes overflow even a 64-bit product.
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= options.maxPixels else {
            throw ImageError.tooLarge(width: width, height: height, limit: options.maxPixels)
        }
    }
}
