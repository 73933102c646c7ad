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
    public func point(at angle: Double, offset: Double = 0) -> (x: Double, y: Double) {
        (centerX - (radius + offset) * cos(angle), centerY - (radius + offset) * squash * sin(angle))
    }

    /// Finds the arc and its dot, given the HP bar (which fixes the screen's scale and centre)
    /// and the "LUCKY POKÉMON" line above it, if any (it pushes the bar that much further below
    /// the arc). Nil when no bright circle of the arc's size lies where the layout puts it.
    static func find(in image: Image, bar: PixelRect, luckyLine: PixelRect? = nil) -> LevelArc? {
        let w = image.width, h = image.height
        let u = Double(w) / 1080
        let cx = Double(bar.x) + Double(bar.width) / 2
        // Luminance of the band the arc can lie in — from the highest centre less the largest
        // radius and the dot test's 15 units, down to the lowest centre (every point sampled
        // is on or above its circle's centre) — read directly from the pixels (the fit
        // samples ~10⁶ points).
        let lucky = luckyLine.map { Double(bar.y - $0.y) / u } ?? 0
        let top = max(0, bar.y - Int((480 + lucky + 462 + 16) * u)), bottom = min(h, bar.y - Int(255 * u) + 2)
        guard bottom > top, let band = try? image.cropped(to: PixelRect(x: 0, y: top, width: w, height: bottom - top)) else { return nil }
        let rgb = band.format == .rgb8 ? band : band.converted(to: .rgb8)
        let stride = rgb.rowStride, rows = rgb.height
        let lum: [Float] = rgb.withUnsafeBytes { p in
            var out = [Float](repeating: 0, count: w * rows)
            for y in 0 ..< rows {
                for x in 0 ..< w {
                    let i = y * stride + x * 3
                    out[y * w + x] = (Float(p[i]) + Float(p[i + 1]) + Float(p[i + 2])) / 3
                }
            }
            return out
        }
        @inline(__always) func at(_ x: Double, _ y: Double) -> Float {
            let xi = Int(x), yi = Int(y) - top
            guard xi >= 0, yi >= 0, xi < w, yi < rows else { return 0 }
            return lum[yi * w + xi]
        }
        /// Bilinear, for the sub-pixel refinement.
        func smooth(_ x: Double, _ y: Double) -> Float {
            let x0 = floor(x), y0 = floor(y), fx = Float(x - x0), fy = Float(y - y0)
            let a = at(x0, y0), b = at(x0 + 1, y0), c = at(x0, y0 + 1), d = at(x0 + 1, y0 + 1)
            return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
        }
        // The arc is a thin bright line: score a circle (or the squashed ellipse) by the
        // median, over its angles, of the line's brightness minus the brighter of its two sides
        // (7 units in and out). Layouts put its radius at 400–440 units and its centre 275–310
        // units above the HP bar (plus the lucky line's height and gap, about 80 units, on a
        // lucky Pokémon) — 450 on today's tall iPhones, whose card sits lower: those heights
        // are searched only when nothing stands out at the usual ones (it doubles the search).
        let angles = (0 ..< 100).map { 0.05 + (Double.pi - 0.1) * Double($0) / 99 }
        let trig = angles.map { (cos($0), sin($0)) }
        var contrast = [Float](repeating: 0, count: angles.count)
        func search(offsets: StrideThrough<Double>) -> (score: Float, r: Double, cy: Double, squash: Double)? {
            var best: (score: Float, r: Double, cy: Double, squash: Double)?
            for squash in [1.0, 0.95] {
                for r in Swift.stride(from: 390.0, through: 462, by: 2).map({ $0 * u }) {
                    for offset in offsets {
                        let cy = Double(bar.y) - offset * u
                        for (k, (c, s)) in trig.enumerated() {
                            let on = at(cx - r * c, cy - r * squash * s)
                            let inner = at(cx - (r - 7 * u) * c, cy - (r - 7 * u) * squash * s), outer = at(cx - (r + 7 * u) * c, cy - (r + 7 * u) * squash * s)
                            contrast[k] = on - max(inner, outer)
                        }
                        contrast.sort()
                        let score = contrast[contrast.count / 2]
                        if best == nil || score > best!.score { best = (score, r, cy, squash) }
                    }
                }
            }
            return best
        }
        var best = search(offsets: Swift.stride(from: 255.0, through: 320 + lucky, by: 2))
        if (best?.score ?? 0) <= 5 { best = search(offsets: Swift.stride(from: 322.0 + lucky, through: 480 + lucky, by: 2)) }
        guard let grid = best, grid.score > 5 else { return nil }
        // The grid is 2 units coarse, and a half-level step near the top is under 1°: refine
        // the centre and radius by least squares on the line's middle across it at 240 angles.
        var arc = LevelArc(centerX: cx, centerY: grid.cy, radius: grid.r, squash: grid.squash, fraction: 0)
        arc.refine(u: u, sample: smooth)
        // The dot (about 10 units in radius): where the darkest of five points across the line
        // (±7 units) is bright — only the dot is that wide — while 15 units in and out it is
        // dark again (a white fin or sparkle crossing the arc is wider).
        func across(_ t: Double, _ units: Double, _ sample: (Double, Double) -> Float) -> Float {
            let p = arc.point(at: t, offset: units * u)
            return sample(p.x, p.y)
        }
        func darkest(_ t: Double, _ sample: (Double, Double) -> Float) -> Float {
            [-7.0, -3.5, 0, 3.5, 7].map { across(t, $0, sample) }.min()!
        }
        let steps = 1800
        var profile = [Float](repeating: 0, count: steps + 1)
        for k in 0 ... steps {
            let t = Double.pi * Double(k) / Double(steps)
            let bright = darkest(t, at)
            let outside = max(across(t, -15, at), across(t, 15, at))
            profile[k] = bright > 200 ? bright - outside : -255
        }
        guard let peak = profile.indices.max(by: { profile[$0] < profile[$1] }), profile[peak] > 40 else { return nil }
        // Its middle, finely: the darkest of the five points across the line (bilinear) at
        // 0.006° steps within 7° of the peak; the dot's two edges where that falls through half
        // way from the dot's brightness to the window's median, interpolated between steps.
        // (The middle of the coarse stretch above leans by up to 0.2° towards the dim side of
        // the arc; half a level near the top of the arc is 0.6–0.8°.)
        let t0 = Double.pi * Double(peak) / Double(steps)
        let fine = (-1200 ... 1200).map { t0 + Double($0) * 1e-4 }.filter { (0 ... Double.pi).contains($0) }
        let values = fine.map { darkest($0, smooth) }
        guard let k = fine.indices.min(by: { abs(fine[$0] - t0) < abs(fine[$1] - t0) }) else { return nil }
        let brightest = values[max(0, k - 60) ... min(values.count - 1, k + 60)].max()!
        let half = (brightest + values.sorted()[values.count / 2]) / 2
        var lo = k, hi = k
        while lo > 0 && values[lo - 1] > half { lo -= 1 }
        while hi < values.count - 1 && values[hi + 1] > half { hi += 1 }
        func crossing(_ inside: Int, _ outside: Int) -> Double {
            guard outside >= 0, outside < values.count, values[inside] != values[outside] else { return fine[inside] }
            return fine[inside] + (fine[outside] - fine[inside]) * Double((values[inside] - half) / (values[inside] - values[outside]))
        }
        let angle = (crossing(lo, lo - 1) + crossing(hi, hi + 1)) / 2
        arc.fraction = min(1, max(0, angle / .pi))
        return arc
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

    /// The level the arc's right end stands for: the trainer level + 2 (at most 40) until the
    /// December 2020 update, then trainer level + 10, at most 40 below trainer level 40 and 50
    /// from it (GoIV's rule). The + 2 was measured: on all 16 screenshots with a known level
    /// and trainer level, 2016 to 2018, the dot sits where an exact half circle from level 1 to
    /// trainer level + 2 puts it (docs/iv-scanner.md) — in 2016 too, when a Pokémon could only
    /// be powered up to trainer level + 1.5. The rule after 2020 is not checked on a screenshot.
    public static func topLevel(trainerLevel: Int, asOf date: String?) -> Double {
        let t = Double(trainerLevel)
        if let date, date < "2020-12-01" { return min(t + 2, 40) }
        return min(t + 10, trainerLevel < 40 ? 40 : 50)
    }

    /// Where the dot of a Pokémon at `level` sits (0 at level 1, 1 at the arc's top level).
    public static func fraction(level: Double, trainerLevel: Int, asOf date: String?, data: GameData = .shared) -> Double? {
        guard let ends = ends(trainerLevel: trainerLevel, asOf: date, data: data), let this = data.cpMultiplier(level: level) else { return nil }
        return (this - ends.first) / (ends.last - ends.first)
    }

    /// The CP multipliers at the arc's two ends, and its top level.
    static func ends(trainerLevel: Int, asOf date: String?, data: GameData) -> (first: Double, last: Double, top: Double)? {
        let top = topLevel(trainerLevel: trainerLevel, asOf: date)
        guard let first = data.cpMultiplier(level: 1), let last = data.cpMultiplier(level: top) else { return nil }
        return (first, last, top)
    }

    /// The level whose CP multiplier the dot marks (the nearest half level), given the trainer
    /// level; among `candidates` (the levels CP, HP and stardust allow) when given.
    public func level(trainerLevel: Int, asOf date: String?, data: GameData = .shared, among candidates: [Double]? = nil) -> Double? {
        guard let ends = LevelArc.ends(trainerLevel: trainerLevel, asOf: date, data: data) else { return nil }
        let cpm = ends.first + fraction * (ends.last - ends.first)
        let pool = data.levels.filter { $0.level <= ends.top && (candidates?.contains($0.level) ?? true) }
        return pool.min(by: { abs($0.cpMultiplier - cpm) < abs($1.cpMultiplier - cpm) })?.level
    }
}
