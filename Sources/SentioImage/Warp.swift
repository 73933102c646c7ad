import Foundation

/// What a warp reads outside the source image.
public enum BorderMode: Sendable, Hashable {
    /// A constant colour (the face and hand models are fed black borders).
    case constant(RGBA)
    /// The nearest edge pixel.
    case replicate
}

/// A rectangle of any orientation: centre, size and rotation (radians, clockwise on screen),
/// in pixel coordinates. The regions of interest of the face and hand pipelines.
public struct RotatedRect: Sendable, Hashable {
    public var center: Point
    public var width: Double
    public var height: Double
    public var rotation: Double

    public init(center: Point, width: Double, height: Double, rotation: Double = 0) {
        self.center = center
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The map from an output image of `size` to this rectangle in the source: output (0, 0)
    /// lands on the rectangle's top-left corner as rotated.
    public func transform(from size: Size) -> AffineTransform {
        AffineTransform.translation(center.x, center.y)
            .concatenating(after: .rotation(rotation))
            .concatenating(after: .scale(width / Double(size.width), height / Double(size.height)))
            .concatenating(after: .translation(-Double(size.width) / 2, -Double(size.height) / 2))
    }

    /// The four corners, clockwise from the top-left.
    public var corners: [Point] {
        let m = transform(from: Size(width: 1, height: 1))
        return [Point(0, 0), Point(1, 0), Point(1, 1), Point(0, 1)].map(m.apply)
    }
}

extension Image {
    /// An image of `size` whose pixel centre (x + ½, y + ½) shows the source at
    /// `outputToSource` of that point, sampled bilinearly.
    public func warped(_ outputToSource: AffineTransform, size: Size, border: BorderMode = .constant(.black)) throws -> Image {
        guard size.width > 0, size.height > 0, size.width <= 1 << 16, size.height <= 1 << 16 else {
            throw ImageError.invalidArgument("warp target \(size.width)×\(size.height) is not a valid size")
        }
        let c = channels, w = width, h = height, stride = rowStride
        let m = outputToSource
        var fill = [Float](repeating: 0, count: 4)
        var replicate = false
        switch border {
        case .replicate: replicate = true
        case let .constant(color):
            let px: [UInt8] = switch format {
            case .gray8: [color.luma]
            case .rgb8: [color.r, color.g, color.b]
            case .rgba8: [color.r, color.g, color.b, color.a]
            }
            for k in 0 ..< c { fill[k] = Float(px[k]) }
        }
        return withUnsafeBytes { src in
            Image(uninitializedWidth: size.width, height: size.height, format: format) { dst in
                for oy in 0 ..< size.height {
                    for ox in 0 ..< size.width {
                        // Source position in pixel-centre coordinates.
                        let px = Double(ox) + 0.5, py = Double(oy) + 0.5
                        let sx = m.a * px + m.b * py + m.tx - 0.5
                        let sy = m.c * px + m.d * py + m.ty - 0.5
                        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                        let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                        let out = (oy * size.width + ox) * c
                        let inside = x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h
                        for k in 0 ..< c {
                            func sample(_ x: Int, _ y: Int) -> Float {
                                if inside { return Float(src[y * stride + x * c + k]) }
                                if replicate {
                                    let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
                                    return Float(src[cy * stride + cx * c + k])
                                }
                                return x >= 0 && y >= 0 && x < w && y < h ? Float(src[y * stride + x * c + k]) : fill[k]
                            }
                            let top = sample(x0, y0) * (1 - fx) + sample(x0 + 1, y0) * fx
                            let bottom = sample(x0, y0 + 1) * (1 - fx) + sample(x0 + 1, y0 + 1) * fx
                            let v = top * (1 - fy) + bottom * fy
                            dst[out + k] = UInt8(clamping: Int((v + 0.5).rounded(.down)))
                        }
                    }
                }
            }
        }
    }

    /// The contents of `region`, turned upright and scaled to `size`; and the map from the
    /// output back into this image (to project landmarks found in the crop).
    public func cropped(to region: RotatedRect, size: Size, border: BorderMode = .constant(.black)) throws
        -> (image: Image, outputToSource: AffineTransform)
    {
        let m = region.transform(from: size)
        return (try warped(m, size: size, border: border), m)
    }
}
