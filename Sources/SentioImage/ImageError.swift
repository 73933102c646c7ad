/// Everything that can go wrong reading, writing or transforming an image. Each case says
/// what was wrong and where, in one line (``description``).
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file could not be written.
    case unwritable(path: String, reason: String)
    /// The bytes are not a format Sentio decodes (PNG, JPEG or WebP).
    case unknownFormat(source: String)
    /// The file claims to be `format` but its bytes are damaged or truncated.
    case corrupt(source: String, format: ImageFileFormat, detail: String)
    /// Width or height is zero or negative.
    case invalidDimensions(width: Int, height: Int)
    /// The image has more pixels than the configured limit allows.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A rectangle, size or parameter is outside what the operation accepts.
    case invalidArgument(String)
    /// The encoder failed.
    case encodeFailed(format: ImageFileFormat, detail: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .unwritable(path, reason): "cannot write \(path): \(reason)"
        case let .unknownFormat(source): "\(source): not a PNG, JPEG or WebP image"
        case let .corrupt(source, format, detail): "\(source): corrupt \(format.rawValue.uppercased()): \(detail)"
        case let .invalidDimensions(w, h): "invalid image dimensions \(w)×\(h)"
        case let .tooLarge(w, h, limit):
            "image of \(w)×\(h) pixels exceeds the limit of \(limit) pixels"
        case let .invalidArgument(message): message
        case let .encodeFailed(format, detail): "\(format.rawValue.uppercased()) encoding failed: \(detail)"
        }
    }
}
