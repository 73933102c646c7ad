/// A Float32 image stored plane by plane (all of channel 0, then all of channel 1, …), the
/// layout of normalized model inputs and of masks and heat maps. Rows are `rowStride`
/// elements apart and planes `planeStride` elements apart; crops are views.
public struct PlanarImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public private(set) var rowStride: Int
    public private(set) var planeStride: Int
    public private(set) var storage: [Float]
    private var origin: Int

    /// A new image filled with `fill`.
    public init(width: Int, height: Int, channels: Int, fill: Float = 0) throws {
        guard width > 0, height > 0, channels > 0, width <= 1 << 20, height <= 1 << 20, channels <= 4096 else {
            throw ImageError.invalidDimensions(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.channels = channels
        rowStride = width
        planeStride = width * height
        storage = [Float](repeating: fill, count: width * height * channels)
        origin = 0
    }

    /// `image`'s channels as floats, each value v becoming v · scale + offset (for example
    /// scale 1/255 for [0, 1], or 2/255 and −1 for [−1, 1]).
    public init(_ image: Image, scale: Float = 1.0 / 255, offset: Float = 0) {
        width = image.width
        height = image.height
        channels = image.channels
        rowStride = width
        planeStride = width * height
        origin = 0
        let (w, h, c, plane) = (width, height, channels, planeStride)
        storage = image.withUnsafeBytes { src in
            [Float](unsafeUninitializedCapacity: plane * c) { dst, count in
                for y in 0 ..< h {
                    for x in 0 ..< w {
                        for k in 0 ..< c {
                            dst[k * plane + y * w + x] = Float(src[y * image.rowStride + x * c + k]) * scale + offset
                        }
                    }
                }
                count = plane * c
            }
        }
    }

    /// Value of `channel` at (x, y).
    public subscript(x: Int, y: Int, channel: Int) -> Float {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels)
            return storage[origin + channel * planeStride + y * rowStride + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels)
            storage[origin + channel * planeStride + y * rowStride + x] = newValue
        }
    }

    /// A view of `rect` sharing storage.
    public func cropped(to rect: PixelRect) throws -> PlanarImage {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
              rect.x + rect.width <= width, rect.y + rect.height <= height
        else { throw ImageError.invalidArgument("crop \(rect) is outside the \(width)×\(height) image") }
        return PlanarImage(of: self, origin: origin + rect.y * rowStride + rect.x, width: rect.width, height: rect.height)
    }

    private init(of parent: PlanarImage, origin: Int, width: Int, height: Int) {
        self.width = width
        self.height = height
        channels = parent.channels
        rowStride = parent.rowStride
        planeStride = parent.planeStride
        storage = parent.storage
        self.origin = origin
    }

    /// Values interleaved pixel by pixel (HWC), the NHWC layout of a batch of one.
    public func interleaved() -> [Float] {
        var out = [Float](repeating: 0, count: width * height * channels)
        for y in 0 ..< height {
            for x in 0 ..< width {
                for k in 0 ..< channels {
                    out[(y * width + x) * channels + k] = storage[origin + k * planeStride + y * rowStride + x]
                }
            }
        }
        return out
    }

    /// Back to 8 bits: each value v becomes round((v − offset) / scale), clamped to 0…255.
    public func image(scale: Float = 1.0 / 255, offset: Float = 0) throws -> Image {
        guard let format = PixelFormat(channels: channels) else {
            throw ImageError.invalidArgument("\(channels) channels have no 8-bit pixel format")
        }
        var out = try Image(width: width, height: height, format: format)
        for y in 0 ..< height {
            for x in 0 ..< width {
                for k in 0 ..< channels {
                    out[x, y, k] = UInt8(clamping: Int(((self[x, y, k] - offset) / scale).rounded()))
                }
            }
        }
        return out
    }

    public static func == (a: PlanarImage, b: PlanarImage) -> Bool {
        a.width == b.width && a.height == b.height && a.channels == b.channels && a.interleaved() == b.interleaved()
    }
}
