import SentioVision

/// The four face levels: eyes closed, a closed-mouth smile, the mouth open (each held for five
/// seconds), and the nose as a cursor through four targets in order.
///
/// Every one starts by measuring the player's neutral face (ten frames with one face, eyes
/// open, mouth closed), because fixed thresholds fail for many people: glasses change the EAR
/// of closed eyes several-fold. The eye threshold then becomes 75 % of the neutral EAR and a
/// smile must widen the mouth past the neutral width (``FaceGestureDetector``); the nose
/// cursor is centred on the neutral nose. With no face or more than one, the level waits and
/// its timer starts over (the original showed the timer only while exactly one face was in view).
public struct FaceJudge: Sendable {
    public enum Goal: Sendable { case eyesClosed, smile, mouthOpen, noseTargets }

    public let goal: Goal
    /// How long the gesture must be held.
    public var needSeconds = 5.0
    public static let calibrationFrames = 10
    /// The nose cursor moves this many times as far as the nose does in the image.
    public static let cursorGain = 2.5
    /// The targets of the nose level, in the mirrored view's 0…1 coordinates, in order.
    public static let targets: [LevelDetail.Spot] = [.init(x: 0.25, y: 0.3), .init(x: 0.75, y: 0.3), .init(x: 0.75, y: 0.7), .init(x: 0.25, y: 0.7)]
    public static let targetRadius = 0.09

    private var detector = FaceGestureDetector()
    private var neutral: [FaceSignals] = []
    private var neutralNose: Point2?
    private var hold: HoldTimer
    private var hits = 0

    public init(goal: Goal) {
        self.goal = goal
        // Eyes: the detector already tolerates two frames of flicker inside its run.
        hold = HoldTimer(need: needSeconds, grace: goal == .eyesClosed ? 0 : 0.25)
    }

    /// Measures the neutral face again and starts the level over.
    public mutating func recalibrate() {
        self = FaceJudge(goal: goal)
    }

    public var isCalibrated: Bool { neutral.count >= Self.calibrationFrames }

    /// Judges one frame from the signals of every face in it; `lightness` is the frame's mean
    /// L* (to tell a dark room from a missing face).
    public mutating func judge(faces: [FaceSignals], lightness: Double? = nil, at time: Double) -> LevelReport {
        var detail = LevelDetail()
        detail.faces = faces.count
        detail.needSeconds = goal == .noseTargets ? nil : needSeconds
        if goal == .noseTargets {
            detail.targets = Self.targets.enumerated().map { .init(x: $1.x, y: $1.y, r: Self.targetRadius, hit: $0 < hits) }
            detail.next = hits
        }
        guard faces.count == 1, let face = faces.first else {
            detector.update(faces)
            hold.reset()
            detail.heldSeconds = 0
            detail.holding = false
            let message: String
            if faces.count > 1 {
                message = "I see \(faces.count) faces — just one player in view, please."
            } else if let lightness, lightness < 12 {
                message = "It is too dark to see your face: turn towards some light."
            } else {
                message = "I can't see your face: look into the camera."
            }
            return LevelReport(phase: isCalibrated ? .playing : .calibrating, progress: progressBase, message: message, detail: detail)
        }
        detail.ear = (face.leftEAR + face.rightEAR) / 2
        detail.earMax = max(face.leftEAR, face.rightEAR)
        detail.mar = face.mar
        detail.smile = face.smile

        if !isCalibrated {
            // Only a relaxed face calibrates: eyes visibly open and the mouth closed.
            if max(face.leftEAR, face.rightEAR) >= 0.18 && face.mar < 0.3 {
                neutral.append(face)
            }
            if neutral.count == Self.calibrationFrames {
                detector.calibrate(neutral)
                let n = Double(neutral.count)
                neutralNose = Point2(x: neutral.reduce(0) { $0 + $1.noseTip.x } / n, y: neutral.reduce(0) { $0 + $1.noseTip.y } / n)
            }
            detail.holding = false
            return LevelReport(phase: .calibrating, progress: 0,
                               message: "Look at the camera with a relaxed face (\(neutral.count)/\(Self.calibrationFrames))", detail: detail)
        }

        detector.update(faces)
        if let calibration = detector.calibration {
            detail.earThreshold = calibration.neutralEAR * 0.75
            detail.smileThreshold = min(1, calibration.neutralSmile + detector.configuration.smileThreshold)
        }
        switch goal {
        case .eyesClosed, .smile, .mouthOpen:
            let holding = goal == .eyesClosed ? detector.eyesClosed : goal == .smile ? detector.smiling : detector.mouthOpen
            let held = hold.update(holding, at: time)
            detail.holding = holding
            detail.heldSeconds = held
            if held >= needSeconds {
                return .solved(detail)
            }
            let message = holding ? "Hold it… \(Int((needSeconds - held).rounded(.up))) s" : "Waiting for the answer…"
            return LevelReport(progress: held / needSeconds, message: message, detail: detail)
        case .noseTargets:
            let nose = neutralNose ?? Point2(x: 0.5, y: 0.5)
            let cursor = LevelDetail.Spot(x: min(1, max(0, 0.5 - Self.cursorGain * (face.noseTip.x - nose.x))),
                                          y: min(1, max(0, 0.5 + Self.cursorGain * (face.noseTip.y - nose.y))))
            detail.cursor = cursor
            guard hits < Self.targets.count else { return .solved(detail) }
            let target = Self.targets[hits]
            let reached = (cursor.x - target.x) * (cursor.x - target.x) + (cursor.y - target.y) * (cursor.y - target.y) <= Self.targetRadius * Self.targetRadius
            detail.holding = reached
            if reached { hits += 1 }
            detail.targets = Self.targets.enumerated().map { .init(x: $1.x, y: $1.y, r: Self.targetRadius, hit: $0 < hits) }
            detail.next = hits
            if hits == Self.targets.count {
                return .solved(detail)
            }
            return LevelReport(progress: Double(hits) / Double(Self.targets.count),
                               message: hits == 0 ? "Steer the cursor to star 1." : "Now star \(hits + 1).", detail: detail)
        }
    }

    private var progressBase: Double { goal == .noseTargets ? Double(hits) / Double(Self.targets.count) : 0 }
}
