import Foundation
import SentioImage

/// The level arc above the Pokémon: a half circle from level 1 (left end) to the arc's top level
/// (right end), with a white dot at the Pokémon's level. The dot's angle is linear in the CP
/// multiplier, not in the level. Since 2020 the game draws the arc squashed to an ellipse
/// 0.95 times as tall as it is wide (GoIV's `LEVEL_ARC_SQUISH_FACTOR`); the angle is then the
/// ellipse's parameter.
public struct LevelArc: Sendable, Equatable {
    /// Centre and horizontal radius of the arc (pixels); the vertical radius is `radius · squash`.
    public var centerX: Double, centerY: Double, radius: Double
    /// 1 for a half circle, 0.95 for the squashed arc of the current game.
    public var squash: Double
    /// The dot's position along the arc: 0 at level 1, 1 at the top level.
    public var fraction: Double

    /// The point of the arc at `angle` (0 at the left end, π at the right end), or `offset`
    /// pixels outside it (inside when negative).
    public func point(at angle: Double, offset: Double = 0) -> Point {
        Point(centerX - (radius + offset) * cos(angle), centerY - (radius + offset) * squash * sin(angle))
    }

    /// Finds the arc and its dot, given the HP bar (which fixes the screen's scale and centre)
    /// and the "LUCKY POKÉMON" line above it, if any (it pushes the bar that much further below
    /// the arc). Nil when no bright circle of the arc's size lies where the layout puts it.
    static func find(in image: Image, bar: PixelRect, luckyLine: PixelRect? = nil) -> LevelArc? {
        let u = Double(image.width) / 1080
        let cx = Double(bar.x) + Double(bar.width) / 2
        // Layouts put the arc's radius at 400–440 units and its centre 275–310 units above the
        // HP bar (plus the lucky line's height and gap, about 80 units, on a lucky Pokémon) —
        // 450 on today's tall iPhones, whose card sits lower: those heights are searched only
        // when nothing stands out at the usual ones (it doubles the search). The band read
        // reaches from the highest centre less the largest radius and the dot test's 15 units
        // down to the lowest centre (every point sampled is on or above its circle's centre).
        let lucky = luckyLine.map { Double(bar.y - $0.y) / u } ?? 0
        let top = max(0, bar.y - Int((480 + lucky + 462 + 16) * u)), bottom = min(image.height, bar.y - Int(255 * u) + 2)
        guard bottom > top, let field = ArcField(image, rows: top ..< bottom) else { return nil }
        func centres(_ offsets: StrideThrough<Double>) -> [Double] { offsets.map { Double(bar.y) - $0 * u } }
        var best = field.search(cx: cx, centres: centres(Swift.stride(from: 255.0, through: 320 + lucky, by: 2)), step: 2)
        if (best?.score ?? 0) <= 5 { best = field.search(cx: cx, centres: centres(Swift.stride(from: 322.0 + lucky, through: 480 + lucky, by: 2)), step: 2) }
        guard let grid = best, grid.score > 5 else { return nil }
        return field.arc(LevelArc(centerX: cx, centerY: grid.cy, radius: grid.r, squash: grid.squash, fraction: 0))
    }

    /// Finds the arc and its dot without the HP bar (another app's box over it, or the card
    /// dimmed): the game centres the arc, so only its height and size are searched, over the
    /// whole height where a centre can lie (a tenth to three fifths of the screen), coarsely
    /// first (6 units), then at the usual 2 units around the best. Nil when nothing stands out
    /// as clearly as an arc does where the bar places it.
    static func find(in image: Image) -> LevelArc? {
        // A detail screen is a portrait phone screen: anything narrow or wide is none (and a
        // sliver's tiny unit would make the search's steps tiny and their count huge).
        guard image.width >= 200, image.height > image.width else { return nil }
        let u = Double(image.width) / 1080, h = Double(image.height)
        let cx = Double(image.width) / 2
        let lowest = h * 0.6, highest = h * 0.1
        guard let field = ArcField(image, rows: max(0, Int(highest - 480 * u)) ..< min(image.height, Int(lowest) + 2)) else { return nil }
        guard let coarse = field.search(cx: cx, centres: Array(Swift.stride(from: highest, through: lowest, by: 6 * u)), step: 6),
              coarse.score > 5,
              let grid = field.search(cx: cx, centres: Array(Swift.stride(from: coarse.cy - 6 * u, through: coarse.cy + 6 * u, by: 2 * u)), step: 2,
                                      radii: max(390, coarse.r / u - 6) ... min(462, coarse.r / u + 6)),
              grid.score > 5 else { return nil }
        return field.arc(LevelArc(centerX: cx, centerY: grid.cy, radius: grid.r, squash: grid.squash, fraction: 0))
    }

    /// Least-squares fit of the centre's height and the radius (and, for the squashed arc lit
    /// over more than 90°, the squash) to the middle of the line across it, at the angles where
    /// the line stands out (the arc past the dot is dimmer but still there). Keeps the grid's
    /// fit when fewer than 40 points over 30° are found.
    mutating func refine(u: Double, sample: (Double, Double) -> Float) {
        var points: [(x: Double, y: Double, angle: Double)] = []
        for k in 0 ..< 240 {
            let t = 0.05 + (Double.pi - 0.1) * Double(k) / 239
            let (c, s) = (cos(t), sin(t))
            let radii = Swift.stride(from: -10.0, through: 10, by: 0.5).map { radius + $0 * u }
            let values = radii.map { sample(centerX - $0 * c, centerY - $0 * squash * s) }
            guard let peak = values.indices.max(by: { values[$0] < values[$1] }), let low = values.min(),
                  values[peak] - low >= 25 else { continue }
            let half = (values[peak] + low) / 2
            var sum = 0.0, weight = 0.0
            for (i, v) in values.enumerated() where v > half && abs(radii[i] - radii[peak]) < 4 * u {
                sum += radii[i] * Double(v - half); weight += Double(v - half)
            }
            let rr = sum / weight
            points.append((centerX - rr * c, centerY - rr * squash * s, t))
        }
        guard points.count >= 40, let first = points.first, let last = points.last, last.angle - first.angle > .pi / 6 else { return }
        // In coordinates where the arc is a circle (y divided by the squash), relative to the
        // grid's centre in units of its radius (well conditioned), with the centre kept on the
        // HP bar's centre line (the game centres both; a short lit stretch cannot tell a shift
        // sideways from a change of radius): x² + y² = 2b·y + c, least squares, with the points
        // off by more than 1.5 units (or three times the median) dropped, five times over.
        let scale = radius
        let local = points.map { (($0.x - centerX) / scale, ($0.y - centerY) / (squash * scale)) }
        var keep = [Bool](repeating: true, count: local.count)
        var fit: (b: Double, r: Double)?
        for _ in 0 ..< 5 {
            var (syy, sy, n, sqy, sq) = (0.0, 0.0, 0.0, 0.0, 0.0)
            for (i, p) in local.enumerated() where keep[i] {
                let q = p.0 * p.0 + p.1 * p.1
                syy += 4 * p.1 * p.1; sy += 2 * p.1; n += 1; sqy += 2 * p.1 * q; sq += q
            }
            let det = syy * n - sy * sy
            guard abs(det) > 1e-12 else { return }
            let b = (sqy * n - sy * sq) / det, c = (syy * sq - sy * sqy) / det
            let r = (c + b * b).squareRoot()
            fit = (b, r)
            let residuals = local.map { abs(($0.0 * $0.0 + ($0.1 - b) * ($0.1 - b)).squareRoot() - r) * scale }
            let kept = residuals.enumerated().filter { keep[$0.offset] }.map(\.element).sorted()
            let limit = max(1.5 * u, 3 * kept[kept.count / 2])
            keep = residuals.map { $0 < limit }
            if keep.filter({ $0 }).count < 40 { return }
        }
        guard let fit, abs(fit.r - 1) < 0.05 else { return }
        // The squashed arc of the current game is not squashed by exactly 0.95 on every screen
        // (0.96 on a 1080×2400 Android), and a wrong squash tilts the dot's angle by a level
        // near the top. Over a long lit stretch, fit the ellipse itself on the points kept:
        // a·x² + c·y² + e·y = 1 (centre on the bar's centre line), least squares.
        let inliers = points.indices.filter { keep[$0] }
        if squash < 1, let lo = inliers.first, let hi = inliers.last, points[hi].angle - points[lo].angle > .pi / 2 {
            var m = [[Double]](repeating: [0, 0, 0], count: 3), v = [0.0, 0.0, 0.0]
            for i in inliers {
                let x = (points[i].x - centerX) / scale, y = (points[i].y - centerY) / scale
                let row = [x * x, y * y, y]
                for j in 0 ..< 3 {
                    v[j] += row[j]
                    for k in 0 ..< 3 { m[j][k] += row[j] * row[k] }
                }
            }
            if let (a, c, e) = LevelArc.solve3(m, v), a > 0, c > 0 {
                let y0 = -e / (2 * c), k = 1 + c * y0 * y0
                let rx = (k / a).squareRoot(), ry = (k / c).squareRoot()
                if abs(rx - 1) < 0.05, (0.92 ... 0.99).contains(ry / rx) {
                    centerY += y0 * scale
                    radius = rx * scale
                    squash = ry / rx
                    return
                }
            }
        }
        centerY += fit.b * squash * scale
        radius = fit.r * scale
    }

    /// The solution of the 3×3 system m·x = v (Cramer's rule), nil when m is singular.
    static func solve3(_ m: [[Double]], _ v: [Double]) -> (Double, Double, Double)? {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        guard abs(d) > 1e-12 else { return nil }
        func replaced(_ column: Int) -> [[Double]] { m.enumerated().map { i, row in row.enumerated().map { $0.offset == column ? v[i] : $0.element } } }
        return (det(replaced(0)) / d, det(replaced(1)) / d, det(replaced(2)) / d)
    }

    /// Where the dot of a Pokémon at `level` sits (0 at level 1, 1 at the arc's top level,
    /// `LevelRules.highestLevel`); nil when the tables lack either level. An error for a
    /// trainer level out of range, or when the bundled tables are damaged.
    public static func fraction(level: Double, trainerLevel: Int, asOf date: GameDate?, data: GameData? = nil) throws -> Double? {
        let data = try data ?? .shared
        guard let ends = try ends(trainerLevel: trainerLevel, asOf: date, data: data), let this = data.cpMultiplier(level: level) else { return nil }
        return (this - ends.first) / (ends.last - ends.first)
    }

    /// The CP multipliers at the arc's two ends, and its top level (nil when the tables lack
    /// either, or both are the same: an arc from level 1 to level 1).
    static func ends(trainerLevel: Int, asOf date: GameDate?, data: GameData) throws -> (first: Double, last: Double, top: Double)? {
        let top = try LevelRules.highestLevel(trainerLevel: trainerLevel, on: date)
        guard let first = data.cpMultiplier(level: 1), let last = data.cpMultiplier(level: top), last > first else { return nil }
        return (first, last, top)
    }

    /// The level whose CP multiplier the dot marks (the nearest half level), given the trainer
    /// level; among `candidates` (the levels CP, HP and stardust allow) when given. An error
    /// for a trainer level out of range, or when the bundled tables are damaged.
    public func level(trainerLevel: Int, asOf date: GameDate?, data: GameData? = nil, among candidates: [Double]? = nil) throws -> Double? {
        let data = try data ?? .shared
        guard let ends = try LevelArc.ends(trainerLevel: trainerLevel, asOf: date, data: data) else { return nil }
        let cpm = ends.first + fraction * (ends.last - ends.first)
        let pool = data.levels.filter { $0.level <= ends.top && (candidates?.contains($0.level) ?? true) }
        return pool.min(by: { abs($0.cpMultiplier - cpm) < abs($1.cpMultiplier - cpm) })?.level
    }
}
