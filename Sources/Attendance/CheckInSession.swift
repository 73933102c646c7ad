/// One student's check-in at a kiosk (or on their own phone), frame by frame: a usable frame
/// → the face check (1:1 against the chosen student, or 1:N among the course) → the liveness
/// challenge → the face checked again on a neutral frame (so the face that moved is the face
/// that matched) → passed. Nothing is recorded before `passed`; the server stores the pending
/// check-in and the audit row then.
///
/// The session asks for a descriptor when it needs one (`Step.wantsDescriptor`): computing it
/// costs a recognition pass, so the server does it only for those frames.
public struct CheckInSession: Sendable {
    public enum Phase: String, Codable, Sendable { case framing, challenge, recheck, passed, failed }

    /// What the kiosk shows after a frame.
    public struct Step: Codable, Sendable, Equatable {
        public var phase: Phase
        /// The instruction or the reason, for the screen.
        public var message: String
        /// A problem with the frame (nothing recorded).
        public var problem: FrameProblem?
        /// The action asked for now, during the challenge.
        public var action: LivenessAction?
        /// The challenge's actions, and how many are done.
        public var actions: [LivenessAction]
        public var done: Int
        /// Whether the next call should come with this frame's descriptor.
        public var wantsDescriptor: Bool
        /// The person matched (verification: the chosen student; identification: who was found).
        public var personID: String?
        public var distance: Double?
    }

    public let challenge: LivenessChallenge
    public let policy: MatchPolicy
    public let quality: FrameQuality
    /// The chosen student (1:1), or nil to identify among `templates` (1:N).
    public let claimed: String?
    private let templates: [FaceTemplate]
    /// Everyone with an enrolled face (``FaceMatcher/verify(_:against:cohort:policy:)``).
    private let cohort: [FaceTemplate]
    private var judge: LivenessJudge
    public private(set) var phase: Phase = .framing
    /// Whether the next frame is judged by the quality rules (framing and the recheck): the
    /// caller measures what those rules need (the eye model's EAR) only then.
    public var wantsFrameQuality: Bool { phase == .framing || phase == .recheck }
    public private(set) var match: FaceMatch?
    private var rejections = 0
    private var firstRejectionAt: Double?
    private var startedAt: Double?
    public private(set) var failure: String?
    /// Face checks that did not match before the session gives up: at least this many, over
    /// at least `matchSeconds` — a student who stepped up turned away or in poor light gets a
    /// few seconds to adjust (three frames were 0.3–0.9 s, too quick to read the prompt).
    public static let maxRejections = 3
    public static let matchSeconds = 3.0
    /// The whole check-in must end within this many seconds.
    public static let timeLimit = 40.0

    /// `templates` holds every enrolled student's of the course: 1:N picks among them; 1:1
    /// checks the claimed student's. `cohort` (default: `templates`) is everyone with an
    /// enrolled face, of any course: 1:1 refuses when one of them is nearer than the claimed
    /// student, 1:N when one outside the course is nearer than the student found. The
    /// likeliest impostor is another student, enrolled somewhere; a look-alike in another
    /// course is caught this way (docs/attendance.md).
    public init(claimed: String?, templates: [FaceTemplate], cohort: [FaceTemplate]? = nil, challenge: LivenessChallenge,
                policy: MatchPolicy, quality: FrameQuality = .standard, rules: LivenessRules = .standard) throws {
        if let claimed {
            guard let template = templates.first(where: { $0.personID == claimed }), !template.descriptors.isEmpty else {
                throw AttendanceError.faceRejected("no face is enrolled for this student; ask the administrator")
            }
        } else if !templates.contains(where: { !$0.descriptors.isEmpty }) {
            throw AttendanceError.faceRejected("nobody in this course has an enrolled face")
        }
        self.claimed = claimed
        self.templates = templates
        // Each person reduced to their mean once: every checked frame is compared with all of them.
        self.cohort = (cohort ?? templates).compactMap { t in t.mean.map { FaceTemplate(personID: t.personID, model: t.model, descriptors: [$0]) } }
        self.challenge = challenge
        self.policy = policy
        self.quality = quality
        self.judge = LivenessJudge(challenge: challenge, rules: rules)
    }

    private var claimedTemplate: FaceTemplate? { claimed.flatMap { id in templates.first { $0.personID == id } } }

    /// The liveness record for the audit trail.
    public var livenessSummary: String { judge.summary }

    /// Takes one frame, with its descriptor when the previous step asked for one (or when the
    /// caller computes it anyway); returns what to show.
    public mutating func observe(_ frame: KioskFrame, descriptor: [Float]? = nil) throws -> Step {
        let start = startedAt ?? frame.time
        startedAt = start
        if phase == .passed || phase == .failed { return step() }
        if frame.time - start > Self.timeLimit { return fail("the check-in took longer than \(Int(Self.timeLimit)) s; start again") }
        switch phase {
        case .framing, .recheck:
            if let problem = quality.problem(frame.faces) { return step(problem: problem) }
            guard let descriptor else { return step(wantsDescriptor: true) }
            let found: FaceMatch
            if claimed == nil {
                found = try FaceMatcher.identify(descriptor, among: templates, others: cohort, policy: policy)
            } else if let template = claimedTemplate {
                found = try FaceMatcher.verify(descriptor, against: template, cohort: cohort, policy: policy)
            } else {
                throw AttendanceError.faceRejected("no face is enrolled for this student; ask the administrator")
            }
            if phase == .recheck {
                // The face after the challenge must be the face that matched before it.
                guard found.accepted, found.personID == match?.personID else {
                    return fail("the face after the challenge is not the face checked before it")
                }
                match = found
                phase = .passed
                return step()
            }
            guard found.accepted else {
                rejections += 1
                let since = firstRejectionAt ?? frame.time
                firstRejectionAt = since
                if rejections >= Self.maxRejections && frame.time - since >= Self.matchSeconds {
                    match = found
                    return fail("the face does not match (\(rejections) tries in \(Int((frame.time - since).rounded())) s)")
                }
                return step(message: claimed == nil ? "Not recognised: look straight at the camera, or pick your name."
                                                    : "The face does not match yet: look straight at the camera.", distance: found.distance)
            }
            match = found
            phase = .challenge
            _ = judge.observe(frame)
            return step()
        case .challenge:
            switch judge.observe(frame) {
            case .passed:
                phase = .recheck
                return step(wantsDescriptor: true)
            case .failed(let why):
                return fail("liveness: \(why)")
            case .watching:
                return step()
            }
        case .passed, .failed:
            return step()
        }
    }

    private mutating func fail(_ why: String) -> Step {
        phase = .failed
        failure = why
        return step()
    }

    private func step(problem: FrameProblem? = nil, message: String? = nil, wantsDescriptor: Bool = false, distance: Double? = nil) -> Step {
        let text: String
        if let message { text = message } else if let problem { text = problem.message } else {
            switch phase {
            case .framing: text = "Look at the camera."
            case .challenge: text = judge.currentAction.map { $0.prompt + "." } ?? "Look straight at the camera."
            case .recheck: text = "Look straight at the camera once more."
            case .passed: text = "Checked in."
            case .failed: text = failure ?? "Check-in failed."
            }
        }
        return Step(phase: phase, message: text, problem: problem, action: phase == .challenge ? judge.currentAction : nil,
                    actions: challenge.actions, done: judge.completions.count,
                    wantsDescriptor: wantsDescriptor || ((phase == .framing || phase == .recheck) && problem == nil),
                    personID: match?.personID, distance: distance ?? match?.distance)
    }
}
