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
        var fill = [0, 0, 0, 0]
        var replicate = false
        switch border {
        case .replicate: replicate = true
        case let .constant(color):
            let px: [UInt8] = switch format {
            case .gray8: [color.luma]
            case .rgb8: [color.r, color.g, color.b]
            case .rgba8: [color.r, color.g, color.b, color.a]
            }
            for k in 0 ..< c { fill[k] = Int(px[k]) }
        }
        let border = WarpBorder(replicate: replicate, fill: (fill[0], fill[1], fill[2], fill[3]))
        return withUnsafeBytes { src in
            Image(uninitializedWidth: size.width, height: size.height, format: format) { dst in
                // One loop per channel count, specialized with the count a constant (the
                // channel loop unrolls, nothing is read from a closure's context): the face and
                // hand crops of every live frame pass here.
                switch c {
                case 1: Self.warpRows(Gray.self, src, dst, m, size, w, h, stride, border)
                case 3: Self.warpRows(RGB.self, src, dst, m, size, w, h, stride, border)
                default: Self.warpRows(RGBAChannels.self, src, dst, m, size, w, h, stride, border)
                }
            }
        }
    }

    /// The map is affine, so along an output row the source position moves by a constant step:
    /// no per-pixel matrix product. Positions are rounded to 1/32 pixel and the four weights are
    /// integers summing to 2¹⁵, as OpenCV's warpAffine interpolates 8-bit images: integer
    /// arithmetic is fast, and the model inputs come out as MediaPipe's do.
    private static func warpRows<C: ChannelCount>(_: C.Type, _ src: UnsafeBufferPointer<UInt8>, _ dst: UnsafeMutableBufferPointer<UInt8>,
                                                 _ m: AffineTransform, _ size: Size, _ w: Int, _ h: Int, _ stride: Int,
                                                 _ border: WarpBorder) {
        let c = C.count
        let stepX = m.a, stepY = m.c
        var o = 0
        for oy in 0 ..< size.height {
            let py = Double(oy) + 0.5
            var sx = m.a * 0.5 + m.b * py + m.tx - 0.5
            var sy = m.c * 0.5 + m.d * py + m.ty - 0.5
            for _ in 0 ..< size.width {
                // Far-off positions (a point at infinity) clamp instead of overflowing.
                // Round half up by truncating a shifted positive value (no libm call).
                let qx = Int(max(-1e9, min(1e9, sx * 32)) + 1_073_741_824.5) - 1_073_741_824
                let qy = Int(max(-1e9, min(1e9, sy * 32)) + 1_073_741_824.5) - 1_073_741_824
                let x0 = qx >> 5, y0 = qy >> 5, ax = qx & 31, ay = qy & 31
                let w00 = (32 - ax) * (32 - ay) * 32, w10 = ax * (32 - ay) * 32
                let w01 = (32 - ax) * ay * 32, w11 = ax * ay * 32
                if x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h {
                    let i = y0 * stride + x0 * c
                    for k in 0 ..< c {
                        let v = Int(src[i + k]) * w00 + Int(src[i + c + k]) * w10
                            + Int(src[i + stride + k]) * w01 + Int(src[i + stride + c + k]) * w11
                        dst[o + k] = UInt8(truncatingIfNeeded: (v + 16384) >> 15)
                    }
                } else {
                    for k in 0 ..< c {
                        let v = border.sample(src, x0, y0, k, w, h, stride, c) * w00 + border.sample(src, x0 + 1, y0, k, w, h, stride, c) * w10
                            + border.sample(src, x0, y0 + 1, k, w, h, stride, c) * w01 + border.sample(src, x0 + 1, y0 + 1, k, w, h, stride, c) * w11
                        dst[o + k] = UInt8(truncatingIfNeeded: (v + 16384) >> 15)
                    }
                }
                o += c
                sx += stepX
                sy += stepY
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

/// A channel count known to the compiler, so that the warp's channel loop unrolls.
private protocol ChannelCount { static var count: Int { get } }
private enum Gray: ChannelCount { static var count: Int { 1 } }
private enum RGB: ChannelCount { static var count: Int { 3 } }
private enum RGBAChannels: ChannelCount { static var count: Int { 4 } }

/// What a warp reads outside the source image: the nearest edge pixel, or a constant colour.
private struct WarpBorder {
    let replicate: Bool
    let fill: (Int, Int, Int, Int)

    @inline(__always) func sample(_ src: UnsafeBufferPointer<UInt8>, _ x: Int, _ y: Int, _ k: Int, _ w: Int, _ h: Int, _ stride: Int, _ c: Int) -> Int {
        if replicate {
            let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
            return Int(src[cy * stride + cx * c + k])
        }
        if x >= 0 && y >= 0 && x < w && y < h { return Int(src[y * stride + x * c + k]) }
        return k == 0 ? fill.0 : k == 1 ? fill.1 : k == 2 ? fill.2 : fill.3
    }
}
