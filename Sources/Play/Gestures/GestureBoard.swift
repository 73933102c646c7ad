import Foundation

/// The gestures page's rules over one hand's landmarks, frame by frame: the pinch with its
/// heart (start, held, release), the air-writing pen, a double pinch that clears the board, undo,
/// and the digit written so far. Landmarks come from the server's hand tracking (SentioVision);
/// this type sees only their 21 points, normalised to the image (MediaPipe's joint order).
public struct GestureBoard: Sendable {
    public var pinch = PinchTracker()
    public var board = AirBoard()
    public var recognizer = DigitRecognizer()
    /// Two pinch starts within this many seconds clear the board.
    public var doublePinch = 0.8
    /// The writer sees a selfie view.
    public var mirrored = true
    private var lastPinchStart: Double?

    public init() {}

    /// One frame's answer (the gestures stream's observation).
    public struct Observation: Codable, Sendable, Equatable {
        public var time: Double
        /// The hand's 21 points [x, y], normalised to the image (not mirrored), or empty.
        public var hand: [BoardPoint]
        /// `none`, `start`, `held` or `release` this frame.
        public var pinch: PinchTracker.Phase
        /// Where the thumb and index tips meet (the heart's place) while pinching.
        public var heartAt: BoardPoint?
        /// The pen is down (index and middle straight, their tips together).
        public var pen: Bool
        public var strokes: [[BoardPoint]]
        /// The digit the strokes look like, when there is something written.
        public var digit: DigitRecognizer.Result?
        /// `cleared` (a double pinch) when it happened this frame.
        public var event: String?

        enum CodingKeys: String, CodingKey { case time, hand, pinch, heartAt = "heart_at", pen, strokes, digit, event }
    }

    /// The pen's fingers must reach out in the picture too: each tip at least this many times as
    /// far from the wrist as the finger's middle joint (PIP). 1 is the tip level with the middle
    /// joint; a curled finger folds its tip back towards the wrist, a straight one carries it
    /// past. It catches what the 3-D reach misses: the curled fingers of a "call" at the ear,
    /// seen end-on, reach 2.2–3.5 in the landmarks' 3-D and would count as straight, while in the
    /// picture their tips lie at 0.67–0.73 of their middle joints' distance from the wrist.
    /// Measured on the labelled photos of hands.tsv the landmarks read as their shape
    /// (PenFingersTests, 2026-11-28): fingers the shape curls (thumbs up and down, call; the
    /// middle of pointing and rock) 0.50–0.76, fingers it holds out (four, open palm, victory; the
    /// index of pointing and rock) 1.27–1.47; 1 sits between with 0.24 to spare below and 0.27
    /// above. A finger pointed at the camera reads short here; the pen is written with the
    /// fingers up, facing it.
    public var penExtension = 1.0

    /// Joints used (MediaPipe's hand order).
    enum Joint { static let wrist = 0, thumbTip = 4, indexPIP = 6, indexTip = 8, middleMCP = 9, middlePIP = 10, middleTip = 12 }

    /// One frame. Two facts come from the 3-D landmarks this type does not see (SentioVision's
    /// `IndexReach` and `FingerReach`): `indexCurled`, the index curled back to the palm as in a
    /// fist — no pinch starts then, as a fist's thumb can lie as near the index tip as a pinch's;
    /// and `penFingersStraight`, index and middle both held straight (their 3-D reach) — the pen
    /// goes down only then and when their tips reach past their middle joints in the picture
    /// (``penExtension``), as the curled fingers of a fist, a thumbs-up or a "call" touch at their
    /// tips too.
    public mutating func update(hand points: [BoardPoint]?, indexCurled: Bool = false, penFingersStraight: Bool,
                                imageWidth: Int, imageHeight: Int, time: Double) -> Observation {
        let hand = points.flatMap { $0.count == 21 && $0.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) ? $0 : nil }
        let w = Double(max(imageWidth, 1)), h = Double(max(imageHeight, 1))
        func distance(_ a: Int, _ b: Int) -> Double {
            guard let p = hand else { return .nan }
            return hypot((p[a].x - p[b].x) * w, (p[a].y - p[b].y) * h)
        }
        let size = distance(Joint.wrist, Joint.middleMCP)
        let usable = hand != nil && size > 1
        // While the pen is down (index and middle still together) no pinch starts: a writing hand
        // curls its thumb near the index, and the heart must not flash on it. A pinch already
        // held is judged as before.
        let penGap = usable ? distance(Joint.indexTip, Joint.middleTip) / size : .nan
        let writing = board.penDown && penGap <= board.apart && !pinch.isPinching
        let fist = indexCurled && !pinch.isPinching
        let phase = pinch.update(gap: usable ? (writing || fist ? 10 : distance(Joint.thumbTip, Joint.indexTip) / size) : nil)
        var event: String?
        if phase == .start {
            if let last = lastPinchStart, time - last <= doublePinch {
                board.clear()
                event = "cleared"
                lastPinchStart = nil
            } else {
                lastPinchStart = time
            }
        }
        var heart: BoardPoint?
        if pinch.isPinching, let p = hand { heart = BoardPoint((p[Joint.thumbTip].x + p[Joint.indexTip].x) / 2, (p[Joint.thumbTip].y + p[Joint.indexTip].y) / 2) }
        // No writing while pinching: the pinch's fingers are the pen's too. Nor on bent fingers:
        // the pen is two straight fingers held together (in 3-D and in the picture), and curled
        // ones lift it.
        let extended = distance(Joint.wrist, Joint.indexTip) >= penExtension * distance(Joint.wrist, Joint.indexPIP)
            && distance(Joint.wrist, Joint.middleTip) >= penExtension * distance(Joint.wrist, Joint.middlePIP)
        if usable, !pinch.isPinching, penFingersStraight, extended, let p = hand {
            board.update(gap: distance(Joint.indexTip, Joint.middleTip) / size,
                         at: BoardPoint((p[Joint.indexTip].x + p[Joint.middleTip].x) / 2, (p[Joint.indexTip].y + p[Joint.middleTip].y) / 2))
        } else {
            board.update(gap: nil, at: nil)
        }
        return Observation(time: time, hand: hand ?? [], pinch: phase, heartAt: heart, pen: board.penDown, strokes: board.strokes,
                           digit: recognizer.recognise(board.strokes, mirrored: mirrored), event: event)
    }

    public mutating func clear() { board.clear() }
    public mutating func undo() { board.undo() }
}
