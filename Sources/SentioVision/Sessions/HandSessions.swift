import SentioImage
import SentioNeural

/// One camera stream's hands, tracked from frame to frame (palm detection only when needed):
/// what the `hands` stream runs.
public final class HandSession: StreamSession {
    public let tracker: HandTracker
    private var frames = 0

    /// Up to `maxHands` hands over the models of `store` (shared), run on `pool`.
    public init(model: HandLandmarker.Model = .full, maxHands: Int = 2, detectionInterval: Int = 5, store: ModelStore,
                pool: ThreadPool = .serial) throws {
        tracker = HandTracker(landmarker: try HandLandmarker(model: model, maxHands: maxHands, store: store, pool: pool),
                              detectionInterval: detectionInterval)
    }

    /// Bytes of this session's own working memory (the models' weights are shared).
    public var workingBytes: Int { tracker.landmarker.workingBytes }

    public func process(_ frame: Image, time: Double) throws -> HandsObservation {
        let hands = try tracker.track(frame)
        defer { frames += 1 }
        return HandsObservation(frame: frames, time: time, width: frame.width, height: frame.height, hands: hands.map(ObservedHand.init))
    }

    public func reset() {
        tracker.reset()
        frames = 0
    }
}

/// One hand's gestures through a stream: the pinch ("show a heart") and writing in the air
/// with two fingers, and the hand's shape. What the gestures app and `sentio gestures` run.
public final class HandGestureSession: StreamSession {
    public let tracker: HandTracker
    private var pinch: PinchDetector
    private var writer: AirWriter
    private var frames = 0

    /// `pinch` and `mirrored` (a selfie view) as ``PinchDetector`` and ``AirWriter`` take them.
    public init(pinch: PinchDetector.Threshold = .handSize(0.25), mirrored: Bool = true, store: ModelStore, pool: ThreadPool = .serial) throws {
        tracker = HandTracker(landmarker: try HandLandmarker(maxHands: 1, store: store, pool: pool))
        self.pinch = PinchDetector(threshold: pinch)
        writer = AirWriter(mirrored: mirrored)
    }

    public func process(_ frame: Image, time: Double) throws -> HandGesturesObservation {
        let hand = try tracker.track(frame).first
        pinch.update(hand, imageWidth: frame.width, imageHeight: frame.height)
        writer.update(hand, imageWidth: frame.width, imageHeight: frame.height)
        defer { frames += 1 }
        return HandGesturesObservation(frame: frames, time: time, hands: hand == nil ? 0 : 1, pinch: pinch.isPinching, pen: writer.penDown,
                                       gesture: hand.flatMap(HandShape.init)?.rawValue,
                                       trace: writer.strokes.map { $0.map { Point2(x: $0.x, y: $0.y) } })
    }

    /// Wipes the written strokes.
    public func clearTrace() { writer.clear() }

    public func reset() {
        tracker.reset()
        pinch = PinchDetector(threshold: pinch.threshold, frames: pinch.frames)
        writer = AirWriter(togetherFraction: writer.togetherFraction, mirrored: writer.mirrored)
        frames = 0
    }
}

/// One camera stream's body: the pose tracked from frame to frame by its auxiliary landmarks
/// (detection only when it is lost). What the `pose` stream runs.
public final class PoseSession: StreamSession {
    public let landmarker: PoseLandmarker
    private var region: NormalizedRect?
    private var score = 1.0
    private var frames = 0
    public private(set) var detections = 0

    public init(store: ModelStore, pool: ThreadPool = .serial) throws {
        landmarker = try PoseLandmarker(store: store, pool: pool)
    }

    /// Bytes of this session's own working memory (the models' weights are shared).
    public var workingBytes: Int { landmarker.workingBytes }

    public func process(_ frame: Image, time: Double) throws -> PosesObservation {
        // A tracked pose keeps the score of the detection that found it.
        var pose = try region.flatMap { try landmarker.pose(in: frame, region: $0, score: score) }
        if pose == nil {
            detections += 1
            pose = try landmarker.pose(in: frame)
        }
        score = pose?.score ?? 1
        region = pose.flatMap { PoseLandmarker.trackingRegion(from: $0, imageWidth: frame.width, imageHeight: frame.height) }
        defer { frames += 1 }
        return PosesObservation(frame: frames, time: time, width: frame.width, height: frame.height, poses: pose.map { [ObservedPose($0)] } ?? [])
    }

    public func reset() {
        region = nil
        score = 1
        frames = 0
    }
}
