/// An 8-bit image: `height` rows of `width` pixels in ``PixelFormat`` layout, rows `rowStride`
/// bytes apart. Crops are views that share storage with their parent until one of them is
/// written (copy on write), so cropping costs nothing.
public struct Image: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Pixel layout.
    public let format: PixelFormat
    /// Bytes from the start of one row to the start of the next (≥ width × channels).
    public let rowStride: Int
    /// Storage, possibly shared with other views.
    @usableFromInline internal var storage: PixelStorage
    /// Byte offset of pixel (0, 0) in `storage`.
    @usableFromInline internal var origin: Int

    /// Channels per pixel.
    @inlinable public var channels: Int { format.channels }

    /// A new image filled with `fill` (default zero: black, transparent).
    public init(width: Int, height: Int, format: PixelFormat, fill: UInt8 = 0) throws {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw ImageError.invalidDimensions(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = width * format.channels
        self.storage = PixelStorage(count: width * height * format.channels, repeating: fill)
        self.origin = 0
    }

    /// Wraps existing bytes. `rowStride` defaults to tightly packed rows.
    public init(width: Int, height: Int, format: PixelFormat, bytes: [UInt8], rowStride: Int? = nil) throws {
        let stride = rowStride ?? width * format.channels
        guard width > 0, height > 0 else { throw ImageError.invalidDimensions(width: width, height: height) }
        guard stride >= width * format.channels, bytes.count >= stride * (height - 1) + width * format.channels else {
            throw ImageError.invalidArgument(
                "\(bytes.count) bytes cannot hold \(width)×\(height) \(format.rawValue) with row stride \(stride)")
        }
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = stride
        let storage = PixelStorage(count: bytes.count)
        bytes.withUnsafeBufferPointer { storage.bytes.update(from: $0.baseAddress!, count: bytes.count) }
        self.storage = storage
        self.origin = 0
    }

    /// Builds an image whose storage is filled by `body` (tightly packed rows).
    @inlinable
    internal init(uninitializedWidth width: Int, height: Int, format: PixelFormat,
                  _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        self.width = width
        self.height = height
        self.format = format
        self.rowStride = width * format.channels
        self.origin = 0
        self.storage = PixelStorage(count: width * height * format.channels)
        try body(UnsafeMutableBufferPointer(start: storage.bytes, count: storage.count))
    }

    /// Number of pixels.
    public var pixelCount: Int { width * height }

    /// Channel `channel` of pixel (`x`, `y`). Coordinates must be inside the image.
    @inlinable
    public subscript(x: Int, y: Int, channel: Int) -> UInt8 {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels)
            return storage.bytes[origin + y * rowStride + x * channels + channel]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels)
            makeUnique()
            storage.bytes[origin + y * rowStride + x * channels + channel] = newValue
        }
    }

    /// The pixel at (`x`, `y`) as RGBA (gray is replicated, missing alpha is 255).
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height)
        let p = storage.bytes + origin + y * rowStride + x * channels
        switch format {
        case .gray8: return RGBA(p[0], p[0], p[0])
        case .rgb8: return RGBA(p[0], p[1], p[2])
        case .rgba8: return RGBA(p[0], p[1], p[2], p[3])
        }
    }

    /// Calls `body` with the bytes of this view: row `y` starts at `y * rowStride`.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(UnsafeBufferPointer(start: storage.bytes + origin, count: viewByteCount))
        }
    }

    /// Calls `body` with the mutable bytes of this view (copying shared storage first).
    @inlinable
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        makeUnique()
        return try withExtendedLifetime(storage) {
            try body(UnsafeMutableBufferPointer(start: storage.bytes + origin, count: viewByteCount))
        }
    }

    /// Copies shared storage before a write, so other views keep their pixels.
    @inlinable
    internal mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Bytes from the first pixel of the view to the last.
    @inlinable
    public var viewByteCount: Int { rowStride * (height - 1) + width * channels }

    /// True when rows are tightly packed and the view starts at its storage.
    public var isContiguous: Bool { rowStride == width * channels }

    /// The pixels of `rect` as a view sharing this image's storage.
    public func cropped(to rect: PixelRect) throws -> Image {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
              rect.x + rect.width <= width, rect.y + rect.height <= height
        else {
            throw ImageError.invalidArgument("crop \(rect) is outside the \(width)×\(height) image")
        }
        var view = self
        view.origin = origin + rect.y * rowStride + rect.x * channels
        return Image(view: view, width: rect.width, height: rect.height)
    }

    private init(view: Image, width: Int, height: Int) {
        self.width = width
        self.height = height
        self.format = view.format
        self.rowStride = view.rowStride
        self.storage = view.storage
        self.origin = view.origin
    }

    /// A tightly packed copy that owns its storage.
    public func compacted() -> Image {
        if isContiguous && origin == 0 && storage.count == viewByteCount { return self }
        let rowBytes = width * channels
        return withUnsafeBytes { src in
            Image(uninitializedWidth: width, height: height, format: format) { dst in
                for y in 0 ..< height {
                    let from = UnsafeBufferPointer(rebasing: src[y * rowStride ..< y * rowStride + rowBytes])
                    _ = UnsafeMutableBufferPointer(rebasing: dst[y * rowBytes ..< (y + 1) * rowBytes]).initialize(from: from)
                }
            }
        }
    }

    /// Tightly packed pixel bytes, row after row.
    public var packedBytes: [UInt8] {
        compacted().withUnsafeBytes { Array($0) }
    }
}

extension Image: Equatable {
    /// Images are equal when their sizes, formats and pixels are; strides and sharing do not matter.
    public static func == (a: Image, b: Image) -> Bool {
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return false }
        return a.packedBytes == b.packedBytes
    }
}
