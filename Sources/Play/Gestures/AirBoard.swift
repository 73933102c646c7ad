import Foundation

/// A point on the board, normalised to the camera image (top-left origin, not mirrored).
public struct BoardPoint: Codable, Sendable, Equatable {
    public var x: Double, y: Double
    public init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
    public func encode(to encoder: any Encoder) throws { var c = encoder.unkeyedContainer(); try c.encode(x); try c.encode(y) }
    public init(from decoder: any Decoder) throws { var c = try decoder.unkeyedContainer(); x = try c.decode(Double.self); y = try c.decode(Double.self) }
}

/// Writing in the air: index and middle fingertips together put the pen down (closer than
/// `together` × the hand's size; they must part by more than `apart` × it to lift, the same
/// hysteresis as the pinch), and the stroke follows their midpoint, smoothed (an exponential
/// filter, `smoothing` of the new point per frame) with gaps from fast movement filled (points
/// every `step` along a jump, up to `maxGap`; a longer jump starts a new stroke). It sees only the
/// gap: `GestureBoard` feeds it only while the two fingers are straight, as curled ones touch too.
public struct AirBoard: Sendable {
    public var together = 0.25
    public var apart = 0.35
    public var smoothing = 0.5
    public var step = 0.01
    public var maxGap = 0.25
    public private(set) var strokes: [[BoardPoint]] = []
    public private(set) var penDown = false
    private var smoothed: BoardPoint?

    public init() {}

    /// One frame: the fingertips' gap as a fraction of the hand's size and their midpoint, or nil
    /// without a hand (the pen lifts).
    public mutating func update(gap: Double?, at point: BoardPoint?) {
        guard let gap, let point, gap.isFinite, point.x.isFinite, point.y.isFinite else { lift(); return }
        let down = penDown ? gap <= apart : gap < together
        guard down else { lift(); return }
        let previous = smoothed
        let next = previous.map { BoardPoint($0.x + smoothing * (point.x - $0.x), $0.y + smoothing * (point.y - $0.y)) } ?? point
        if !penDown { strokes.append([]); smoothed = nil }
        if penDown, let p = previous {
            let d = hypot(next.x - p.x, next.y - p.y)
            if d > maxGap {
                strokes.append([])
            } else if d > step {
                let n = Int((d / step).rounded(.up))
                for i in 1..<max(1, n) { strokes[strokes.count - 1].append(BoardPoint(p.x + (next.x - p.x) * Double(i) / Double(n), p.y + (next.y - p.y) * Double(i) / Double(n))) }
            }
        }
        strokes[strokes.count - 1].append(next)
        smoothed = next
        penDown = true
    }

    private mutating func lift() { penDown = false; smoothed = nil }

    /// Wipes the board.
    public mutating func clear() { strokes = []; lift() }

    /// Takes back the last stroke.
    public mutating func undo() { if !strokes.isEmpty { strokes.removeLast() }; lift() }
}
