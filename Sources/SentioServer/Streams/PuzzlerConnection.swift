import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import Play
import Puzzler
import SentioImage
import SentioNeural

/// One player's level, on the compute thread it was given: decodes the page's inputs, runs the
/// level's perception and judge there (Puzzler's ``LevelPlayer``), so the event loop only
/// moves bytes.
actor PuzzlerWorker {
    nonisolated let thread: ComputeThread
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    private let player: LevelPlayer
    private let limits: Limits
    private var normalizer: MotionNormalizer
    private var solved = false
    /// Whether the level was solved on this connection, a reset notwithstanding (a connection
    /// that never solved it is recorded as left).
    private(set) var solvedOnce = false

    /// A judged input: the report, whether it is the level's first solve (to be stored), and
    /// the server's time for it.
    struct Judged: Sendable {
        var report: LevelReport
        var firstSolve: Bool
        var serverMs: Double
        var waitMs: Double
        /// A text message's `sentAt`, echoed to the page.
        var sentAt: Double? = nil
    }

    init(level: LevelID, store: ModelStore, thread: ComputeThread, limits: Limits, sampleRate: Int, profile: BrowserProfile) throws {
        self.thread = thread
        self.limits = limits
        normalizer = MotionNormalizer(profile: profile)
        player = try LevelPlayer(level: level, store: store, sampleRate: sampleRate)
    }

    private func judged(_ report: LevelReport, started: ContinuousClock.Instant, received: ContinuousClock.Instant) -> Judged {
        let first = report.phase == .solved && !solved
        if first { solved = true; solvedOnce = true }
        return Judged(report: report, firstSolve: first, serverMs: (ContinuousClock.now - started).milliseconds, waitMs: (started - received).milliseconds)
    }

    /// A camera frame.
    func frame(_ bytes: ByteBuffer, number: Int, time: Double, received: ContinuousClock.Instant) throws -> Judged {
        let started = ContinuousClock.now
        let image = try ImageIO.decode(Array(buffer: bytes), source: "frame \(number)", options: DecodeOptions(maxPixels: limits.maxImagePixels))
        return judged(try player.frame(image, time: time), started: started, received: received)
    }

    /// A chunk of float32 little-endian mono audio.
    func audio(_ bytes: ByteBuffer, received: ContinuousClock.Instant) throws -> Judged {
        let started = ContinuousClock.now
        guard bytes.readableBytes % 4 == 0 else { throw PuzzlerError.badInput("audio: a chunk is whole float32 samples (a multiple of 4 bytes)") }
        let samples: [Float] = bytes.withUnsafeReadableBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        return judged(try player.audio(samples), started: started, received: received)
    }

    /// A text message (motion samples, a device event, a press, a drawing, the button, a
    /// calibration or a reset); nil when it asks for no reply.
    func text(_ text: String, received: ContinuousClock.Instant) throws -> Judged? {
        let started = ContinuousClock.now
        let data = Data(text.utf8)
        let message: PlayMessage
        do { message = try JSONDecoder().decode(PlayMessage.self, from: data) } catch {
            throw StreamError(.badMessage, "a level takes JSON messages with a type: \(describe(decoding: error))")
        }
        let report: LevelReport
        switch message.type {
        case "motion":
            let parsed = try MotionMessage.parse(text, normalizer: &normalizer)
            report = try player.motion(parsed.samples)
        case "event":
            let event: DeviceEvent
            do { event = try JSONDecoder().decode(DeviceEvent.self, from: data) } catch {
                throw StreamError(.badMessage, "an event is {\"type\": \"event\", \"name\": …, \"value\": …, \"t\": …}: \(describe(decoding: error))")
            }
            report = try player.event(event)
        case "press":
            guard let ms = message.ms else { throw StreamError(.badMessage, "a press is {\"type\": \"press\", \"ms\": 180}") }
            report = try player.press(ms: ms, gapMs: message.gapMs)
        case "drawing":
            guard let strokes = message.strokes else { throw StreamError(.badMessage, "a drawing is {\"type\": \"drawing\", \"strokes\": [[[x, y], …], …]}") }
            report = try player.drawing(strokes)
        case "button":
            report = try player.pressButton()
        case "calibrate":
            try player.recalibrate()
            return nil
        case "reset":
            try player.reset()
            solved = false
            return nil
        default:
            throw StreamError(.badMessage, "unknown message type \(message.type): motion, event, press, drawing, button, calibrate or reset")
        }
        var result = judged(report, started: started, received: received)
        result.sentAt = message.sentAt.flatMap { $0.isFinite ? $0 : nil }
        return result
    }

    /// The fields any text message may carry.
    struct PlayMessage: Decodable {
        var type: String
        var sentAt: Double?
        var ms: Double?
        var gapMs: Double?
        var strokes: [[[Double]]]?
    }
}

/// The page's view of one judged input (docs/puzzler-api.md).
struct LevelReply: Encodable {
    var type = "level"
    var level: String
    var phase: String
    var progress: Double
    var message: String
    var detail: LevelDetail
    /// The camera frame's or audio chunk's number on this connection; nil for text messages.
    var frame: Int?
    var dropped: Int?
    var serverMs: Double
    var waitMs: Double
    var sentAt: Double?
    /// On the solving reply: the levels it opened and the attempt's seconds.
    var opened: [String]?
    var seconds: Double?
}

/// A level's WebSocket: binary camera frames go through a one-slot mailbox (the newest wins;
/// a player's face, not a backlog of it), audio chunks and text messages are judged in order.
/// The first solve is stored before the reply that says so is sent.
struct PuzzlerConnection {
    let level: LevelID
    let player: String
    let room: String?
    let sampleRate: Int
    let platform: Platform
    let logger: Logger
    var userAgent: String?

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let game = platform.puzzler
        do {
            try await game.begin(player: player, level: level)
        } catch let error as PuzzlerError {
            try await outbound.writeTextMessage(try JSON.string(StreamError(.locked, error.description)))
            try await outbound.close(.policyViolation, reason: "locked")
            return
        }
        let worker: PuzzlerWorker
        do {
            worker = try PuzzlerWorker(level: level, store: platform.perception.store, thread: platform.perception.threads.nextThread(),
                                       limits: platform.limits, sampleRate: sampleRate, profile: BrowserProfile(userAgent: userAgent))
        } catch let error as PuzzlerError {
            try await outbound.writeTextMessage(try JSON.string(StreamError(.unavailable, error.description)))
            try await outbound.close(.unexpectedServerError, reason: "unavailable")
            return
        }
        // A paired phone's arrival and departure, for the desktop following the room (as the
        // motion stream's phones say theirs).
        if let room, let json = try? JSON.string(RoomEvent(event: "joined", stream: "puzzler", controller: level.rawValue)) {
            await platform.hub.publish(room: room, json: json)
        }
        defer {
            if let room, let json = try? JSON.string(RoomEvent(event: "left", stream: "puzzler", controller: level.rawValue)) {
                let hub = platform.hub
                Task { await hub.publish(room: room, json: json) }
            }
        }
        let started = ContinuousClock.now
        let sense = Catalogue.level(level).sense
        let metrics = platform.metrics, level = self.level
        // Camera frames through the mailbox (a player's face now, not a backlog of it); audio
        // chunks judged in order as they come (loudness must not lose a window).
        let judgeAudio: @Sendable (ByteBuffer, Int, ContinuousClock.Instant) async throws -> Void = { bytes, number, received in
            try await respond(frame: number, started: started, outbound: outbound) {
                guard sense == .sound else { throw StreamError(.badMessage, PuzzlerError.wrongInput(level: level, takes: "no binary messages").description) }
                return try await worker.audio(bytes, received: received)
            }
        }
        // A level may be thought over before anything is sent: four idle times.
        let idle = Duration.milliseconds(Int64(platform.limits.streamIdleSeconds * 4000))
        try await watchIdle(after: idle, outbound: outbound) { last in
            try await pumpFrames(inbound: inbound, maxMessageBytes: platform.limits.maxFrameBytes, onDrop: { metrics.frameDropped("puzzler") },
                                 lastMessage: last, binary: sense.usesCamera ? nil : judgeAudio,
                                 text: { text in
                try await respond(frame: nil, started: started, outbound: outbound) { try await worker.text(text, received: ContinuousClock.now) }
            }) { pending, dropped in
                try await respond(frame: pending.number, dropped: dropped, started: started, outbound: outbound) {
                    try await ComputeDeadline.within(platform.limits.frameBudget) {
                        try await worker.frame(pending.bytes, number: pending.number, time: pending.time, received: pending.received)
                    }
                }
            }
        }
        if await !worker.solvedOnce {
            try? await game.left(player: player, level: level, seconds: (ContinuousClock.now - started).milliseconds / 1000)
        }
    }

    /// Judges one input with `judge` and sends its reply (``deliver(_:frame:dropped:started:outbound:)``),
    /// or the typed error when it fails; nothing when it asks for no reply.
    private func respond(frame: Int?, dropped: Int? = nil, started: ContinuousClock.Instant, outbound: WebSocketOutboundWriter,
                         _ judge: () async throws -> PuzzlerWorker.Judged?) async throws {
        do {
            if let judged = try await judge() { try await deliver(judged, frame: frame, dropped: dropped, started: started, outbound: outbound) }
        } catch {
            try await outbound.writeTextMessage(try JSON.string(Self.streamError(error, frame: frame)))
        }
    }

    /// Sends one judged input's reply (storing the solve first, on the first one) and, in a
    /// paired phone's room, publishes it for the desktop.
    private func deliver(_ judged: PuzzlerWorker.Judged, frame: Int?, dropped: Int?, started: ContinuousClock.Instant,
                         outbound: WebSocketOutboundWriter) async throws {
        var reply = LevelReply(level: level.rawValue, phase: judged.report.phase.rawValue, progress: judged.report.progress,
                               message: judged.report.message, detail: judged.report.detail, frame: frame, dropped: dropped,
                               serverMs: (judged.serverMs * 100).rounded() / 100, waitMs: (judged.waitMs * 100).rounded() / 100, sentAt: judged.sentAt)
        if judged.firstSolve {
            let seconds = ((ContinuousClock.now - started).milliseconds / 10).rounded() / 100
            let opened = try await platform.puzzler.solve(player: player, level: level, seconds: seconds)
            reply.opened = opened.map(\.rawValue)
            reply.seconds = seconds
        }
        let json = try ReplyEncoder.string(reply)
        platform.metrics.frameProcessed("puzzler", failed: false)
        try await outbound.writeTextMessage(json)
        if let room { await platform.hub.publish(room: room, json: json) }
    }

    static func streamError(_ error: any Error, frame: Int?) -> StreamError {
        switch error {
        case let error as StreamError: var e = error; e.frame = frame; return e
        case let error as PuzzlerError:
            if case .wrongInput = error { return StreamError(.wrongInput, error.description, frame: frame) }
            return StreamError(.badInput, error.description, frame: frame)
        default: return StreamError(.badFrame, "\(error)", frame: frame)
        }
    }
}
