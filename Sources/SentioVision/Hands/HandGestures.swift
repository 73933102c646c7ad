import Foundation

/// The lessons' pinch: thumb tip and index tip closer than a threshold for a number of
/// consecutive frames ("show a heart"). The threshold is either absolute — the lessons' 40
/// points, here pixels of the frame — or relative to the hand's size (wrist to middle-finger
/// knuckle), which does not change as the hand moves away from the camera. A hand whose index
/// is curled back to the palm (a fist, ``IndexReach``) is not pinching however near the tips.
public struct PinchDetector: Sendable {
    public enum Threshold: Sendable, Equatable {
        case pixels(Double)
        case handSize(Double)
    }

    public var threshold: Threshold
    public var frames: Int
    private var run = 0
    /// True once the pinch has been held for `frames` frames, until the fingers part.
    public private(set) var isPinching = false

    public init(threshold: Threshold = .handSize(0.25), frames: Int = 7) {
        self.threshold = threshold
        self.frames = frames
    }

    /// Feeds one frame (nil: no hand).
    public mutating func update(_ hand: Hand?, imageWidth: Int, imageHeight: Int) {
        guard let hand else { run = 0; isPinching = false; return }
        let w = Double(imageWidth), h = Double(imageHeight)
        func d(_ a: HandJoint, _ b: HandJoint) -> Double {
            hypot((hand.point(a).x - hand.point(b).x) * w, (hand.point(a).y - hand.point(b).y) * h)
        }
        let gap = d(.thumbTip, .indexTip)
        // A curled index is a fist, whose thumb can lie as near the index tip as a pinch's.
        let near: Bool = switch threshold {
        case let .pixels(limit): gap < limit
        case let .handSize(fraction): gap < fraction * d(.wrist, .middleMCP)
        }
        let closed = near && !hand.indexCurled
        run = closed ? run + 1 : 0
        isPinching = run >= frames
    }
}

/// Writing in the air: index and middle fingertips held together put the pen down, and the
/// trace follows their midpoint; apart, the pen lifts (a new stroke starts next time). For a
/// selfie view the trace is mirrored so it reads the right way round.
public struct AirWriter: Sendable {
    /// Fingertips closer than this fraction of the hand's size count as together.
    public var togetherFraction: Double
    public var mirrored: Bool
    /// Strokes in normalized coordinates (top-left origin, as displayed).
    public private(set) var strokes: [[Point2]] = []
    public private(set) var penDown = false

    public init(togetherFraction: Double = 0.25, mirrored: Bool = true) {
        self.togetherFraction = togetherFraction
        self.mirrored = mirrored
    }

    /// Feeds one frame (nil: no hand, the pen lifts).
    public mutating func update(_ hand: Hand?, imageWidth: Int, imageHeight: Int) {
        guard let hand else { penDown = false; return }
        let w = Double(imageWidth), h = Double(imageHeight)
        func d(_ a: HandJoint, _ b: HandJoint) -> Double {
            hypot((hand.point(a).x - hand.point(b).x) * w, (hand.point(a).y - hand.point(b).y) * h)
        }
        let together = d(.indexTip, .middleTip) < togetherFraction * d(.wrist, .middleMCP)
        if together {
            var x = (hand.point(.indexTip).x + hand.point(.middleTip).x) / 2
            let y = (hand.point(.indexTip).y + hand.point(.middleTip).y) / 2
            if mirrored { x = 1 - x }
            if !penDown { strokes.append([]) }
            strokes[strokes.count - 1].append(Point2(x: x, y: y))
        }
        penDown = together
    }

    /// Wipes the board.
    public mutating func clear() {
        strokes = []
        penDown = false
    }
}
