import SentioImage

/// The appraisal's three stat bars (attack, defense, HP) as the game draws them over the
/// detail screen since 2019: each bar is 15 units long in three segments of five, filled in
/// orange up to the IV (all of it in red-pink at 15), the rest light gray. Reading them gives
/// the IVs themselves, where the screen's numbers only narrow them down.
public struct AppraisalBars: Sendable, Equatable, Encodable {
    public var attack: Int
    public var defense: Int
    public var stamina: Int

    public init(attack: Int, defense: Int, stamina: Int) {
        self.attack = attack; self.defense = defense; self.stamina = stamina
    }

    /// The calculator's appraisal filter for these bars (the stars follow from their sum).
    public var filter: Appraisal {
        .stars(Appraisal.stars(total: attack + defense + stamina), bars: (attack, defense, stamina))
    }

    /// A bar as found on one row: its start, the end of its fill (start − 1 when empty), its end.
    typealias Run = (y: Int, x0: Int, fillEnd: Int, x1: Int)

    /// The bars on `image`, or nil when the screen shows no appraisal. A bar is a row whose
    /// run of fill-then-track colours (short gaps allowed) is 30–40% of the width
    /// long; the three bars must start and end at the same places (within 1% of the width),
    /// evenly spaced, as the appraisal panel draws them.
    public static func read(_ image: Image) -> AppraisalBars? {
        let w = image.width, h = image.height
        func fill(_ p: RGBA) -> Bool {
            let orange = p.r > 220 && (130 ... 195).contains(p.g) && p.b < 120
            let full = p.r > 200 && (100 ... 150).contains(p.g) && (110 ... 160).contains(p.b)
            return orange || full
        }
        func track(_ p: RGBA) -> Bool {
            Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) < 10 && (210 ... 240).contains(p.r)
        }
        // (row, start, end of fill, end) of each row holding a bar.
        var rows: [Run] = []
        for y in h / 3 ..< h {
            var x = 0
            while x < w / 2 {
                let p = image.pixel(x: x, y: y)
                guard fill(p) || track(p) else { x += 1; continue }
                // Walk right over fill, then track, across gaps up to 1% of the width (the
                // segments' white dividers and their blended edges).
                let start = x
                var fillEnd = start - 1, end = start, inTrack = false, gap = 0
                while x < w {
                    let p = image.pixel(x: x, y: y)
                    if !inTrack && fill(p) { fillEnd = x; end = x; gap = 0 }
                    else if track(p) { inTrack = true; end = x; gap = 0 }
                    else if gap < max(2, w / 100) { gap += 1 }
                    else { break }
                    x += 1
                }
                let length = end - start + 1
                if length * 10 >= w * 3 && length * 10 <= w * 4 { rows.append((y, start, fillEnd, end)); break }
            }
        }
        // Group consecutive rows into bars; each bar read on its middle row.
        var bars: [Run] = [], group: [Run] = []
        for row in rows + [(y: Int.max, x0: 0, fillEnd: 0, x1: 0)] {
            if let last = group.last, row.y != last.y + 1 {
                // A bar is as thick as 1% of the width or more (thinner runs are text and edges).
                if group.count >= max(3, w / 100) { bars.append(group[group.count / 2]) }
                group = []
            }
            group.append(row)
        }
        // Three in a row starting and ending together, evenly spaced.
        let tolerance = max(2, w / 100)
        func aligned(_ t: ArraySlice<Run>) -> Bool {
            let a = t[t.startIndex], b = t[t.startIndex + 1], c = t[t.startIndex + 2]
            return [b, c].allSatisfy { abs($0.x0 - a.x0) <= tolerance && abs($0.x1 - a.x1) <= tolerance }
                && abs((b.y - a.y) - (c.y - b.y)) <= tolerance
        }
        guard bars.count >= 3, let first = (0 ... bars.count - 3).first(where: { aligned(bars[$0 ..< $0 + 3]) }) else { return nil }
        let values = bars[first ..< first + 3].map { bar -> Int in
            let length = Double(bar.x1 - bar.x0 + 1), filled = Double(bar.fillEnd - bar.x0 + 1)
            return min(15, max(0, Int((filled / length * 15).rounded())))
        }
        return AppraisalBars(attack: values[0], defense: values[1], stamina: values[2])
    }
}
