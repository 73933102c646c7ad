/// The layout of one pixel in an 8-bit ``Image``.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable {
    /// One luma byte.
    case gray8
    /// Red, green, blue bytes.
    case rgb8
    /// Red, green, blue, alpha bytes (alpha not premultiplied).
    case rgba8

    /// Bytes (and channels) per pixel.
    public var channels: Int {
        switch self {
        case .gray8: 1
        case .rgb8: 3
        case .rgba8: 4
        }
    }

    /// The format with this many channels, if there is one.
    public init?(channels: Int) {
        switch channels {
        case 1: self = .gray8
        case 3: self = .rgb8
        case 4: self = .rgba8
        default: return nil
        }
    }
}
