import Foundation
import SentioImage

extension ScreenReader {
    /// A binarized field's glyphs (4-connected ink, 0 on 255): each pixel's glyph number and
    /// each glyph's bounding box, and whether it touches the field's edge.
    package struct Glyphs {
        package typealias Box = (x0: Int, y0: Int, x1: Int, y1: Int, touches: Bool)
        package var width: Int, height: Int
        /// Each pixel's glyph number, row by row; -1 for background.
        package var label: [Int32]
        package var boxes: [Box]

        package init(_ binary: Image) {
            let w = binary.width, h = binary.height
            width = w; height = h
            label = [Int32](repeating: -1, count: w * h)
            boxes = []
            let ink = binary.withUnsafeBytes { px in (0 ..< w * h).map { px[($0 / w) * binary.rowStride + $0 % w] == 0 } }
            for start in 0 ..< w * h where ink[start] && label[start] < 0 {
                let id = Int32(boxes.count)
                var stack = [start], box: Box = (x0: w, y0: h, x1: 0, y1: 0, touches: false)
                label[start] = id
                while let i = stack.popLast() {
                    let x = i % w, y = i / w
                    box = (min(box.x0, x), min(box.y0, y), max(box.x1, x), max(box.y1, y), box.touches || y == 0 || y == h - 1 || x == 0 || x == w - 1)
                    for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < w, ny < h else { continue }
                        let j = ny * w + nx
                        if ink[j] && label[j] < 0 { label[j] = id; stack.append(j) }
                    }
                }
                boxes.append(box)
            }
        }

        /// Cuts glyphs `minHeight` tall or more at a neck: three or more columns in a row each
        /// holding at most a fourteenth of the glyph's height of its ink, with more on both
        /// sides, and one side holding a column a third of the glyph's height or more (a
        /// digit's upright); the cut is on that side of the neck. A thin line that happens to touch a digit (the rim of a bright
        /// bubble behind the CP) then leaves it as a glyph of its own. The ends of a digit's
        /// strokes thin out towards its edge, with no more ink beyond them, and are no neck.
        package mutating func cutNecks(minHeight: Int) {
            var id = 0
            while id < boxes.count {
                defer { id += 1 }
                let b = boxes[id], h = b.y1 - b.y0 + 1
                guard h >= minHeight, b.x1 - b.x0 >= 6 else { continue }
                let counts = (b.x0 ... b.x1).map { x in (b.y0 ... b.y1).reduce(0) { $0 + (label[$1 * width + x] == Int32(id) ? 1 : 0) } }
                let thin = max(1, h / 14), upright = (h + 2) / 3
                var cut: Int?
                var start: Int?
                for (i, c) in counts.enumerated() {
                    if c <= thin { if start == nil { start = i }; continue }
                    if let s = start, s > 0, i - s >= 3 {
                        // The neck goes with the side without an upright (the line), or is
                        // halved between two digits it bridges.
                        let left = counts[..<s].max()! >= upright, right = counts[i...].max()! >= upright
                        if left || right { cut = b.x0 + (left && right ? (s + i) / 2 : left ? s : i); break }
                    }
                    start = nil
                }
                guard let cut else { continue }
                // Everything from the cut rightwards becomes a new glyph.
                let new = Int32(boxes.count)
                var left: Box = (x0: width, y0: height, x1: 0, y1: 0, touches: false), right = left
                for y in b.y0 ... b.y1 {
                    for x in b.x0 ... b.x1 where label[y * width + x] == Int32(id) {
                        let edge = y == 0 || y == height - 1 || x == 0 || x == width - 1
                        if x >= cut {
                            label[y * width + x] = new
                            right = (min(right.x0, x), min(right.y0, y), max(right.x1, x), max(right.y1, y), right.touches || edge)
                        } else {
                            left = (min(left.x0, x), min(left.y0, y), max(left.x1, x), max(left.y1, y), left.touches || edge)
                        }
                    }
                }
                boxes[id] = left
                boxes.append(right)
                id -= 1  // the shorter glyph left of the cut may have another neck
            }
        }

        /// The glyphs numbered `kept`, alone on white with a margin, cropped to them.
        func render(_ kept: Set<Int32>) throws -> Image? {
            let keptBoxes = kept.map { boxes[Int($0)] }
            guard !keptBoxes.isEmpty else { return nil }
            let x0 = keptBoxes.map(\.x0).min()!, x1 = keptBoxes.map(\.x1).max()!, y0 = keptBoxes.map(\.y0).min()!, y1 = keptBoxes.map(\.y1).max()!
            let margin = max(4, (y1 - y0) / 4)
            var out = try Image(width: x1 - x0 + 1 + 2 * margin, height: y1 - y0 + 1 + 2 * margin, format: .gray8, fill: 255)
            for y in y0 ... y1 { for x in x0 ... x1 where kept.contains(label[y * width + x]) { out[x - x0 + margin, y - y0 + margin, 0] = 0 } }
            return out
        }
    }
}
