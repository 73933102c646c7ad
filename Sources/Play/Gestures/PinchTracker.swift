/// The lessons' pinch ("show a heart") with hysteresis: thumb and index tips closer than
/// `start` × the hand's size for `frames` frames starts it; it lasts until they part by more
/// than `release` × the hand's size (a larger gap, so it does not flicker at the edge), or the
/// hand is lost. The hand's size is the wrist to the middle finger's knuckle, so the rule does
/// not change as the hand moves away from the camera.
public struct PinchTracker: Sendable {
    public enum Phase: String, Codable, Sendable { case none, start, held, release }

    public var start: Double
    public var release: Double
    public var frames: Int
    private var closedRun = 0
    public private(set) var isPinching = false

    public init(start: Double = 0.25, release: Double = 0.35, frames: Int = 7) {
        precondition(release >= start, "the release threshold is above the start one")
        (self.start, self.release, self.frames) = (start, release, frames)
    }

    /// One frame: the thumb–index gap as a fraction of the hand's size, nil without a hand.
    public mutating func update(gap: Double?) -> Phase {
        guard let gap, gap.isFinite else {
            closedRun = 0
            if isPinching { isPinching = false; return .release }
            return .none
        }
        if isPinching {
            if gap > release { isPinching = false; closedRun = 0; return .release }
            return .held
        }
        closedRun = gap < start ? closedRun + 1 : 0
        if closedRun >= frames { isPinching = true; return .start }
        return .none
    }
}
