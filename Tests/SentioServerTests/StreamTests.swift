import Foundation
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// The WebSocket streams: one observation per processed frame, typed errors for bad input, the
/// newest frame winning under a flood, motion samples, and pairing rooms (across two servers on
/// one PostgreSQL).
@Suite("Live streams", .timeLimit(.minutes(3)), .requires(model: "face_detection_short_range", "face_landmark"), .requires(fixture: "faces/identity"))
struct StreamTests {
    /// Collects a connection's text replies as JSON objects.
    final class Replies: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [[String: Any]] = []
        func add(_ text: String) {
            if let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] { lock.withLock { items.append(o) } }
        }
        var all: [[String: Any]] { lock.withLock { items } }
    }

    @Test("a face stream answers each frame; a bad frame gets a typed error and the stream goes on")
    func faces() async throws {
        let frame = try Photos.bytes(try Photos.face())
        let server = try await TestServer.make()
        let replies = Replies()
        try await server.run { _, port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/faces", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "test")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                func next() async throws -> [String: Any] {
                    guard case .text(let text) = try await messages.next() else { throw TestFailure("no reply") }
                    replies.add(text)
                    return try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
                }
                try await outbound.write(.binary(frame))
                let first = try await next()
                #expect(first["type"] as? String == "observation")
                #expect(((first["observation"] as? [String: Any])?["faces"] as? [Any])?.count == 1)
                try await outbound.write(.binary(ByteBuffer(string: "definitely not a JPEG")))
                let bad = try await next()
                #expect(bad["type"] as? String == "error" && bad["code"] as? String == "bad_frame" && bad["frame"] as? Int == 2)
                try await outbound.write(.text("hello"))
                #expect(try await next()["code"] as? String == "bad_message")
                try await outbound.write(.binary(frame))
                let third = try await next()
                #expect(third["frame"] as? Int == 3 && third["type"] as? String == "observation")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        #expect(replies.all.count == 4)
    }

    @Test("under a flood the newest frame wins: every frame is answered or counted as dropped")
    func flood() async throws {
        let frame = try Photos.bytes(try Photos.face())
        let server = try await TestServer.make()
        try await server.run { _, port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/faces", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "test")) { inbound, outbound, _ in
                let sent = 40
                for _ in 0..<sent { try await outbound.write(.binary(frame)) }
                var answered = 0, lastFrame = 0, dropped = 0
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message,
                          let o = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                    answered += 1
                    lastFrame = o["frame"] as? Int ?? 0
                    dropped = o["dropped"] as? Int ?? 0
                    if lastFrame == sent { break }
                }
                #expect(lastFrame == sent, "the last frame sent is always processed")
                #expect(answered + dropped == sent, "answered \(answered) + dropped \(dropped)")
                #expect(dropped > 0, "40 frames sent at once cannot all be processed in time")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test("a message over the frame limit closes the stream with a reason; the server stays up")
    func oversized() async throws {
        var limits = TestServer.limits
        limits.maxFrameBytes = 64 << 10
        let server = try await TestServer.make(limits: limits)
        try await server.run { client, port in
            let close = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/faces",
                                                          configuration: .init(maxFrameSize: 1 << 20), logger: Logger(label: "test")) { inbound, outbound, _ in
                try await outbound.write(.binary(ByteBuffer(repeating: 1, count: 200 << 10)))
                for try await _ in inbound.messages(maxSize: 1 << 20) {}
            }
            #expect(close?.closeCode == .messageTooLarge)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("motion: samples in, device motion out; malformed samples get typed errors")
    func motion() async throws {
        let server = try await TestServer.make()
        let replies = Replies()
        try await server.run { _, port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/motion", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "test")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                // Lying still, face up, for a second at 60 Hz.
                let samples = (1...60).map { i in
                    #"{"t": \#(Double(i) * 16.67), "accelerationIncludingGravity": {"x": 0, "y": 0, "z": 9.81}, "rotationRate": {"alpha": 0, "beta": 0, "gamma": 0}}"#
                }
                try await outbound.write(.text(#"{"samples": [\#(samples.joined(separator: ","))]}"#))
                for bad in ["{", #"{"samples": [{"t": 1}]}"#, #"{"t": 900, "accelerationIncludingGravity": {"x": 0, "y": 0, "z": 9.8}, "rotationRate": {"alpha": 0, "beta": 0, "gamma": 0}}"#] {
                    try await outbound.write(.text(bad))
                }
                for _ in 0..<4 {
                    guard case .text(let text) = try await messages.next() else { break }
                    replies.add(text)
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        let all = replies.all
        try #require(all.count == 4)
        let gravity = ((all[0]["observation"] as? [String: Any])?["gravity"] as? [Double]) ?? []
        #expect(gravity.count == 3 && abs(gravity[2]) > 0.99, "gravity along z lying face up: \(gravity)")
        #expect(all[1...].allSatisfy { $0["type"] as? String == "error" && $0["code"] as? String == "bad_message" },
                "malformed JSON, missing values, time going back (by less than 0.25 s; a longer jump either way is a new time base, Play's MotionNormalizer): \(all[1...])")
    }

    @Test("pairing: a phone's stream reaches the desktop watching its room")
    func pairing() async throws {
        let server = try await TestServer.make()
        try await pair(watcher: server, phone: nil)
    }

    /// Opens a room on `watcher`, watches it there, streams a face into it from `phone` (or the
    /// same server), and expects the desktop to see the join and the observation.
    func pair(watcher: TestServer, phone: TestServer?) async throws {
        let frame = try Photos.bytes(try Photos.face())
        try await watcher.run { client, watcherPort in
            let opened = try await client.execute(uri: "/api/v1/rooms", method: .post)
            #expect(opened.status == .created)
            let code = ((try opened.body.json())["room"] as! [String: Any])["code"] as! String
            #expect(try await client.execute(uri: "/api/v1/rooms/\(code)/qr.svg", method: .get).body.text.hasPrefix("<svg"))
            let seen = Replies()
            let (ready, readySignal) = AsyncStream.makeStream(of: Void.self)
            let watching = Task {
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(watcherPort)/api/v1/rooms/\(code)/events", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "desktop")) { inbound, outbound, _ in
                    readySignal.yield()
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { seen.add(text) }
                        if seen.all.contains(where: { $0["type"] as? String == "observation" }) { break }
                    }
                    try await outbound.close(.normalClosure, reason: nil)
                }
            }
            var iterator = ready.makeAsyncIterator()
            _ = await iterator.next()
            try await Task.sleep(for: .milliseconds(300))  // the watcher's subscription (and LISTEN) in place
            let stream: @Sendable (Int) async throws -> Void = { port in
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/faces?room=\(code)", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "phone")) { inbound, outbound, _ in
                    try await outbound.write(.binary(frame))
                    var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                    _ = try await messages.next()
                    try await Task.sleep(for: .milliseconds(500))
                    try await outbound.close(.normalClosure, reason: nil)
                }
            }
            if let phone {
                try await phone.run { _, phonePort in try await stream(phonePort) }
            } else {
                try await stream(watcherPort)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await watching.value }
                group.addTask { try await Task.sleep(for: .seconds(20)); throw TestFailure("the desktop saw nothing in 20 s: \(seen.all)") }
                try await group.next()
                group.cancelAll()
                watching.cancel()
            }
            let events = seen.all
            #expect(events.first?["event"] as? String == "joined")
            #expect(events.contains { $0["type"] as? String == "observation" && $0["stream"] as? String == "faces" })
        }
    }

    @Test("two servers on one PostgreSQL: a phone on one pairs with a desktop on the other", .requires(.postgres))
    func pairingAcrossServers() async throws {
        let base = try DatabaseLocation(parsing: try Requirement.postgres.path())
        let location = try await PostgresDatabases.fresh(base)
        let desktop = try await TestServer.make(location), phone = try await TestServer.make(location)
        try await pair(watcher: desktop, phone: phone)
    }

    @Test("a stream naming a room that does not exist is told so")
    func unknownRoom() async throws {
        let server = try await TestServer.make()
        let replies = Replies()
        try await server.run { _, port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/faces?room=ZZZZZZ", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "test")) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) { if case .text(let t) = message { replies.add(t) } }
            }
        }
        #expect(replies.all.first?["code"] as? String == "unknown_room")
    }
}
