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

    /// dlib's bilinear `resize_image` for float images (its 4-wide SIMD loop, then the scalar
    /// tail), reproduced operation by operation: positions step in float, weights are floats.
    private func resize(_ data: UnsafeMutableBufferPointer<Float>, from src: DlibRectangle, to dst: DlibRectangle, channel: Int) {
        let (inRows, inColumns) = (src.height, src.width)
        @inline(__always) func at(_ r: Int, _ c: Int) -> Float { data[((src.top + r) * columns + src.left + c) * 3 + channel] }
        let xScale = Double(inColumns - 1) / Double(max(dst.width - 1, 1))
        let yScale = Double(inRows - 1) / Double(max(dst.height - 1, 1))
        var y = -yScale
        for r in 0 ..< dst.height {
            y += yScale
            let top = Int(y.rounded(.down)), bottom = min(top + 1, inRows - 1)
            let tbFrac = y - Double(top)
            let tb = Float(tbFrac), invTB = Float(1 - tbFrac)
            let x0 = -4 * xScale
            let step = Float(4 * xScale)
            var lanes = SIMD4<Float>(Float(x0), Float(x0 + xScale), Float(x0 + 2 * xScale), Float(x0 + 3 * xScale))
            var c = 0
            let row = (dst.top + r) * columns + dst.left
            while true {
                lanes += SIMD4(repeating: step)
                guard Int(lanes[3]) + 1 < inColumns else { break }
                for k in 0 ..< 4 {
                    let left = Int(lanes[k]) // truncation, as _mm_cvttps_epi32
                    let lr = lanes[k] - Float(left), invLR = 1 - lr
                    let (tlf, trf, blf, brf) = (invTB * invLR, invTB * lr, tb * invLR, tb * lr)
                    var v = tlf * at(top, left)
                    v += trf * at(top, left + 1)
                    v += blf * at(bottom, left)
                    v += brf * at(bottom, left + 1)
                    data[(row + c + k) * 3 + channel] = v
                }
                c += 4
            }
            var x = -xScale + Double(c) * xScale
            while c < dst.width {
                x += xScale
                let left = Int(x.rounded(.down)), right = min(left + 1, inColumns - 1)
                let lr = Float(x - Double(left))
                let upper = (1 - lr) * at(top, left) + lr * at(top, right)
                let lower = (1 - lr) * at(bottom, left) + lr * at(bottom, right)
                data[(row + c) * 3 + channel] = Float((1 - tbFrac) * Double(upper) + tbFrac * Double(lower))
                c += 1
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
