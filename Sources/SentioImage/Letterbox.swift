/// The fit of a `sourceWidth`×`sourceHeight` image inside a target with its aspect ratio kept
/// and equal bars on both sides; maps points between the two.
public struct Letterbox: Sendable, Hashable {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let target: Size
    /// Target pixels per source pixel.
    public let scale: Double
    /// Left and top bar widths in target pixels.
    public let padX: Double
    public let padY: Double

    public init(sourceWidth: Int, sourceHeight: Int, target: Size) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.target = target
        scale = min(Double(target.width) / Double(sourceWidth), Double(target.height) / Double(sourceHeight))
        padX = (Double(target.width) - Double(sourceWidth) * scale) / 2
        padY = (Double(target.height) - Double(sourceHeight) * scale) / 2
    }

    /// The map from target pixels to source pixels.
    public var targetToSource: AffineTransform {
        AffineTransform(a: 1 / scale, b: 0, c: 0, d: 1 / scale, tx: -padX / scale, ty: -padY / scale)
    }

    /// A point in normalized target coordinates ([0, 1]², as detectors report them) in
    /// normalized source coordinates.
    public func sourceNormalized(fromTarget p: Point) -> Point {
        let s = targetToSource.apply(Point(p.x * Double(target.width), p.y * Double(target.height)))
        return Point(s.x / Double(sourceWidth), s.y / Double(sourceHeight))
    }
}

extension Image {
    /// This image scaled to fit `size` with its aspect ratio kept, centred on `fill` bars.
    /// Sampled bilinearly through the exact map (as MediaPipe's image-to-tensor stage does), so
    /// points map back without rounding error.
    public func letterboxed(to size: Size, fill: RGBA = .black) throws -> (image: Image, letterbox: Letterbox) {
        let box = Letterbox(sourceWidth: width, sourceHeight: height, target: size)
        return (try warped(box.targetToSource, size: size, border: .constant(fill)), box)
    }

    /// Copies `other` (same format) with its top-left at `at`, clipped to this image.
    public mutating func paste(_ other: Image, at: (x: Int, y: Int)) {
        precondition(other.format == format, "paste needs the same pixel format")
        guard let target = PixelRect(x: at.x, y: at.y, width: other.width, height: other.height)
            .clamped(width: width, height: height) else { return }
        let c = channels, stride = rowStride
        other.withUnsafeBytes { src in
            withUnsafeMutableBytes { dst in
                for y in target.y ..< target.y + target.height {
                    let sy = y - at.y, sx = target.x - at.x
                    for i in 0 ..< target.width * c {
                        dst[y * stride + target.x * c + i] = src[sy * other.rowStride + sx * c + i]
                    }
                }
            }
        }
    }
}
