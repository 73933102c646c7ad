import Foundation
import SentioImage

/// A face aligned the way dlib aligns it for its recognition net: the 5 landmarks mapped by a
/// similarity transform onto dlib's mean face, `size`×`size` pixels with `padding` (a fraction
/// of the face) around it.
///
/// The pixels are computed as dlib's `extract_image_chips` computes them — a 2:1 Gaussian
/// pyramid (5-tap 1-4-6-4-1, integer arithmetic) while the face is more than twice the chip,
/// then bilinear sampling truncated to 8 bits, black outside the image — because the
/// descriptor is compared against dlib's to within 0.01.
public struct FaceChip: Sendable {
    /// The rectangle of the image the chip shows (before rotation) and its rotation.
    public struct Placement: Sendable, Equatable {
        public var left: Double, top: Double, right: Double, bottom: Double
        /// Radians, positive turning image x towards image y.
        public var angle: Double
        public var size: Int

        var centerX: Double { (left + right) / 2 }
        var centerY: Double { (top + bottom) / 2 }
        /// dlib's `drectangle::area()` (inclusive edges: width = right − left + 1).
        var area: Double {
            guard left <= right, top <= bottom else { return 0 }
            return (right - left + 1) * (bottom - top + 1)
        }

        /// dlib's `pyramid_down<2>::rect_down`.
        func down() -> Placement {
            Placement(left: left / 2 - 1.25, top: top / 2 - 0.75, right: right / 2 - 1.25, bottom: bottom / 2 - 0.75, angle: angle, size: size)
        }

        func translated(_ dx: Double, _ dy: Double) -> Placement {
            Placement(left: left + dx, top: top + dy, right: right + dx, bottom: bottom + dy, angle: angle, size: size)
        }

        /// A corner rotated about the centre by `angle`.
        func corner(_ x: Double, _ y: Double) -> (Double, Double) {
            let (c, s) = (cos(angle), sin(angle))
            let (dx, dy) = (x - centerX, y - centerY)
            return (c * dx - s * dy + centerX, s * dx + c * dy + centerY)
        }
    }

    /// dlib's mean positions of the 5 landmarks (right eye outer and inner corner, left eye
    /// outer and inner corner, bottom of the nose) in a unit face.
    static let meanFace5: [(Double, Double)] = [
        (0.8595674595992, 0.2134981538014), (0.6460604764104, 0.2289674387677),
        (0.1205750620789, 0.2137274526848), (0.3340850613712, 0.2290642403242),
        (0.4901123135679, 0.6277975316475),
    ]

    /// Where the chip lies for 5 landmarks (dlib's `get_face_chip_details`).
    public static func placement(landmarks5: [PixelPoint], size: Int = 150, padding: Double = 0.25) -> Placement {
        let chipPoints = meanFace5.map { ((padding + $0.0) / (2 * padding + 1) * Double(size), (padding + $0.1) / (2 * padding + 1) * Double(size)) }
        let t = SimilarityTransform.fit(from: chipPoints, to: landmarks5.map { (Double($0.x), Double($0.y)) })
        let angle = atan2(t.b, t.a)
        let scale = (t.a * t.a + t.b * t.b).squareRoot()
        let (cx, cy) = t.apply(Double(size) / 2, Double(size) / 2)
        // dlib's centered_drect: a width of w spans w − 1 between inclusive edges.
        let half = (Double(size) * scale - 1) / 2
        return Placement(left: cx - half, top: cy - half, right: cx + half, bottom: cy + half, angle: angle, size: size)
    }

    /// The chip's pixels (RGB, `size`×`size`).
    public let image: Image
    public let placement: Placement

    /// Extracts the chip at `placement` from `source` (converted to RGB first).
    public init(from source: Image, placement: Placement) throws {
        let rgb = source.format == .rgb8 ? source : source.converted(to: .rgb8)
        self.placement = placement
        let size = placement.size
        let area = Double(size * size)
        // The margin dlib keeps around the face grows with each pyramid level it will need.
        var grow = 2.0
        var r = placement.down()
        while r.area > area { r = r.down(); grow = grow * 2 + 2 }
        var (minX, minY, maxX, maxY) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for (x, y) in [(placement.left, placement.top), (placement.right, placement.top), (placement.left, placement.bottom), (placement.right, placement.bottom)] {
            let p = placement.corner(x, y)
            (minX, minY, maxX, maxY) = (min(minX, p.0), min(minY, p.1), max(maxX, p.0), max(maxY, p.1))
        }
        // grow_rect, intersect with the image, then rounded to integers (lround).
        let bl = Int(max(minX - grow, 0).rounded(.toNearestOrAwayFromZero)), bt = Int(max(minY - grow, 0).rounded(.toNearestOrAwayFromZero))
        let br = Int(min(maxX + grow, Double(rgb.width - 1)).rounded(.toNearestOrAwayFromZero))
        let bb = Int(min(maxY + grow, Double(rgb.height - 1)).rounded(.toNearestOrAwayFromZero))

        var chip = [UInt8](repeating: 0, count: size * size * 3)
        if bl <= br, bt <= bb, let region = try? rgb.cropped(to: PixelRect(x: bl, y: bt, width: br - bl + 1, height: bb - bt + 1)) {
            var level = Plane(region)
            var rect = placement.translated(-Double(bl), -Double(bt))
            var levelIndex = -1
            while rect.down().area > area {
                levelIndex += 1
                rect = rect.down()
            }
            // dlib builds the levels for all chips of an image at once; one chip reads level
            // levelIndex, reached by levelIndex + 1 halvings of the sub-image.
            if levelIndex >= 0 {
                for _ in 0 ... levelIndex { level = level.pyramidDown() }
            }
            // Chip (0,0), (size−1,0), (0,size−1) ↦ the rotated rect's corners: an exact affine map.
            let tl = rect.corner(rect.left, rect.top), tr = rect.corner(rect.right, rect.top), blc = rect.corner(rect.left, rect.bottom)
            let s = Double(size - 1)
            let (ax, ay) = ((tr.0 - tl.0) / s, (tr.1 - tl.1) / s)
            let (bx, by) = ((blc.0 - tl.0) / s, (blc.1 - tl.1) / s)
            level.sampleBilinear(into: &chip, size: size) { c, r in
                (ax * Double(c) + bx * Double(r) + tl.0, ay * Double(c) + by * Double(r) + tl.1)
            }
        }
        image = try Image(width: size, height: size, format: .rgb8, bytes: chip)
    }

    /// Landmarks → placement → pixels.
    public init(from source: Image, landmarks5: [PixelPoint], size: Int = 150, padding: Double = 0.25) throws {
        try self.init(from: source, placement: FaceChip.placement(landmarks5: landmarks5, size: size, padding: padding))
    }
}

/// An RGB image as packed bytes, for dlib's pyramid and sampling.
private struct Plane {
    var width: Int, height: Int
    var pixels: [UInt8]

    init(_ image: Image) {
        width = image.width
        height = image.height
        pixels = image.packedBytes
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    /// dlib's `pyramid_down<2>` on RGB: 1-4-6-4-1 rows then columns in 16-bit integers,
    /// every other row and column kept, divided by 256; (n − 3) / 2 pixels per side.
    func pyramidDown() -> Plane {
        guard width > 8, height > 8 else { return Plane(width: 0, height: 0, pixels: []) }
        let ow = (width - 3) / 2, oh = (height - 3) / 2
        var temp = [UInt16](repeating: 0, count: height * ow * 3)
        pixels.withUnsafeBufferPointer { p in
            for y in 0 ..< height {
                for x in 0 ..< ow {
                    for ch in 0 ..< 3 {
                        let i = (y * width + 2 * x) * 3 + ch
                        let sum = UInt16(p[i]) + 4 * UInt16(p[i + 3]) + 6 * UInt16(p[i + 6]) + 4 * UInt16(p[i + 9]) + UInt16(p[i + 12])
                        temp[(y * ow + x) * 3 + ch] = sum
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: oh * ow * 3)
        let row = ow * 3
        for oy in 0 ..< oh {
            let y = 2 * oy + 2
            for i in 0 ..< row {
                // Wraps like dlib's uint16 (the sum never exceeds 65,280).
                let sum = temp[(y - 2) * row + i] &+ 4 &* temp[(y - 1) * row + i] &+ 6 &* temp[y * row + i]
                    &+ 4 &* temp[(y + 1) * row + i] &+ temp[(y + 2) * row + i]
                out[oy * row + i] = UInt8(sum / 256)
            }
        }
        return Plane(width: ow, height: oh, pixels: out)
    }

    /// dlib's `interpolate_bilinear`: all four neighbours must lie inside, else black.
    func sampleBilinear(into chip: inout [UInt8], size: Int, map: (Int, Int) -> (Double, Double)) {
        for r in 0 ..< size {
            for c in 0 ..< size {
                let (x, y) = map(c, r)
                let left = Int(x.rounded(.down)), top = Int(y.rounded(.down))
                guard left >= 0, top >= 0, left + 1 < width, top + 1 < height else { continue }
                let (fx, fy) = (x - Double(left), y - Double(top))
                let i = (top * width + left) * 3, j = i + width * 3
                for ch in 0 ..< 3 {
                    let tl = Double(pixels[i + ch]), tr = Double(pixels[i + 3 + ch])
                    let bl = Double(pixels[j + ch]), br = Double(pixels[j + 3 + ch])
                    let v = (1 - fy) * ((1 - fx) * tl + fx * tr) + fy * ((1 - fx) * bl + fx * br)
                    chip[(r * size + c) * 3 + ch] = UInt8(max(0, min(255, v)))
                }
            }
        }
    }
}
