import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import Play
import SentioMotion
import SentioNeural

/// One WebSocket stream: a reader that takes frames off the socket into a one-slot mailbox
/// (the newest wins), and a worker that processes them one at a time on the stream's compute
/// thread and writes one reply per frame. A client that never reads stalls only its own worker;
/// its memory stays one waiting frame.
struct StreamConnection {
    let kind: StreamKind
    let options: StreamOptions
    let platform: Platform
    let logger: Logger
    /// The upgrade request's `User-Agent` (the motion stream's browser profile).
    var userAgent: String? = nil
    /// Whether the room of `options.room` was open when the stream was admitted.
    var roomFound = true
    /// This stream's id in its room, shown to the desktop page.
    let controller = String(UUID().uuidString.prefix(6)).lowercased()

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let room = try await joinRoom(outbound: outbound)
        do {
            let idle = Duration.milliseconds(Int64(platform.limits.streamIdleSeconds * 1000))
            try await watchIdle(after: idle, outbound: outbound) { last in
                if kind == .motion {
                    try await withFeedback(room: room, outbound: outbound) {
                        try await runMotion(inbound: inbound, outbound: outbound, room: room, last: last)
                    }
                } else {
                    try await runImages(inbound: inbound, outbound: outbound, room: room, last: last)
                }
            }
        } catch {
            await left(room)
            throw error
        }
        await left(room)
    }

    /// Tells the room's watchers this stream has ended (the desktop pauses its game).
    private func left(_ room: String?) async {
        guard let room, let json = try? JSON.string(RoomEvent(event: "left", stream: kind.rawValue, controller: controller)) else { return }
        await platform.hub.publish(room: room, json: json)
    }

    /// The room this stream publishes into, if it named one; an error reply and nil otherwise.
    private func joinRoom(outbound: WebSocketOutboundWriter) async throws -> String? {
        guard let code = options.room else { return nil }
        guard roomFound else {
            try await outbound.writeTextMessage(try JSON.string(StreamError(.unknownRoom, "no open room \(code); open one on the desktop page")))
            try await outbound.close(.policyViolation, reason: "unknown room")
            throw CancellationError()
        }
        await platform.hub.publish(room: code, json: try JSON.string(RoomEvent(event: "joined", stream: kind.rawValue, controller: controller)))
        return code
    }

    /// Runs `body` while the big screen's ``ControllerFeedback`` for this phone (its room and
    /// `controller` id) is written to the phone's socket beside the stream's own replies.
    private func withFeedback(room: String?, outbound: WebSocketOutboundWriter, _ body: @escaping @Sendable () async throws -> Void) async throws {
        guard let room else { try await body(); return }
        let (feedback, cancel) = platform.hub.watch(room: ControllerFeedback.key(room: room, controller: controller))
        defer { cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in feedback { try await outbound.writeTextMessage(message) }
            }
            try await body()
            group.cancelAll()
        }
    }

    private func runImages(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, room: String?, last: LastMessage) async throws {
        let worker = try ImageStreamWorker(kind: kind, options: options, store: platform.perception.store,
                                           thread: platform.perception.threads.nextThread(), limits: platform.limits)
        let kind = self.kind, metrics = platform.metrics, hub = platform.hub
        try await pumpFrames(inbound: inbound, maxMessageBytes: platform.limits.maxFrameBytes, onDrop: { metrics.frameDropped(kind) }, lastMessage: last,
                             text: { try await control($0, worker: worker, outbound: outbound) }) { pending, dropped in
            // The worker: newest frame in, one reply out.
            let reply = await ComputeDeadline.within(platform.limits.frameBudget) {
                await worker.handle(pending.bytes, frame: pending.number, time: pending.time, received: pending.received, dropped: dropped)
            }
            metrics.frameProcessed(kind, failed: reply.failed)
            try await outbound.writeTextMessage(reply.json)
            if let room, !reply.failed { await hub.publish(room: room, json: reply.json) }
        }
    }

    /// Text on an image stream: `{"type": "reset"}` forgets what was tracked; on the gestures
    /// stream `{"type": "clear"}` wipes the board and `{"type": "undo"}` takes back a stroke;
    /// anything else is answered with an error and ignored.
    private func control(_ text: String, worker: ImageStreamWorker, outbound: WebSocketOutboundWriter) async throws {
        struct Control: Decodable { var type: String }
        if text.utf8.count <= 1024, let control = try? JSONDecoder().decode(Control.self, from: Data(text.utf8)) {
            if control.type == "reset" { await worker.reset(); return }
            if await worker.run(control.type) { return }
        }
        try await outbound.writeTextMessage(try JSON.string(StreamError(.badMessage, "\(kind.rawValue) streams take binary JPEG, PNG or WebP frames; the only text message is {\"type\": \"reset\"}")))
    }

    private func runMotion(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, room: String?, last: LastMessage) async throws {
        let session = MotionSession()
        var normalizer = MotionNormalizer(profile: options.motionProfile(userAgent: userAgent))
        var batch = 0
        // The last second's gestures, repeated in every reply: a room's watcher that falls behind
        // keeps only its newest messages, and a throw must not be lost with the others.
        var recent: [MotionEvent] = []
        for try await message in inbound.boundedMessages(maxSize: platform.limits.maxMotionMessageBytes) {
            last.instant = .now
            guard case .text(let text) = message else {
                try await outbound.writeTextMessage(try JSON.string(StreamError(.badMessage, "the motion stream takes JSON text messages of samples")))
                continue
            }
            batch += 1
            let started = ContinuousClock.now
            let parsed: (samples: [IMUSample], notes: MotionNormalizer.Notes, sentAt: Double?, mark: String?)
            do {
                parsed = try MotionMessage.parse(text, normalizer: &normalizer)
            } catch {
                platform.metrics.frameProcessed(.motion, failed: true)
                var reply = error
                reply.frame = batch
                try await outbound.writeTextMessage(try JSON.string(reply))
                continue
            }
            var events: [MotionEvent] = []
            var observation: MotionObservation?
            for sample in parsed.samples {
                let o = session.process(sample)
                events += o.events
                observation = o
            }
            guard var observation else { continue }
            observation.events = events
            recent += events
            recent.removeAll { observation.time - $0.t > MotionReply.recentSeconds }
            let json = try JSON.string(MotionReply(frame: batch, serverMs: (ContinuousClock.now - started).milliseconds, observation: observation,
                                                   input: parsed.notes.isEmpty ? nil : parsed.notes, sentAt: parsed.sentAt, mark: parsed.mark,
                                                   controller: controller, recentEvents: recent.isEmpty ? nil : recent))
            platform.metrics.frameProcessed(.motion, failed: false)
            try await outbound.writeTextMessage(json)
            if let room { await platform.hub.publish(room: room, json: json) }
        }
    }
}

/// The motion stream's answer: the envelope of ``StreamReply`` (same keys) and what the
/// normaliser did to the message's samples (`input`, absent when nothing), the sender's
/// `sentAt` and `mark` echoed, and in a room the stream's `controller` id (which phone it is).
struct MotionReply: Encodable {
    var type = "observation"
    var stream = "motion"
    var frame: Int
    var dropped = 0
    var serverMs: Double
    var waitMs = 0.0
    var observation: MotionObservation
    var input: MotionNormalizer.Notes?
    var sentAt: Double?
    var mark: String?
    var controller: String?
    /// The gestures of the last `recentSeconds` of samples (this reply's included), so a page
    /// that missed a message still sees them; a page tells them apart by `t` and `gesture`.
    var recentEvents: [MotionEvent]?

    static let recentSeconds = 1.0
}

/// Something that happened in a room, for the desktop page: a phone's stream `joined` or
/// `left`, with its `controller` id (motion streams) so a page can tell two phones apart.
struct RoomEvent: Encodable {
    var type = "room"
    var event: String
    var stream: String
    var controller: String?
}
