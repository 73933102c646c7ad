import Foundation
import SentioImage

/// The level arc above the Pokémon: a half circle from level 1 (left end) to the highest level
/// the trainer can reach (right end), with a white dot at the Pokémon's level. The dot's angle
/// is linear in the CP multiplier, not in the level.
public struct LevelArc: Sendable, Equatable {
    /// Centre and radius of the arc (pixels).
    public var centerX: Double, centerY: Double, radius: Double
    /// The dot's position along the arc: 0 at level 1, 1 at the highest level.
    public var fraction: Double

    /// The measured angle runs from 0.47° (level 1) to 178.25° (the highest level) rather than
    /// 0° to 180°: fitted on the 11 screenshots of the fixtures with a known level and trainer
    /// level, where the half-level steps are 1.8° to 20° apart (docs/iv-scanner.md).
    public static let angleAtLevelOne = 0.47 * Double.pi / 180, angleAtTop = 178.25 * Double.pi / 180

    /// Finds the arc and its dot, given the HP bar (which fixes the screen's scale and centre).
    /// Nil when no bright circle of the arc's size lies where the layout puts it.
    static func find(in image: Image, bar: PixelRect) -> LevelArc? {
        let w = image.width, h = image.height
        let u = Double(w) / 1080
        let cx = Double(bar.x) + Double(bar.width) / 2
        // Luminance of the band the arc can lie in — from the highest centre less the largest
        // radius and the dot test's 15 units, down to the lowest centre (every point sampled
        // is on or above its circle's centre) — read directly from the pixels (the fit
        // samples ~10⁶ points).
        let top = max(0, bar.y - Int((320 + 462 + 16) * u)), bottom = min(h, bar.y - Int(255 * u) + 2)
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
        // The arc is a thin bright line: score a circle by the median, over its angles, of the
        // line's brightness minus the brighter of its two sides (7 units in and out). Layouts
        // put its radius at 400–440 units and its centre 275–300 units above the HP bar.
        let angles = (0 ..< 200).map { 0.05 + (Double.pi - 0.1) * Double($0) / 199 }
        let trig = angles.map { (cos($0), sin($0)) }
        var best: (score: Float, r: Double, cy: Double)?
        var contrast = [Float](repeating: 0, count: angles.count)
        for r in Swift.stride(from: 390.0, through: 462, by: 2).map({ $0 * u }) {
            for offset in Swift.stride(from: 255.0, through: 320, by: 2) {
                let cy = Double(bar.y) - offset * u
                for (k, (c, s)) in trig.enumerated() {
                    let on = at(cx - r * c, cy - r * s)
                    let inner = at(cx - (r - 7 * u) * c, cy - (r - 7 * u) * s), outer = at(cx - (r + 7 * u) * c, cy - (r + 7 * u) * s)
                    contrast[k] = on - max(inner, outer)
                }
                contrast.sort()
                let score = contrast[contrast.count / 2]
                if best == nil || score > best!.score { best = (score, r, cy) }
            }
        }
        guard let fit = best, fit.score > 5 else { return nil }
        // The dot (about 10 units in radius): where the darkest of five points across the line
        // (±7 units) is bright — only the dot is that wide — while 15 units in and out it is
        // dark again (a white fin or sparkle crossing the arc is wider). Its centre is the
        // middle of that stretch.
        let steps = 1800
        var across = [Float](repeating: 0, count: steps + 1)
        for k in 0 ... steps {
            let t = Double.pi * Double(k) / Double(steps), (c, s) = (cos(t), sin(t))
            var darkest = Float.greatestFiniteMagnitude
            for dr in [-7.0, -3.5, 0, 3.5, 7] {
                darkest = min(darkest, at(cx - (fit.r + dr * u) * c, fit.cy - (fit.r + dr * u) * s))
            }
            let outside = max(at(cx - (fit.r - 15 * u) * c, fit.cy - (fit.r - 15 * u) * s), at(cx - (fit.r + 15 * u) * c, fit.cy - (fit.r + 15 * u) * s))
            across[k] = darkest > 200 ? darkest - outside : -255
        }
        guard let peak = across.indices.max(by: { across[$0] < across[$1] }), across[peak] > 40 else { return nil }
        var lo = peak, hi = peak
        while lo > 0 && across[lo - 1] > across[peak] - 30 { lo -= 1 }
        while hi < steps && across[hi + 1] > across[peak] - 30 { hi += 1 }
        let angle = Double.pi * Double(lo + hi) / 2 / Double(steps)
        let fraction = (angle - angleAtLevelOne) / (angleAtTop - angleAtLevelOne)
        return LevelArc(centerX: cx, centerY: fit.cy, radius: fit.r, fraction: min(1, max(0, fraction)))
    }

    /// The highest level the arc's right end stands for: the trainer level + 1.5 (at most 40)
    /// until the December 2020 update, then the power-up cap, trainer level + 10 (at most 50).
    public static func topLevel(trainerLevel: Int, asOf date: String?) -> Double {
        if let date, date < "2020-12-01" { return min(Double(trainerLevel) + 1.5, 40) }
        return min(Double(trainerLevel) + 10, 50)
    }

    /// The level whose CP multiplier the dot marks (the nearest half level), given the trainer
    /// level; among `candidates` (the levels CP, HP and stardust allow) when given.
    public func level(trainerLevel: Int, asOf date: String?, data: GameData = .shared, among candidates: [Double]? = nil) -> Double? {
        let top = LevelArc.topLevel(trainerLevel: trainerLevel, asOf: date)
        guard let first = data.levels.first(where: { $0.level == 1 }), let last = data.levels.first(where: { $0.level == top }) else { return nil }
        let cpm = first.cpMultiplier + fraction * (last.cpMultiplier - first.cpMultiplier)
        let pool = data.levels.filter { $0.level <= top && (candidates?.contains($0.level) ?? true) }
        return pool.min(by: { abs($0.cpMultiplier - cpm) < abs($1.cpMultiplier - cpm) })?.level
    }
}
