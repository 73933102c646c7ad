import Foundation

/// Digits written in the air, recognised by nearest template (in the manner of the "$1"
/// unistroke recogniser of Wobbrock et al., 2007): the strokes joined in writing order are
/// resampled to `points` points evenly spaced along the path, centred and scaled into a unit
/// square (each side on its own, as $1 does, so a narrow 3 is still a 3; a thin shape such as a
/// 1, whose short side is under a quarter of its long one, keeps its aspect), and compared point by point with each
/// template; the nearest template's digit wins. The templates are drawn in the usual way of
/// writing each digit (one or two per digit), in a unit box with y down, as the writer sees it.
public struct DigitRecognizer: Sendable {
    public struct Result: Codable, Sendable, Equatable {
        public var digit: Int
        /// 1 / (1 + mean distance to the template in units of the box).
        public var score: Double
        /// The runner-up's digit and score, to judge a close call.
        public var second: Int
        public var secondScore: Double
        /// The winner won clearly (``DigitRecognizer/isSure(score:secondScore:)``); when false the
        /// page says "not sure — digit or second?" instead of a digit.
        public var sure: Bool
    }

    /// The runner-up must be at least this many times as far from the strokes as the winner for
    /// the answer to be sure: the nearest/second-nearest ratio test (as in Lowe's matching of
    /// image features), on distances rather than scores because 1 / (1 + d) squeezes the same
    /// ratio into smaller score gaps as the distances grow. Measured on writer B's 500 distorted
    /// traces (GestureBoardTests, seed 26, 2026-11-28): the 40 misreadings had ratios 1.01–1.58
    /// (median 1.14), the 460 right readings 1.00–109 (median 1.97). At 1.4, 38 of the 40
    /// misreadings are "not sure" and 354 of the 460 right ones stay sure (99.4% of sure answers
    /// right, against 92% of all). The close call that asked for the rule, 0.76 against 0.70
    /// (distances 0.32 and 0.43), is a ratio of 1.36: not sure.
    public static let sureRatio = 1.4

    /// Whether a winner with `score` over a runner-up with `secondScore` (both 1 / (1 + distance))
    /// is sure (``sureRatio``).
    public static func isSure(score: Double, secondScore: Double) -> Bool {
        let best = 1 / score - 1, next = 1 / secondScore - 1
        guard best.isFinite, next.isFinite else { return false }
        return next >= sureRatio * best
    }

    public static let points = 32
    /// Fewer path points than this (or a path shorter than 5% of the frame) is not a digit yet.
    public static let minimumPathLength = 0.05

    private let templates: [(digit: Int, path: [BoardPoint])]

    public init() {
        templates = Self.shapes.map { ($0.digit, Self.normalise(Self.resample($0.path.map { BoardPoint($0.0, $0.1) }, count: Self.points))) }
    }

    /// The digit `strokes` (board coordinates, as the camera sees them) look like; `mirrored`
    /// when the writer sees a selfie view (the picture turned left for right).
    public func recognise(_ strokes: [[BoardPoint]], mirrored: Bool = true) -> Result? {
        var path = strokes.flatMap { $0 }
        if mirrored { path = path.map { BoardPoint(1 - $0.x, $0.y) } }
        guard path.count >= 4, Self.length(path) >= Self.minimumPathLength else { return nil }
        let candidate = Self.normalise(Self.resample(path, count: Self.points))
        var best: [Int: Double] = [:]
        for t in templates {
            let d = zip(candidate, t.path).reduce(0) { $0 + hypot($1.0.x - $1.1.x, $1.0.y - $1.1.y) } / Double(Self.points)
            best[t.digit] = min(best[t.digit] ?? .infinity, d)
        }
        let ranked = best.sorted { $0.value < $1.value }
        let score = 1 / (1 + ranked[0].value), secondScore = 1 / (1 + ranked[1].value)
        return Result(digit: ranked[0].key, score: score, second: ranked[1].key, secondScore: secondScore,
                      sure: Self.isSure(score: score, secondScore: secondScore))
    }

    static func length(_ p: [BoardPoint]) -> Double {
        zip(p, p.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
    }

    /// `count` points evenly spaced along the path.
    static func resample(_ p: [BoardPoint], count: Int) -> [BoardPoint] {
        let total = length(p)
        guard total > 0, p.count > 1 else { return Array(repeating: p.first ?? BoardPoint(0, 0), count: count) }
        let interval = total / Double(count - 1)
        var out = [p[0]], carried = 0.0, i = 1, previous = p[0]
        while i < p.count, out.count < count {
            let d = hypot(p[i].x - previous.x, p[i].y - previous.y)
            if carried + d >= interval, d > 0 {
                let f = (interval - carried) / d
                let q = BoardPoint(previous.x + f * (p[i].x - previous.x), previous.y + f * (p[i].y - previous.y))
                out.append(q)
                previous = q
                carried = 0
            } else {
                carried += d
                previous = p[i]
                i += 1
            }
        }
        while out.count < count { out.append(p[p.count - 1]) }
        return out
    }

    /// A shape whose short side is under this fraction of its long one is thin (one-dimensional).
    static let thin = 0.25

    /// Centred on the centroid and scaled into a unit square, each side on its own unless thin.
    static func normalise(_ p: [BoardPoint]) -> [BoardPoint] {
        let xs = p.map(\.x), ys = p.map(\.y)
        let cx = xs.reduce(0, +) / Double(p.count), cy = ys.reduce(0, +) / Double(p.count)
        var w = max(xs.max()! - xs.min()!, 1e-9), h = max(ys.max()! - ys.min()!, 1e-9)
        if min(w, h) < thin * max(w, h) { w = max(w, h); h = w }
        return p.map { BoardPoint(($0.x - cx) / w, ($0.y - cy) / h) }
    }

    /// The templates: each digit as it is usually written, pen lifts joined in writing order.
    static let shapes: [(digit: Int, path: [(Double, Double)])] = {
        func ellipse(from a: Double, to b: Double, cx: Double = 0.5, cy: Double = 0.5, rx: Double = 0.4, ry: Double = 0.5, n: Int = 24) -> [(Double, Double)] {
            (0...n).map { i in let t = a + (b - a) * Double(i) / Double(n); return (cx + rx * sin(t), cy - ry * cos(t)) }
        }
        return [
            (0, ellipse(from: 0, to: -2 * .pi)),
            (1, [(0.5, 0), (0.5, 1)]),
            (1, [(0.3, 0.2), (0.5, 0), (0.5, 1)]),
            (2, ellipse(from: -1.2, to: 1.6, cy: 0.3, rx: 0.4, ry: 0.3, n: 12) + [(0.1, 1), (0.9, 1)]),
            (3, ellipse(from: -1.3, to: 3.0, cy: 0.25, rx: 0.4, ry: 0.25, n: 12) + ellipse(from: 0.1, to: 4.3, cy: 0.75, rx: 0.4, ry: 0.25, n: 12)),
            (4, [(0.6, 0), (0.1, 0.65), (0.9, 0.65), (0.65, 0.3), (0.65, 1)]),
            (4, [(0.15, 0), (0.1, 0.6), (0.9, 0.6), (0.75, 0), (0.75, 1)]),
            (5, [(0.85, 0), (0.2, 0), (0.15, 0.45)] + ellipse(from: -0.9, to: 3.9, cy: 0.68, rx: 0.4, ry: 0.32, n: 14)),
            (6, [(0.8, 0), (0.4, 0.25), (0.15, 0.6)] + ellipse(from: 4.7, to: -1.4, cy: 0.72, rx: 0.37, ry: 0.28, n: 18)),
            (7, [(0.1, 0), (0.9, 0), (0.35, 1)]),
            (8, ellipse(from: 0.9, to: -3.3, cy: 0.25, rx: 0.33, ry: 0.25, n: 14) + ellipse(from: 0, to: 2 * .pi, cy: 0.75, rx: 0.4, ry: 0.25, n: 18)
                + ellipse(from: -3.1416, to: -5.4, cy: 0.25, rx: 0.33, ry: 0.25, n: 8)),
            (9, ellipse(from: 1.6, to: -4.6, cx: 0.5, cy: 0.28, rx: 0.38, ry: 0.28, n: 18) + [(0.88, 0.28), (0.85, 1)]),
            // A 9 whose loop closes at the top right, the stem drawn down from there (added after
            // the first measurement read writer B's 9s, written so, as 4s).
            (9, ellipse(from: 0.6, to: 0.6 - 2 * .pi, cx: 0.5, cy: 0.28, rx: 0.38, ry: 0.28, n: 18) + [(0.85, 1)]),
        ]
    }()
}
