import Attendance
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import SentioImage
import SentioNeural
import SentioVision

/// A face stream of the attendance app: a lecture's kiosk (a device, ``KioskDevice``), a
/// student's own phone, or a signed-in user's own face proof. The browser sends camera frames;
/// a check-in (or a proof) is started by a text message and runs frame by frame on the server —
/// frame quality, the face check, the liveness challenge, the check after it — and ends in a
/// pending check-in stored at once, a face proof, or a refusal in the audit trail. A proof is
/// never one frame (issue 37): a photo held to the camera fails the challenge.
///
/// In: binary JPEG/PNG/WebP frames; text `{"type": "start", "student": ID}` (1:1 at a kiosk),
/// `{"type": "start"}` (1:N at a kiosk; the student on their phone; the user's own proof),
/// `{"type": "start", "purpose": "proof"}` (at a kiosk: its operator's face, to leave it),
/// `{"type": "cancel"}`.
/// Out: `{"type": "step", "frame", "step": {phase, message, problem, action, actions, done,
/// personID, distance}, "faces": [box], "serverMs"}` per frame during a check-in, `{"type": "idle",
/// "frame", "faces"}` otherwise; then `{"type": "checked-in", "checkIn"}`, `{"type": "proof",
/// "proof", "distance"}` or `{"type": "refused", "message"}`; errors `{"type": "error", code, message}`.
struct KioskConnection {
    enum Mode: Sendable {
        /// A lecture's kiosk device; its operator may prove their face there to leave it.
        case kiosk(KioskDevice, lecture: Lecture)
        /// A student's own phone, with the room's code.
        case ownDevice(lecture: Lecture, student: String, code: String)
        /// A signed-in user's own face proof, for their session (`session`: its token's hash).
        case proof(user: String, session: String)
    }

    let mode: Mode
    let platform: Platform

    struct Start: Decodable { var type: String; var student: String?; var purpose: String? }
    /// `serverMs`: the frame's decoding, perception (with the descriptor when one was computed)
    /// and rules, on its compute thread.
    /// `waitMs`: how long the frame waited for its compute thread before that.
    struct StepReply: Encodable { var type = "step"; var frame: Int; var step: CheckInSession.Step; var faces: [Box]; var serverMs: Double; var waitMs: Double }
    struct IdleReply: Encodable { var type = "idle"; var frame: Int; var faces: [Box] }
    struct CheckedIn: Encodable { var type = "checked-in"; var checkIn: PendingCheckIn }
    struct ProofReply: Encodable { var type = "proof"; var proof: String; var distance: Double }
    struct Refused: Encodable { var type = "refused"; var message: String; var student: String? }

    /// The lecture of a kiosk or a phone; nil for a proof.
    var lecture: Lecture? {
        switch mode {
        case .kiosk(_, let l), .ownDevice(let l, _, _): l
        case .proof: nil
        }
    }

    /// Whose face a proof is of, and the session (or kiosk) it is recorded for.
    var prover: (user: String, session: String)? {
        switch mode {
        case .kiosk(let device, _): (device.operatorID, device.proofSession)
        case .proof(let user, let session): (user, session)
        case .ownDevice: nil
        }
    }

    /// Who the audit names as the actor of a check-in or refusal.
    var actor: String {
        switch mode {
        case .kiosk(let device, _): device.operatorID
        case .ownDevice(_, let student, _): student
        case .proof(let user, _): user
        }
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let worker = try KioskWorker(store: platform.perception.store, thread: platform.perception.threads.nextThread(), limits: platform.limits,
                                     faceModel: platform.attendance.faceModel)
        let metrics = platform.metrics
        // A kiosk waits between students longer than a stream: ten idle times.
        let idle = Duration.milliseconds(Int64(platform.limits.streamIdleSeconds * 10_000))
        try await watchIdle(after: idle, outbound: outbound) { last in
            try await pumpFrames(inbound: inbound, maxMessageBytes: platform.limits.maxFrameBytes, onDrop: { metrics.frameDropped("kiosk") },
                                 lastMessage: last, text: { try await control($0, worker: worker, outbound: outbound) }) { pending, _ in
                let result = await ComputeDeadline.within(platform.limits.frameBudget) {
                    await worker.handle(pending.bytes, frame: pending.number, time: pending.time, received: pending.received)
                }
                try await outbound.writeTextMessage(result.json)
                if let ended = result.ended { try await finish(ended, worker: worker, outbound: outbound) }
            }
        }
    }

    private func control(_ text: String, worker: KioskWorker, outbound: WebSocketOutboundWriter) async throws {
        guard text.utf8.count <= 1024, let start = try? JSONDecoder().decode(Start.self, from: Data(text.utf8)) else {
            return try await error(outbound, .badMessage, "send {\"type\": \"start\", \"student\": ID}, {\"type\": \"start\"} or {\"type\": \"cancel\"}")
        }
        switch start.type {
        case "cancel":
            await worker.cancel()
        case "start":
            var claimed = start.student
            var purpose = CheckInPurpose.checkIn
            switch mode {
            case .proof(let user, _):
                claimed = user
                purpose = .proof
            case .kiosk(let device, _) where start.purpose == "proof":
                claimed = device.operatorID
                purpose = .proof
            case .ownDevice(_, let student, _):
                claimed = student
            case .kiosk:
                break
            }
            do {
                // The claimed person's enrolment, the course's students as the candidates (1:N),
                // and everyone enrolled as the cohort: nobody else may be nearer (CheckInSession).
                var people: [String] = []
                if let claimed { people = [claimed] }
                if purpose == .checkIn, let lecture {
                    guard try await platform.attendance.lecture(lecture.id)?.state == .open else {
                        return try await refuse(outbound, "this lecture is not open for check-in", claimed)
                    }
                    if let claimed, try await !platform.attendance.isEnrolled(claimed, course: lecture.courseID) {
                        return try await refuse(outbound, "this student is not enrolled in the course", claimed)
                    }
                    people += try await platform.attendance.students(course: lecture.courseID).map(\.id).filter { $0 != claimed }
                }
                // Everyone's enrolment is read once: the course's people are among them.
                let everyone = try await platform.attendance.allTemplates()
                let byPerson = Dictionary(uniqueKeysWithValues: everyone.map { ($0.personID, $0) })
                if purpose == .proof, let claimed, byPerson[claimed]?.descriptors.isEmpty ?? true {
                    return try await refuse(outbound, "you have no enrolled face; ask the administrator to enrol one", claimed)
                }
                var generator = SystemRandomNumberGenerator()
                let session = try CheckInSession(claimed: claimed, templates: people.compactMap { byPerson[$0] }, cohort: everyone,
                                                 challenge: platform.fixedLivenessChallenge ?? LivenessChallenge.random(using: &generator),
                                                 policy: platform.attendance.policy)
                await worker.start(session, purpose: purpose)
            } catch let failure as AttendanceError {
                try await refuse(outbound, failure.description, claimed)
            }
        default:
            try await error(outbound, .badMessage, "unknown message type \(start.type)")
        }
    }

    /// Stores what a finished check-in decided and tells the browser.
    private func finish(_ ended: KioskWorker.Ended, worker: KioskWorker, outbound: WebSocketOutboundWriter) async throws {
        let register = platform.attendance
        if case .kiosk(let device, _) = mode, try await register.kiosk(tokenHash: device.id) == nil {
            // Ended by its professor (or expired) while it was open: it records nothing more.
            return try await refuse(outbound, "this kiosk has ended; ask the professor", ended.claimed)
        }
        switch ended.purpose {
        case .proof:
            guard let prover else { return }
            guard ended.passed, let distance = ended.distance else {
                if case .kiosk(let device, _) = mode {
                    // Someone at the kiosk tried to leave it as its operator: the lecture's audit
                    // says so, without naming whoever stood there as the operator.
                    try await register.audit(AuditEntry(lectureID: device.lectureID, actor: nil, subject: prover.user, action: "kiosk.leave", outcome: "refused",
                                                        frameHash: ended.frameHash, distance: ended.distance, liveness: ended.liveness,
                                                        detail: "face: " + (ended.reason ?? "refused")))
                } else {
                    try await register.audit(AuditEntry(actor: prover.user, subject: prover.user, action: "face.proof", outcome: "refused", frameHash: ended.frameHash,
                                                        distance: ended.distance, liveness: ended.liveness, detail: ended.reason))
                }
                return try await refuse(outbound, ended.reason ?? "refused", prover.user)
            }
            let token = try await register.recordFaceProof(user: prover.user, session: prover.session, distance: distance)
            try await outbound.writeTextMessage(try JSON.string(ProofReply(proof: token, distance: distance)))
        case .checkIn:
            guard let lecture else { return }
            guard ended.passed, let student = ended.personID, let distance = ended.distance else {
                try await register.recordRefusal(lecture: lecture.id, claimed: ended.claimed, actor: actor, frameHash: ended.frameHash,
                                                 distance: ended.distance, liveness: ended.liveness, reason: ended.reason ?? "refused")
                return try await refuse(outbound, ended.reason ?? "refused", ended.claimed)
            }
            let method: DecisionMethod
            var code: String?
            switch mode {
            case .kiosk: method = ended.claimed == nil ? .kioskIdentified : .kioskVerified
            case .ownDevice(_, _, let roomCode): method = .ownDevice; code = roomCode
            case .proof: return
            }
            do {
                let pending = try await register.checkIn(lecture: lecture.id, student: student, method: method, distance: distance,
                                                         liveness: ended.liveness, frameHash: ended.frameHash, actor: actor, code: code)
                try await outbound.writeTextMessage(try JSON.string(CheckedIn(checkIn: pending)))
            } catch let failure as AttendanceError {
                try await refuse(outbound, failure.description, student)
            }
        }
    }

    private func refuse(_ outbound: WebSocketOutboundWriter, _ message: String, _ student: String?) async throws {
        try await outbound.writeTextMessage(try JSON.string(Refused(message: message, student: student)))
    }

    private func error(_ outbound: WebSocketOutboundWriter, _ code: StreamError.Code, _ message: String) async throws {
        try await outbound.writeTextMessage(try JSON.string(StreamError(code, message)))
    }
}

enum CheckInPurpose: Sendable { case checkIn, proof }

/// A kiosk's perception and its current check-in, on one compute thread.
actor KioskWorker {
    nonisolated let thread: ComputeThread
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    private let faces: FaceSession
    private let describer: FaceDescriber
    private let iris: IrisLandmarker
    private let faceModel: FaceModel
    private let limits: Limits
    private var checkIn: CheckInSession?
    private var purpose = CheckInPurpose.checkIn
    private var frameHash: String?

    /// What a finished check-in decided, for the connection to store.
    struct Ended: Sendable {
        var purpose: CheckInPurpose
        var passed: Bool
        var claimed: String?
        var personID: String?
        var distance: Double?
        var liveness: String
        var frameHash: String?
        var reason: String?
    }

    init(store: ModelStore, thread: ComputeThread, limits: Limits, faceModel: FaceModel) throws {
        self.thread = thread
        self.limits = limits
        var configuration = FaceSession.Configuration()
        configuration.maxFaces = 2
        faces = try FaceSession(configuration: configuration, store: store)
        describer = FaceDescriber(store: store)
        iris = try IrisLandmarker(store: store, threads: 1)
        self.faceModel = faceModel
    }

    func start(_ session: CheckInSession, purpose: CheckInPurpose) {
        checkIn = session
        self.purpose = purpose
        frameHash = nil
    }

    func cancel() { checkIn = nil }

    func handle(_ bytes: ByteBuffer, frame: Int, time: Double, received: ContinuousClock.Instant) -> (json: String, ended: Ended?) {
        let started = ContinuousClock.now
        do {
            let image = try ImageIO.decode(Array(buffer: bytes), source: "frame \(frame)", options: DecodeOptions(maxPixels: limits.maxImagePixels))
            let observation = try faces.process(image, time: time)
            let boxes = observation.faces.map(\.box)
            guard var session = checkIn else { return (try JSON.string(KioskConnection.IdleReply(frame: frame, faces: boxes)), nil) }
            let readings = try observation.faces.map { face in
                // The eye model's EAR only while a check-in waits for a usable frame (framing and
                // the recheck); during the challenge the tracked mesh's EAR judges the blink.
                let ears = checkIn?.wantsFrameQuality == true ? try iris.eyeAspectRatios(points: face.landmarks, in: image) : nil
                let s = face.signals
                return FaceCheck.reading(meshEAR: (s.leftEAR + s.rightEAR) / 2, mar: s.mar, yaw: s.yaw, pitch: s.pitch, points: face.landmarks,
                                         widthPixels: face.box.width * Double(image.width), image, eyes: ears)
            }
            let kioskFrame = KioskFrame(time: time, faces: readings)
            var step = try session.observe(kioskFrame)
            if step.wantsDescriptor {
                // The session asks only when one usable face is in view: its tracked mesh aligns it.
                if let face = observation.faces.first,
                   let descriptor = try describer.describe(image, mesh: face.landmarks, model: faceModel, jitter: 0) {
                    frameHash = AttendanceRegister.frameHash(Array(buffer: bytes))
                    step = try session.observe(kioskFrame, descriptor: descriptor)
                }
            }
            checkIn = session
            let json = try JSON.string(KioskConnection.StepReply(frame: frame, step: step, faces: boxes, serverMs: (ContinuousClock.now - started).milliseconds,
                                                                 waitMs: (started - received).milliseconds))
            guard step.phase == .passed || step.phase == .failed else { return (json, nil) }
            checkIn = nil
            return (json, Ended(purpose: purpose, passed: step.phase == .passed, claimed: session.claimed, personID: session.match?.personID,
                                distance: session.match?.distance, liveness: session.livenessSummary, frameHash: frameHash, reason: session.failure))
        } catch let failure as AttendanceError {
            checkIn = nil
            return ((try? JSON.string(StreamError(.refused, failure.description, frame: frame))) ?? "{}", nil)
        } catch {
            return ((try? JSON.string(StreamError(.badFrame, "\(error)", frame: frame))) ?? #"{"type":"error","code":"bad_frame"}"#, nil)
        }
    }
}
