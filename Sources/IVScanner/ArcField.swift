import Foundation
import SentioImage

/// The brightness of a band of the screen, sampled to find the level arc in it and its dot.
/// Read once from the pixels: the search samples about a million points.
struct ArcField {
    let width: Int, top: Int, rows: Int
    /// Screen pixels per layout unit (a 1080-unit-wide screen).
    let u: Double
    /// Mean of the three channels.
    let lum: [Float]
    /// The same, but for the dot: white, or (Calcy IV's marker laid over it) a red ball, shaded
    /// from (255, 80, 80) to (90, 50, 50) at its rim. A pixel of that pure red (not orange:
    /// green and blue alike) counts as white here.
    let dotLum: [Float]

    /// The band of `image` over `rows`; nil when it is empty.
    init?(_ image: Image, rows range: Range<Int>) {
        let w = image.width
        let range = range.clamped(to: 0 ..< image.height)
        guard !range.isEmpty, let band = try? image.cropped(to: PixelRect(x: 0, y: range.lowerBound, width: w, height: range.count)) else { return nil }
        let rgb = band.format == .rgb8 ? band : band.converted(to: .rgb8)
        let stride = rgb.rowStride, rows = rgb.height
        (lum, dotLum) = rgb.withUnsafeBytes { p in
            @inline(__always) func red(_ i: Int) -> Bool {
                let (r, g, b) = (Float(p[i]), Float(p[i + 1]), Float(p[i + 2]))
                return r >= 80 && r - max(g, b) >= 30 && abs(g - b) <= 12
            }
            var out = [Float](repeating: 0, count: w * rows), anyRed = false
            for y in 0 ..< rows {
                for x in 0 ..< w {
                    let i = y * stride + x * 3
                    out[y * w + x] = (Float(p[i]) + Float(p[i + 1]) + Float(p[i + 2])) / 3
                    anyRed = anyRed || red(i)
                }
            }
            // Most screens have no marker: the dot's brightness is then the luminance itself,
            // shared, not a second array.
            guard anyRed else { return (out, out) }
            var dot = out
            for y in 0 ..< rows { for x in 0 ..< w where red(y * stride + x * 3) { dot[y * w + x] = 255 } }
            return (out, dot)
        }
        (width, top, self.rows, u) = (w, range.lowerBound, rows, Double(w) / 1080)
    }

    @inline(__always) func sample(_ values: [Float], _ x: Double, _ y: Double) -> Float {
        let xi = Int(x), yi = Int(y) - top
        guard xi >= 0, yi >= 0, xi < width, yi < rows else { return 0 }
        return values[yi * width + xi]
    }
    @inline(__always) func at(_ x: Double, _ y: Double) -> Float { sample(lum, x, y) }
    @inline(__always) func dotAt(_ x: Double, _ y: Double) -> Float { sample(dotLum, x, y) }
    /// Bilinear, for the sub-pixel refinement.
    func bilinear(_ values: [Float], _ x: Double, _ y: Double) -> Float {
        let x0 = floor(x), y0 = floor(y), fx = Float(x - x0), fy = Float(y - y0)
        let a = sample(values, x0, y0), b = sample(values, x0 + 1, y0), c = sample(values, x0, y0 + 1), d = sample(values, x0 + 1, y0 + 1)
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }

    /// The best circle (or the current game's squashed ellipse) centred at `cx`, at one of
    /// `centres` (pixel heights), with a radius in `radii` (units, every `step`). The arc is a
    /// thin bright line: a candidate scores the median, over 100 angles, of the line's
    /// brightness minus the brighter of its two sides (7 units in and out).
    func search(cx: Double, centres: [Double], step: Double, radii: ClosedRange<Double> = 390 ... 462)
        -> (score: Float, r: Double, cy: Double, squash: Double)? {
        let trig = (0 ..< 100).map { k -> (Double, Double) in
            let t = 0.05 + (Double.pi - 0.1) * Double(k) / 99
            return (cos(t), sin(t))
        }
        var contrast = [Float](repeating: 0, count: trig.count)
        var best: (score: Float, r: Double, cy: Double, squash: Double)?
        for squash in [1.0, 0.95] {
            for r in Swift.stride(from: radii.lowerBound, through: radii.upperBound, by: step).map({ $0 * u }) {
                for cy in centres {
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

    /// The arc of the grid's fit `grid`, refined, with its dot; nil when there is no dot.
    func arc(_ grid: LevelArc) -> LevelArc? {
        // The grid is 2 units coarse, and a half-level step near the top is under 1°: refine
        // the centre and radius by least squares on the line's middle across it at 240 angles.
        var arc = grid
        arc.refine(u: u) { bilinear(lum, $0, $1) }
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
        // The dot is as bright as the lit arc: over 200 of 255, or, where a dim layer lies over
        // the screen (the team leader's appraisal, darker towards the bottom), within 25 of the
        // brightest of the arc's line within 10° (the stretch up to the dot is lit).
        let line = (0 ... 180).map { across(Double($0) * .pi / 180, 0, at) }
        let steps = 1800
        var profile = [Float](repeating: 0, count: steps + 1)
        for k in 0 ... steps {
            let t = Double.pi * Double(k) / Double(steps)
            let degree = k / 10
            let floor = min(200, line[max(0, degree - 10) ... min(180, degree + 10)].max()! - 25)
            let bright = darkest(t, dotAt)
            let outside = max(across(t, -15, dotAt), across(t, 15, dotAt))
            profile[k] = bright > floor ? bright - outside : -255
        }
        guard let peak = profile.indices.max(by: { profile[$0] < profile[$1] }), profile[peak] > 40 else { return nil }
        // Its middle, finely: the darkest of the five points across the line (bilinear) at
        // 0.006° steps within 7° of the peak; the dot's two edges where that falls through half
        // way from the dot's brightness to the window's median, interpolated between steps.
        // (The middle of the coarse stretch above leans by up to 0.2° towards the dim side of
        // the arc; half a level near the top of the arc is 0.6–0.8°.)
        let t0 = Double.pi * Double(peak) / Double(steps)
        let fine = (-1200 ... 1200).map { t0 + Double($0) * 1e-4 }.filter { (0 ... Double.pi).contains($0) }
        let values = fine.map { darkest($0) { bilinear(dotLum, $0, $1) } }
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
}
