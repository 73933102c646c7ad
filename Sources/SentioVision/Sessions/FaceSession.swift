import SentioImage
import SentioNeural

/// One camera stream's faces: the face tracked from frame to frame (detection only when it
/// is needed), the mesh, the signals and the game's temporal detectors (eyes closed for a
/// run of frames, mouth open, closed-mouth smile). What the `faces` stream, the puzzle game
/// and `sentio faces --video` run for each frame.
public final class FaceSession: StreamSession {
    public struct Configuration: Sendable, Equatable {
        /// Detector: short range (faces within ~2 m) or full range (~5 m).
        public var model: FaceDetector.Model = .shortRange
        /// Minimum detection score (default: the model's own).
        public var minScore: Double?
        /// Refine the irises (478 points).
        public var irises = false
        /// Most faces tracked at once.
        public var maxFaces = 1
        /// Frames between detections while fewer than `maxFaces` are tracked.
        public var detectionInterval = 5
        /// The temporal detectors' rules.
        public var gestures = FaceGestureDetector.Configuration()

        public init() {}
    }

    public let configuration: Configuration
    public let tracker: FaceTracker
    private var gestures: FaceGestureDetector
    private var frames = 0

    /// A session over the models of `store` (loaded once per store, shared by every session
    /// made from it), run on `pool` (default: the calling thread alone).
    public init(configuration: Configuration = Configuration(), store: ModelStore, pool: ThreadPool = .serial) throws {
        self.configuration = configuration
        let landmarker = try FaceLandmarker(model: configuration.model, minScore: configuration.minScore,
                                            refineIrises: configuration.irises, store: store, pool: pool)
        tracker = FaceTracker(landmarker: landmarker, maxFaces: configuration.maxFaces, detectionInterval: configuration.detectionInterval)
        gestures = FaceGestureDetector(configuration: configuration.gestures)
    }

    /// Bytes of this session's own working memory (the models' weights are shared).
    public var workingBytes: Int { tracker.landmarker.workingBytes }

    public func process(_ frame: Image, time: Double) throws -> FacesObservation {
        let meshes = try tracker.track(frame)
        let signals = meshes.map { FaceSignals($0, imageWidth: frame.width, imageHeight: frame.height) }
        gestures.update(signals)
        let faces = zip(meshes, signals).map { mesh, s in
            ObservedFace(tracked: mesh, signals: .init(s, eyesClosed: gestures.eyesClosed, mouthOpen: gestures.mouthOpen, smiling: gestures.smiling))
        }
        defer { frames += 1 }
        return FacesObservation(frame: frames, time: time, width: frame.width, height: frame.height, faces: faces)
    }

    /// Learns the person's neutral face from a few frames' signals (see ``FaceGestureDetector/calibrate(_:)``).
    public func calibrate(_ neutral: [FaceSignals]) {
        gestures.calibrate(neutral)
    }

    public func reset() {
        tracker.reset()
        gestures = FaceGestureDetector(configuration: configuration.gestures)
        frames = 0
    }
}
