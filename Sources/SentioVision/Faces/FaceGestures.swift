/// The puzzle game's face gestures as small state machines over frames, with the original
/// game's rules as defaults (all configurable). Each reacts only while exactly one face is in
/// view: with none or several, it resets.
public struct FaceGestureDetector: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Eyes count as closed under this EAR…
        public var earThreshold = 0.24
        /// …for at least this many frames…
        public var closedFrames = 15
        /// …tolerating this many consecutive frames above it inside the run (a flicker).
        public var tolerance = 2
        /// Mouth open above this MAR.
        public var openThreshold = 0.5
        /// Closed-mouth smile: MAR under this and the smile score over `smileThreshold`.
        public var closedMouthThreshold = 0.24
        public var smileThreshold = 0.5

        public init() {}
    }

    /// Per-person neutral values measured by ``calibrate(_:)``; thresholds become relative to them.
    public struct Calibration: Sendable, Equatable {
        public var neutralEAR: Double
        public var neutralSmile: Double
    }

    public var configuration: Configuration
    public private(set) var calibration: Calibration?
    private var below = 0, above = 0

    /// The gesture states after the last frame.
    public private(set) var eyesClosed = false
    public private(set) var mouthOpen = false
    public private(set) var smiling = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Learns the person's neutral eye opening and mouth width from a few neutral frames: the
    /// eye threshold becomes 75% of the neutral EAR, and a smile must widen the mouth past the
    /// neutral score by `smileThreshold`.
    public mutating func calibrate(_ neutral: [FaceSignals]) {
        guard !neutral.isEmpty else { return }
        let n = Double(neutral.count)
        calibration = Calibration(neutralEAR: neutral.reduce(0) { $0 + ($1.leftEAR + $1.rightEAR) / 2 } / n,
                                  neutralSmile: neutral.reduce(0) { $0 + $1.smile } / n)
    }

    /// Feeds one frame: the signals of every face in it.
    public mutating func update(_ faces: [FaceSignals]) {
        guard faces.count == 1, let s = faces.first else {
            below = 0; above = 0
            eyesClosed = false; mouthOpen = false; smiling = false
            return
        }
        let earThreshold = calibration.map { $0.neutralEAR * 0.75 } ?? configuration.earThreshold
        let smileThreshold = min(1, (calibration?.neutralSmile ?? 0) + configuration.smileThreshold)
        if max(s.leftEAR, s.rightEAR) < earThreshold {
            below += 1
            above = 0
        } else if below > 0 && above < configuration.tolerance {
            // A frame or two above the threshold does not break a run of closed eyes.
            above += 1
            below += 1
        } else {
            below = 0
            above = 0
        }
        eyesClosed = below >= configuration.closedFrames
        mouthOpen = s.mar > configuration.openThreshold
        smiling = s.mar < configuration.closedMouthThreshold && s.smile > smileThreshold
    }
}
