import SentioImage
import SentioTestSupport
import Testing

/// The warp against a plain statement of its arithmetic (OpenCV's warpAffine for 8-bit images:
/// source positions stepped along each output row, rounded to 1/32 pixel, integer weights summing
/// to 2¹⁵, the border rule outside), for every channel count and both border rules.
@Suite("Affine warp")
struct WarpTests {
    static func reference(_ image: Image, _ m: AffineTransform, _ size: Size, _ border: BorderMode) -> [UInt8] {
        let c = image.format.channels
        let bytes = image.withUnsafeBytes { Array($0) }
        let fill: [Int] = {
            guard case let .constant(color) = border else { return [] }
            switch image.format {
            case .gray8: return [Int(color.luma)]
            case .rgb8: return [Int(color.r), Int(color.g), Int(color.b)]
            case .rgba8: return [Int(color.r), Int(color.g), Int(color.b), Int(color.a)]
            }
        }()
        func at(_ x: Int, _ y: Int, _ k: Int) -> Int {
            if case .replicate = border {
                return Int(bytes[min(max(y, 0), image.height - 1) * image.rowStride + min(max(x, 0), image.width - 1) * c + k])
            }
            return x >= 0 && y >= 0 && x < image.width && y < image.height ? Int(bytes[y * image.rowStride + x * c + k]) : fill[k]
        }
        var out: [UInt8] = []
        for oy in 0 ..< size.height {
            var sx = m.a * 0.5 + m.b * (Double(oy) + 0.5) + m.tx - 0.5
            var sy = m.c * 0.5 + m.d * (Double(oy) + 0.5) + m.ty - 0.5
            for _ in 0 ..< size.width {
                // Half up: floor(v + ½), taken as the truncation of v + 2³⁰ + ½ (as positive).
                let qx = Int(sx * 32 + 1_073_741_824.5) - 1_073_741_824
                let qy = Int(sy * 32 + 1_073_741_824.5) - 1_073_741_824
                let x0 = qx >> 5, y0 = qy >> 5, ax = qx & 31, ay = qy & 31
                for k in 0 ..< c {
                    let v = at(x0, y0, k) * (32 - ax) * (32 - ay) * 32 + at(x0 + 1, y0, k) * ax * (32 - ay) * 32
                        + at(x0, y0 + 1, k) * (32 - ax) * ay * 32 + at(x0 + 1, y0 + 1, k) * ax * ay * 32
                    out.append(UInt8((v + 16384) >> 15))
                }
                sx += m.a
                sy += m.c
            }
        }
        return out
    }

    @Test("equals the reference arithmetic: gray, RGB and RGBA, constant and replicated borders, rotated and partly outside",
          arguments: [PixelFormat.gray8, .rgb8, .rgba8])
    func matchesReference(format: PixelFormat) throws {
        var generator = SeededRandom(seed: 7)
        let width = 97, height = 61
        let bytes = (0 ..< width * height * format.channels).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        let image = try Image(width: width, height: height, format: format, bytes: bytes)
        let size = Size(width: 40, height: 33)
        for trial in 0 ..< 12 {
            let region = RotatedRect(center: Point(Double.random(in: -10 ... 110, using: &generator), Double.random(in: -10 ... 70, using: &generator)),
                                     width: Double.random(in: 5 ... 150, using: &generator), height: Double.random(in: 5 ... 90, using: &generator),
                                     rotation: Double.random(in: -3.2 ... 3.2, using: &generator))
            let m = region.transform(from: size)
            for border in [BorderMode.constant(RGBA(10, 200, 30)), .replicate] {
                let warped = try image.warped(m, size: size, border: border)
                #expect(warped.withUnsafeBytes { Array($0) } == Self.reference(image, m, size, border), "trial \(trial), \(border)")
            }
        }
    }
}
