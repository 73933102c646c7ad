import Foundation

/// A glyph's ink, row by row.
package struct InkMask: Sendable {
    package let width: Int, height: Int
    package let ink: [Bool]
    /// How many pixels are ink (counted once: every overlap needs it).
    let inkCount: Int

    package init(width: Int, height: Int, ink: [Bool]) {
        precondition(ink.count == width * height)
        self.width = width; self.height = height; self.ink = ink
        inkCount = ink.reduce(0) { $0 + ($1 ? 1 : 0) }
    }

    subscript(x: Int, y: Int) -> Bool { ink[y * width + x] }
}

/// Reads a number whose digits have lost their lower part (another app's toast over the
/// costs): Tesseract needs whole glyphs, but the tops of the digits in the game's typeface
/// (Lato Semibold, `Data/digits.tsv`, written by `scripts/make-digit-templates.py`) tell the
/// numbers the screen can show apart. On the 47 fixture screenshots' stardust costs cut to
/// their top 60% (the toasts seen left 64–69%), 36 read right, 11 not at all, none wrong
/// (`DigitTopsTests`).
package enum DigitTops {
    /// The digits 0–9, each cropped to its ink (64 pixels tall).
    static let templates: [InkMask] = {
        guard let data = Bundle.module.url(forResource: "Data", withExtension: nil),
              let text = try? String(contentsOf: data.appendingPathComponent("digits.tsv"), encoding: .utf8) else {
            fatalError("IVScanner's bundled digits.tsv is missing")
        }
        let masks = text.split(separator: "\n").dropFirst().compactMap { line -> InkMask? in
            let f = line.split(separator: "\t")
            guard f.count == 4, let w = Int(f[1]), let h = Int(f[2]) else { return nil }
            let ink = f[3].split(separator: "/").flatMap { $0.map { $0 == "#" } }
            return ink.count == w * h ? InkMask(width: w, height: h, ink: ink) : nil
        }
        guard masks.count == 10 else { fatalError("IVScanner's bundled digits.tsv has \(masks.count) digits, not 10") }
        return masks
    }()

    /// The best of `candidates` (strings of digits as many as `glyphs`) for glyphs whose tops
    /// line up at row 0, left to right, and its score: the mean overlap (intersection over
    /// union) of each glyph with its digit's template top, at the one height all the digits
    /// share (from what is visible to 2.5 times that) and each glyph's best shift sideways.
    /// Nil unless the best scores 0.6 or more and beats the runner-up by 0.02: too little
    /// left of the digits, or another typeface, is no reading.
    package static func read(_ glyphs: [InkMask], among candidates: [String]) -> (text: String, score: Double)? {
        let candidates = candidates.filter { $0.count == glyphs.count && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        let visible = glyphs.map(\.height).max() ?? 0
        guard !glyphs.isEmpty, visible >= 6, !candidates.isEmpty else { return nil }
        let heights = Array(visible ... visible * 5 / 2)
        // overlap[k][d][g]: glyph g against digit d drawn heights[k] tall.
        var overlap = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: glyphs.count), count: 10), count: heights.count)
        for (k, h) in heights.enumerated() {
            for d in 0 ..< 10 {
                let top = Self.top(of: templates[d], drawnHeight: h, rows: visible)
                for (g, glyph) in glyphs.enumerated() { overlap[k][d][g] = Self.bestOverlap(glyph, top) }
            }
        }
        let digits = candidates.map { $0.map { Int($0.asciiValue! - 48) } }
        let scores = digits.map { c in
            overlap.map { byDigit in c.enumerated().reduce(0.0) { $0 + byDigit[$1.element][$1.offset] } / Double(c.count) }.max()!
        }
        let order = scores.indices.sorted { scores[$0] > scores[$1] }
        let best = scores[order[0]], second = order.count > 1 ? scores[order[1]] : 0
        guard best >= 0.6, best - second >= 0.02 else { return nil }
        return (candidates[order[0]], best)
    }

    /// The top `rows` rows of `template` drawn `drawnHeight` tall (its width in proportion),
    /// by bilinear sampling.
    static func top(of template: InkMask, drawnHeight h: Int, rows: Int) -> InkMask {
        let w = max(1, Int((Double(template.width) * Double(h) / Double(template.height)).rounded()))
        let sx = Double(template.width) / Double(w), sy = Double(template.height) / Double(h)
        var ink = [Bool](repeating: false, count: w * rows)
        func at(_ x: Int, _ y: Int) -> Double {
            template[min(max(x, 0), template.width - 1), min(max(y, 0), template.height - 1)] ? 1 : 0
        }
        for y in 0 ..< min(rows, h) {
            let fy = (Double(y) + 0.5) * sy - 0.5, y0 = Int(fy.rounded(.down)), ty = fy - Double(y0)
            for x in 0 ..< w {
                let fx = (Double(x) + 0.5) * sx - 0.5, x0 = Int(fx.rounded(.down)), tx = fx - Double(x0)
                let v = (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty) + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
                ink[y * w + x] = v > 0.5
            }
        }
        return InkMask(width: w, height: rows, ink: ink)
    }

    /// The largest intersection over union of `glyph` and `top` (rows aligned at 0), with
    /// `top` centred on the glyph and shifted up to a quarter of its height either way.
    static func bestOverlap(_ glyph: InkMask, _ top: InkMask) -> Double {
        let a = glyph.inkCount, b = top.inkCount, reach = max(3, top.height / 4)
        guard a + b > 0 else { return 0 }
        var best = 0.0
        for shift in -reach ... reach {
            let dx = (glyph.width - top.width) / 2 + shift  // top's x 0 lies at glyph's x dx
            var both = 0
            for y in 0 ..< min(glyph.height, top.height) {
                for x in max(0, dx) ..< min(glyph.width, dx + top.width) where glyph[x, y] && top[x - dx, y] { both += 1 }
            }
            best = max(best, Double(both) / Double(a + b - both))
        }
        return best
    }
}
