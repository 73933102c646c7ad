import Foundation
import SentioImage

/// dlib's tiled image pyramid, the input of its MMOD detectors: the image, then copies each
/// (N−1)/N the size of the one before, down to 5 rows, packed into one picture — a first column
/// of the larger levels under the image, the smaller ones climbing back up its right side.
/// The layout follows `compute_tiled_image_pyramid_details` and the levels are made as
/// `input_rgb_image_pyramid` makes them (dlib's float bilinear resize of each level from the
/// one before, on normalized values), so the net sees the numbers dlib's net sees.
struct TiledImagePyramid {
    /// Where each level sits in the tiled picture (level 0 is the image itself).
    let levels: [DlibRectangle]
    let rows: Int
    let columns: Int
    /// N of `pyramid_down<N>`.
    let downsampling: Int

    init(rows imageRows: Int, columns imageColumns: Int, downsampling: Int, padding: Int, outerPadding: Int) {
        self.downsampling = downsampling
        var sizes: [(rows: Int, columns: Int)] = [(imageRows, imageColumns)]
        var (nr, nc) = (imageRows, imageColumns)
        let rate = Double(downsampling - 1) / Double(downsampling)
        while true {
            (nr, nc) = (Int((rate * Double(nr)).rounded(.down)), Int((rate * Double(nc)).rounded(.down)))
            if nr * nc == 0 || nr < 5 { break }
            sizes.append((nr, nc))
        }
        // The first column goes down until the next level fits beside the image on the way back.
        let totalHeight = sizes.reduce(0) { $0 + $1.rows + padding } - 2 * padding
        var height = 0, previousWidth = 0
        for s in sizes {
            if s.columns <= imageColumns - previousWidth - padding, (height - imageRows) * 2 >= totalHeight - imageRows { break }
            height += s.rows + padding
            previousWidth = s.columns
        }
        height -= padding
        rows = height + 2 * outerPadding
        columns = imageColumns + 2 * outerPadding

        var placed: [DlibRectangle] = []
        var y = outerPadding
        while y < height + outerPadding, placed.count < sizes.count {
            let s = sizes[placed.count]
            placed.append(DlibRectangle(left: outerPadding, top: y, right: outerPadding + s.columns - 1, bottom: y + s.rows - 1))
            y += s.rows + padding
        }
        y -= padding
        let image = placed[0]
        while placed.count < sizes.count {
            let s = sizes[placed.count]
            let right = outerPadding + imageColumns - 1, bottom = y - 1
            let rect = DlibRectangle(left: right - s.columns + 1, top: bottom - s.rows + 1, right: right, bottom: bottom)
            // The last levels stop where they would run into the image.
            if rect.intersects(image) { break }
            placed.append(rect)
            y -= s.rows + padding
        }
        levels = placed
    }

    /// Writes the pyramid of `image` (RGB) into `out` (rows × columns × 3, zero elsewhere).
    func fill(_ out: UnsafeMutableBufferPointer<Float>, image: Image, mean: [Float]) {
        precondition(image.format == .rgb8 && out.count == rows * columns * 3)
        out.update(repeating: 0)
        let top = levels[0]
        image.withUnsafeBytes { pixels in
            for r in 0 ..< image.height {
                var p = r * image.rowStride
                var q = ((top.top + r) * columns + top.left) * 3
                for _ in 0 ..< image.width {
                    for c in 0 ..< 3 { out[q + c] = (Float(pixels[p + c]) - mean[c]) / 256 }
                    p += 3
                    q += 3
                }
            }
        }
        for i in levels.indices.dropFirst() {
            for channel in 0 ..< 3 { resize(out, from: levels[i - 1], to: levels[i], channel: channel) }
        }
    }

    /// One level from the one before, per channel, with dlib's float bilinear resize.
    private func resize(_ data: UnsafeMutableBufferPointer<Float>, from src: DlibRectangle, to dst: DlibRectangle, channel: Int) {
        let plan = DlibBilinearPlan(inRows: src.height, inColumns: src.width, outRows: dst.height, outColumns: dst.width)
        @inline(__always) func at(_ r: Int, _ c: Int) -> Float { data[((src.top + r) * columns + src.left + c) * 3 + channel] }
        for r in 0 ..< dst.height {
            let (top, bottom, tbFrac) = plan.rows[r]
            let tb = Float(tbFrac), invTB = Float(1 - tbFrac)
            let row = (dst.top + r) * columns + dst.left
            for c in 0 ..< plan.vectorColumns {
                let left = plan.vectorLeft[c], lr = plan.vectorFraction[c], invLR = 1 - lr
                var v = (invTB * invLR) * at(top, left)
                v += (invTB * lr) * at(top, left + 1)
                v += (tb * invLR) * at(bottom, left)
                v += (tb * lr) * at(bottom, left + 1)
                data[(row + c) * 3 + channel] = v
            }
            for c in plan.vectorColumns ..< dst.width {
                let (left, right, fraction) = plan.tail[c - plan.vectorColumns]
                let lr = Float(fraction)
                let upper = (1 - lr) * at(top, left) + lr * at(top, right)
                let lower = (1 - lr) * at(bottom, left) + lr * at(bottom, right)
                data[(row + c) * 3 + channel] = Float((1 - tbFrac) * Double(upper) + tbFrac * Double(lower))
            }
        }
    }

    /// A rectangle of the tiled picture in the original image's coordinates: the level whose
    /// tile is nearest the rectangle's centre, scaled up from it (`tiled_pyramid_to_image`).
    func toImage(left: Double, top: Double, right: Double, bottom: Double) -> (left: Double, top: Double, right: Double, bottom: Double) {
        // dlib rounds the centre to whole pixels to pick the level.
        let cx = Int(((left + right) / 2 + 0.5).rounded(.down)), cy = Int(((top + bottom) / 2 + 0.5).rounded(.down))
        var level = 0, best = Double.infinity
        for (i, rect) in levels.enumerated() {
            if rect.contains(x: cx, y: cy) { level = i; break }
            let dx = Double(min(max(cx, rect.left), rect.right) - cx), dy = Double(min(max(cy, rect.top), rect.bottom) - cy)
            let d = (dx * dx + dy * dy).squareRoot()
            if d < best { (best, level) = (d, i) }
        }
        let origin = levels[level]
        var (l, t, r, b) = (left - Double(origin.left), top - Double(origin.top), right - Double(origin.left), bottom - Double(origin.top))
        let ratio = Double(downsampling) / (Double(downsampling) - 1)
        for _ in 0 ..< level {
            (l, t, r, b) = (l * ratio + 0.3, t * ratio + 0.3, r * ratio + 0.3, b * ratio + 0.3)
        }
        return (l, t, r, b)
    }
}

/// Where dlib's bilinear `resize_image` (the overloads for float and RGB images) reads each
/// output pixel from. Columns come in two parts, as its code has them: a 4-wide SIMD loop whose
/// positions start at −4·scale, step by 4·scale in float and are truncated to integers, while
/// the last lane's right neighbour stays inside; then a scalar tail in double. Rows step in
/// double. The weights are formed by each caller, in the precision dlib uses there.
struct DlibBilinearPlan {
    /// Per output row: the upper and lower input rows and the fraction between them.
    let rows: [(top: Int, bottom: Int, fraction: Double)]
    /// Output columns computed by the SIMD loop (a multiple of 4).
    let vectorColumns: Int
    let vectorLeft: [Int]
    let vectorFraction: [Float]
    /// Per remaining column: left and right input columns and the fraction (double).
    let tail: [(left: Int, right: Int, fraction: Double)]

    init(inRows: Int, inColumns: Int, outRows: Int, outColumns: Int) {
        let xScale = Double(inColumns - 1) / Double(max(outColumns - 1, 1))
        let yScale = Double(inRows - 1) / Double(max(outRows - 1, 1))
        var y = -yScale
        rows = (0 ..< outRows).map { _ in
            y += yScale
            let top = Int(y.rounded(.down))
            return (top, min(top + 1, inRows - 1), y - Double(top))
        }
        let x0 = -4 * xScale
        let step = SIMD4(repeating: Float(4 * xScale))
        var lanes = SIMD4<Float>(Float(x0), Float(x0 + xScale), Float(x0 + 2 * xScale), Float(x0 + 3 * xScale))
        var left: [Int] = [], fraction: [Float] = []
        while true {
            lanes += step
            // (dlib stops only at the input's edge; the output's is checked too, for safety.)
            guard Int(lanes[3]) + 1 < inColumns, left.count + 4 <= outColumns else { break }
            for k in 0 ..< 4 {
                let l = Int(lanes[k]) // truncation, as _mm_cvttps_epi32
                left.append(l)
                fraction.append(lanes[k] - Float(l))
            }
        }
        (vectorColumns, vectorLeft, vectorFraction) = (left.count, left, fraction)
        var x = -xScale + Double(left.count) * xScale
        tail = (left.count ..< max(left.count, outColumns)).map { _ in
            x += xScale
            let l = Int(x.rounded(.down))
            return (l, min(l + 1, inColumns - 1), x - Double(l))
        }
    }
}

/// dlib's `pyramid_up` with `pyramid_down<2>` (what `upsample_num_times` does before its
/// detectors run): an RGB image about twice the size — (2·rows + 1) × (2·columns + 2), the
/// rectangle its 2:1 pyramid maps the image to — resized with dlib's RGB bilinear loop, which
/// truncates to 8 bits.
func dlibPyramidUp(_ image: Image) throws -> Image {
    precondition(image.format == .rgb8)
    let (inRows, inColumns) = (image.height, image.width)
    // point_up(p) = (p + (1.25, 0.75))·2 of the last pixel, rounded half away from zero.
    let outColumns = Int(((Double(inColumns - 1) + 1.25) * 2).rounded()) + 1
    let outRows = Int(((Double(inRows - 1) + 0.75) * 2).rounded()) + 1
    let plan = DlibBilinearPlan(inRows: inRows, inColumns: inColumns, outRows: outRows, outColumns: outColumns)
    var out = [UInt8](repeating: 0, count: outRows * outColumns * 3)
    image.withUnsafeBytes { pixels in
        let stride = image.rowStride
        @inline(__always) func at(_ r: Int, _ c: Int, _ k: Int) -> UInt8 { pixels[r * stride + c * 3 + k] }
        for r in 0 ..< outRows {
            let (top, bottom, tbFrac) = plan.rows[r]
            let tb = Float(tbFrac), invTB = Float(1 - tbFrac)
            for c in 0 ..< plan.vectorColumns {
                let left = plan.vectorLeft[c], lr = plan.vectorFraction[c], invLR = 1 - lr
                let (tlf, trf, blf, brf) = (invTB * invLR, invTB * lr, tb * invLR, tb * lr)
                for k in 0 ..< 3 {
                    var v = tlf * Float(at(top, left, k))
                    v += trf * Float(at(top, left + 1, k))
                    v += blf * Float(at(bottom, left, k))
                    v += brf * Float(at(bottom, left + 1, k))
                    out[(r * outColumns + c) * 3 + k] = UInt8(truncatingIfNeeded: Int32(v))
                }
            }
            for c in plan.vectorColumns ..< outColumns {
                let (left, right, lr) = plan.tail[c - plan.vectorColumns]
                for k in 0 ..< 3 {
                    let upper = (1 - lr) * Double(at(top, left, k)) + lr * Double(at(top, right, k))
                    let lower = (1 - lr) * Double(at(bottom, left, k)) + lr * Double(at(bottom, right, k))
                    out[(r * outColumns + c) * 3 + k] = UInt8(truncatingIfNeeded: Int((1 - tbFrac) * upper + tbFrac * lower))
                }
            }
        }
    }
    return try Image(width: outColumns, height: outRows, format: .rgb8, bytes: out)
}

extension DlibRectangle {
    /// Pixels in the rectangle (0 when empty).
    var area: Int { max(0, width) * max(0, height) }

    func contains(x: Int, y: Int) -> Bool { left <= x && x <= right && top <= y && y <= bottom }

    func intersection(_ other: DlibRectangle) -> DlibRectangle {
        DlibRectangle(left: max(left, other.left), top: max(top, other.top), right: min(right, other.right), bottom: min(bottom, other.bottom))
    }

    func intersects(_ other: DlibRectangle) -> Bool { intersection(other).area > 0 }

    /// The smallest rectangle holding both (dlib's `a + b`).
    func union(_ other: DlibRectangle) -> DlibRectangle {
        DlibRectangle(left: min(left, other.left), top: min(top, other.top), right: max(right, other.right), bottom: max(bottom, other.bottom))
    }
}
