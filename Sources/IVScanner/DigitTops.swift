import Foundation

/// A glyph's ink, row by row.
package struct InkMask: Sendable {
    package let width: Int, height: Int
    package let ink: [Bool]
    /// How many pixels are ink (counted once: every overlap needs it).
    let inkCount: Int

    /// Nil unless `ink` holds `width` × `height` values (both at least 1).
    package init?(width: Int, height: Int, ink: [Bool]) {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard width >= 1, height >= 1, !overflow, count == ink.count else { return nil }
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
package struct DigitTops: Sendable {
    /// The digits 0–9, each cropped to its ink (64 pixels tall).
    let templates: [InkMask]

    /// The templates in `text` (digits.tsv: digit, width, height, rows of `#` and `.` joined by
    /// `/`); `file` names it in errors, which say the line and column that does not parse.
    package init(tsv text: String, file: String) throws {
        let table = try DataTable(text: text, file: file, columns: ["digit", "width", "height", "rows"])
        var masks = [InkMask?](repeating: nil, count: 10)
        for r in table.rows {
            let digit = try r.int(0, in: 0 ... 9), w = try r.int(1, in: 1 ... 1000), h = try r.int(2, in: 1 ... 1000)
            guard masks[digit] == nil else { throw r.error(0, "digit \(digit) a second time") }
            let rows = r.fields[3].split(separator: "/", omittingEmptySubsequences: false)
            guard rows.count == h, rows.allSatisfy({ $0.count == w && $0.allSatisfy { $0 == "#" || $0 == "." } }) else {
                throw r.error(3, "not \(h) rows of \(w) '#' or '.' joined by '/'")
            }
            masks[digit] = InkMask(width: w, height: h, ink: rows.flatMap { $0.map { $0 == "#" } })
        }
        let found = masks.compactMap { $0 }
        guard found.count == 10 else {
            throw IVError.malformedTable(file: file, line: table.rows.count + 1, column: 1,
                                         problem: "\(found.count) digits, not 10 (missing \(masks.indices.filter { masks[$0] == nil }.map(String.init).joined(separator: ", ")))")
        }
        templates = found
    }

    /// The templates shipped in the bundle's Data/digits.tsv, read and checked once; a damaged
    /// file is an `IVError` at every call (as `GameData.shared`), never a trap.
    package static func bundled() throws -> DigitTops { try bundledResult.get() }

    private static let bundledResult: Result<DigitTops, IVError> = Result { () throws(IVError) -> DigitTops in
        guard let url = Bundle.module.url(forResource: "Data", withExtension: nil)?.appendingPathComponent("digits.tsv") else {
            throw IVError.unreadableTable(file: "Data/digits.tsv", reason: "the IVScanner bundle has no Data folder")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw IVError.unreadableTable(file: url.path, reason: "missing or unreadable") }
        guard let text = String(data: data, encoding: .utf8) else { throw IVError.unreadableTable(file: url.path, reason: "not UTF-8 text") }
        do { return try DigitTops(tsv: text, file: url.path) } catch let error as IVError { throw error } catch {
            throw IVError.invalid("\(url.path): \(error)")
        }
    }

    /// The best of `candidates` (strings of digits as many as `glyphs`) for glyphs whose tops
    /// line up at row 0, left to right, and its score: the mean overlap (intersection over
    /// union) of each glyph with its digit's template top, at the one height all the digits
    /// share (from what is visible to 2.5 times that) and each glyph's best shift sideways.
    /// Nil unless the best scores 0.6 or more and beats the runner-up by 0.02: too little
    /// left of the digits, or another typeface, is no reading.
    package func read(_ glyphs: [InkMask], among candidates: [String]) -> (text: String, score: Double)? {
        let candidates = candidates.filter { $0.count == glyphs.count && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        let visible = glyphs.map(\.height).max() ?? 0
        guard !glyphs.isEmpty, visible >= 6, !candidates.isEmpty else { return nil }
        let heights = Array(visible ... visible * 5 / 2)
        // overlap[k][d][g]: glyph g against digit d drawn heights[k] tall.
        var overlap = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: glyphs.count), count: 10), count: heights.count)
        for (k, h) in heights.enumerated() {
            for d in 0 ..< 10 {
                guard let top = Self.top(of: templates[d], drawnHeight: h, rows: visible) else { continue }
                for (g, glyph) in glyphs.enumerated() { overlap[k][d][g] = Self.bestOverlap(glyph, top) }
            }
        }
        let digits = candidates.map { $0.compactMap(\.wholeNumberValue) }
        let scores = digits.map { c in
            overlap.map { byDigit in c.enumerated().reduce(0.0) { $0 + byDigit[$1.element][$1.offset] } / Double(c.count) }.max() ?? 0
        }
        let order = scores.indices.sorted { scores[$0] > scores[$1] }
        let best = scores[order[0]], second = order.count > 1 ? scores[order[1]] : 0
        guard best >= 0.6, best - second >= 0.02 else { return nil }
        return (candidates[order[0]], best)
    }

    /// The top `rows` rows of `template` drawn `drawnHeight` tall (its width in proportion),
    /// by bilinear sampling.
    static func top(of template: InkMask, drawnHeight h: Int, rows: Int) -> InkMask? {
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
            let x0 = max(0, dx), x1 = min(glyph.width, dx + top.width)
            guard x0 < x1 else { continue }
            var both = 0
            for y in 0 ..< min(glyph.height, top.height) {
                for x in x0 ..< x1 where glyph[x, y] && top[x - dx, y] { both += 1 }
            }
            best = max(best, Double(both) / Double(a + b - both))
        }
        return best
    }
}
