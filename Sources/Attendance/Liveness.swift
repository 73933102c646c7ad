/// A movement the liveness challenge asks for.
public enum LivenessAction: String, Codable, Sendable, CaseIterable {
    case blink
    case openMouth = "open-mouth"
    case turnLeft = "turn-left"
    case turnRight = "turn-right"

    /// What the kiosk says.
    public var prompt: String {
        switch self {
        case .blink: "Blink"
        case .openMouth: "Open your mouth"
        case .turnLeft: "Turn your head to your left"
        case .turnRight: "Turn your head to your right"
        }
    }
}

/// A random sequence of two different actions, done in order, each within a time limit. A
/// photo shown to the camera does none of them; a recording replayed cannot know the order,
/// which is drawn for each check-in (12 sequences).
public struct LivenessChallenge: Codable, Sendable, Equatable {
    public var actions: [LivenessAction]

    public init(actions: [LivenessAction]) throws {
        guard actions.count >= 1, Set(actions).count == actions.count else {
            throw AttendanceError.invalid("challenge", "one or more different actions")
        }
        self.actions = actions
    }

    /// Two different actions drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> LivenessChallenge {
        var all = LivenessAction.allCases
        all.shuffle(using: &generator)
        return try! LivenessChallenge(actions: Array(all.prefix(2)))  // two different cases: valid by construction
    }
}

/// The rules a liveness judge applies. Eye and mouth thresholds are relative to the person's
/// own neutral face, taken from the first frames (glasses change the open-eye EAR several-fold,
/// so a fixed EAR fails for many people).
public struct LivenessRules: Codable, Sendable, Equatable {
    /// Frames of a neutral face (one face, looking straight, eyes open, mouth closed) that set
    /// the baseline before the first prompt.
    public var baselineFrames = 3
    /// Eyes closed when EAR falls under this share of the neutral EAR, open again over `reopen`.
    public var closedShare = 0.75
    public var reopenShare = 0.85
    /// Mouth open when MAR exceeds the neutral MAR by this much, for `mouthFrames` frames.
    public var mouthRise = 0.25
    public var mouthFrames = 2
    /// A turn counts when yaw passes this many degrees (to the side asked) for `turnFrames` frames.
    public var turnDegrees = 20.0
    public var turnFrames = 2
    /// Between actions the face comes back to neutral: yaw within this, mouth closed.
    public var neutralYaw = 10.0
    /// Seconds allowed for each action after its prompt.
    public var stepSeconds = 6.0
    /// Seconds the face may be missing (or doubled) before the challenge fails.
    public var lostSeconds = 1.0

    public static let standard = LivenessRules()

    public init() {}
}

/// The outcome of a challenge.
public enum LivenessVerdict: Sendable, Equatable {
    /// Still watching; `step` is the index of the action being asked for (or -1 while the
    /// neutral baseline is taken).
    case watching(step: Int)
    case passed
    case failed(String)
}

/// Judges a liveness challenge frame by frame. Fails on: an action other than the one asked
/// for (turns and mouth; spontaneous blinks are ignored, people blink all the time), an action
/// not done in time (a photo), the face lost or doubled for longer than `lostSeconds`.
public struct LivenessJudge: Sendable {
    public let challenge: LivenessChallenge
    public let rules: LivenessRules
    public private(set) var verdict: LivenessVerdict = .watching(step: -1)
    /// When each action was seen done, seconds after the first prompt.
    public private(set) var completions: [Double] = []

    private var baseline: [FaceReading] = []
    private var neutralEAR = 0.3, neutralMAR = 0.0
    private var promptedAt: Double?
    private var firstPrompt: Double?
    private var needNeutral = false
    private var lostSince: Double?
    // Per-step evidence.
    private var eyesWereClosed = false
    private var mouthRun = 0, leftRun = 0, rightRun = 0

    public init(challenge: LivenessChallenge, rules: LivenessRules = .standard) {
        self.challenge = challenge
        self.rules = rules
    }

    /// The action being asked for now (nil before the baseline and after the verdict).
    public var currentAction: LivenessAction? {
        if case .watching(let step) = verdict, step >= 0 { return challenge.actions[step] }
        return nil
    }

    /// A short record for the audit trail: "blink 1.2 s, turn-left 3.0 s: passed".
    public var summary: String {
        let steps = zip(challenge.actions, completions).map { "\($0.rawValue) \(String(format: "%.1f", $1)) s" }.joined(separator: ", ")
        let asked = challenge.actions.map(\.rawValue).joined(separator: "→")
        switch verdict {
        case .passed: return "\(asked): passed (\(steps))"
        case .failed(let why): return "\(asked): failed: \(why)"
        case .watching: return "\(asked): unfinished"
        }
    }

    @discardableResult
    public mutating func observe(_ frame: KioskFrame) -> LivenessVerdict {
        guard case .watching(let step) = verdict else { return verdict }
        // Deadlines first: a still photo is judged by the clock.
        if let promptedAt, frame.time - promptedAt > rules.stepSeconds {
            return fail(step < 0 ? "no steady face looking straight at the camera within \(Int(rules.stepSeconds)) s"
                                 : "\(challenge.actions[step].rawValue) not done within \(Int(rules.stepSeconds)) s")
        }
        guard frame.faces.count == 1, let face = frame.faces.first else {
            let since = lostSince ?? frame.time
            lostSince = since
            if frame.time - since >= rules.lostSeconds {
                return fail(frame.faces.isEmpty ? "the face left the camera" : "another face came into view")
            }
            return verdict
        }
        lostSince = nil
        if step < 0 { return takeBaseline(face, time: frame.time) }

        let closed = face.ear < neutralEAR * rules.closedShare
        let reopened = face.ear > neutralEAR * rules.reopenShare
        let mouthOpen = face.mar > neutralMAR + rules.mouthRise
        mouthRun = mouthOpen ? mouthRun + 1 : 0
        leftRun = face.yaw >= rules.turnDegrees ? leftRun + 1 : 0
        rightRun = face.yaw <= -rules.turnDegrees ? rightRun + 1 : 0
        if needNeutral {
            // After an action the face must come back before the next counts.
            if abs(face.yaw) <= rules.neutralYaw && !mouthOpen && reopened {
                needNeutral = false
                eyesWereClosed = false
                mouthRun = 0; leftRun = 0; rightRun = 0
            }
            return verdict
        }
        var done: Set<LivenessAction> = []
        if closed { eyesWereClosed = true }
        if eyesWereClosed && reopened { done.insert(.blink) }
        if mouthRun >= rules.mouthFrames { done.insert(.openMouth) }
        if leftRun >= rules.turnFrames { done.insert(.turnLeft) }
        if rightRun >= rules.turnFrames { done.insert(.turnRight) }
        let asked = challenge.actions[step]
        if done.contains(asked) {
            completions.append(frame.time - (firstPrompt ?? frame.time))
            if step + 1 == challenge.actions.count {
                verdict = .passed
                return verdict
            }
            verdict = .watching(step: step + 1)
            promptedAt = frame.time
            needNeutral = true
            return verdict
        }
        if let wrong = done.subtracting([.blink]).first {
            return fail("\(wrong.rawValue) when asked to \(asked.rawValue)")
        }
        return verdict
    }

    private mutating func takeBaseline(_ face: FaceReading, time: Double) -> LivenessVerdict {
        if abs(face.yaw) <= rules.neutralYaw && face.mar < 0.3 && face.ear >= FrameQuality.standard.openEyes {
            baseline.append(face)
        } else {
            baseline.removeAll()
        }
        if firstPrompt == nil && baseline.isEmpty {
            // Waiting for a neutral face is bounded too.
            promptedAt = promptedAt ?? time
        }
        guard baseline.count >= rules.baselineFrames else { return verdict }
        neutralEAR = baseline.map(\.ear).sorted()[baseline.count / 2]
        neutralMAR = baseline.map(\.mar).sorted()[baseline.count / 2]
        verdict = .watching(step: 0)
        promptedAt = time
        firstPrompt = time
        return verdict
    }

    private mutating func fail(_ why: String) -> LivenessVerdict {
        verdict = .failed(why)
        return verdict
    }
}
