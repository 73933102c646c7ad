import Foundation
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SentioServer
import SentioTestSupport
import Testing

/// The streams behind the gestures page and the motion arcade (issue #26): bad motion samples
/// dropped, counted and said, the sender's time echoed; the gestures stream's board and its
/// commands; arcade rooms joined at /arcade/.
@Suite("Play streams", .timeLimit(.minutes(3)), .requires(model: "palm_detection_full", "hand_landmark_full"), .requires(fixture: "faces/hands"))
struct PlayStreamTests {
    enum Message: Sendable { case text(String), binary(Data) }

    /// Sends `messages` on a stream and collects `count` replies.
    static func exchange(_ path: String, _ messages: [Message], count: Int) async throws -> [[String: Any]] {
        let server = try await TestServer.make()
        let replies = StreamTests.Replies()
        try await server.run { _, port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", configuration: .init(maxFrameSize: 1 << 22), logger: Logger(label: "test")) { inbound, outbound, _ in
                var iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                for message in messages {
                    switch message {
                    case .binary(let data): try await outbound.write(.binary(ByteBuffer(bytes: Array(data))))
                    case .text(let text): try await outbound.write(.text(text))
                    }
                }
                for _ in 0..<count {
                    guard case .text(let text) = try await iterator.next() else { break }
                    replies.add(text)
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        return replies.all
    }

    static func sample(_ t: Double, x: String = "0") -> String {
        #"{"t": \#(t), "accelerationIncludingGravity": {"x": \#(x), "y": 0, "z": 9.8}, "rotationRate": {"alpha": 0, "beta": 0, "gamma": 0}}"#
    }

    @Test("motion: a null value, a repeated time and a jump are repaired and said in `input`; sentAt and mark come back")
    func motionInput() async throws {
        let messages: [Message] = [
            .text(#"{"samples": [\#(Self.sample(16)), \#(Self.sample(32, x: "null")), \#(Self.sample(16)), \#(Self.sample(48))], "sentAt": 1234.5, "mark": "recentre"}"#),
            .text(#"{"samples": [\#(Self.sample(9000))]}"#),
        ]
        let replies = try await Self.exchange("/api/v1/stream/motion?rotationUnit=deg", messages, count: 2)
        try #require(replies.count == 2)
        #expect(replies[0]["type"] as? String == "observation")
        #expect(replies[0]["sentAt"] as? Double == 1234.5 && replies[0]["mark"] as? String == "recentre")
        let input = replies[0]["input"] as? [String: Int]
        #expect(input == ["missing": 1, "out_of_order": 1, "gaps": 0], "\(String(describing: input))")
        #expect((replies[1]["input"] as? [String: Int])?["gaps"] == 1)
    }

    @Test("motion: a flick's throw is repeated in the next replies' recentEvents, so a watcher that lost one message still sees it")
    func recentEvents() async throws {
        // Lying face up at 60 Hz: still, a half-sine push of 2.5 g up the phone over 0.15 s, a stop, still.
        let g = 9.80665
        var userY: [Double] = Array(repeating: 0.0, count: 30)
        for i in 0..<9 { userY.append(2.5 * sin(Double.pi * (Double(i) + 0.5) / 9)) }
        for i in 0..<9 { userY.append(-1.5 * sin(Double.pi * (Double(i) + 0.5) / 9)) }
        userY += Array(repeating: 0.0, count: 12)
        var messages: [Message] = []
        for (i, y) in userY.enumerated() {
            let t = 16.667 * Double(i + 1), ay = y * g
            messages.append(.text(#"{"samples": [{"t": \#(t), "accelerationIncludingGravity": {"x": 0, "y": \#(ay), "z": \#(g)}, "rotationRate": {"alpha": 0, "beta": 0, "gamma": 0}}]}"#))
        }
        let replies = try await Self.exchange("/api/v1/stream/motion", messages, count: messages.count)
        func hasThrow(_ events: Any?) -> Bool {
            guard let list = events as? [[String: Any]] else { return false }
            return list.contains { ($0["gesture"] as? String) == "throw" }
        }
        func observationEvents(_ reply: [String: Any]) -> Any? { (reply["observation"] as? [String: Any])?["events"] }
        let thrownAt = try #require(replies.firstIndex { hasThrow(observationEvents($0)) })
        let repeated = replies[(thrownAt + 1)...].prefix(10).filter { hasThrow($0["recentEvents"]) }
        #expect(repeated.count == 10, "the throw in the 10 replies after it (\(repeated.count))")
    }

    @Test("gestures: a hand photo answers with its 21 points, pinch, pen, strokes; undo and clear are commands, other text an error")
    func gestures() async throws {
        let photo = try Fixtures.required("faces/hands") + "/faces/golden_mediapipe/ms_android_hand_thumb_up.jpg"
        let frame = try Data(contentsOf: URL(fileURLWithPath: photo))
        let replies = try await Self.exchange("/api/v1/stream/gestures", [.text(#"{"type": "undo"}"#), .text(#"{"type": "clear"}"#), .text(#"{"type": "dance"}"#), .binary(frame)], count: 2)
        try #require(replies.count == 2)
        #expect(replies[0]["type"] as? String == "error" && replies[0]["code"] as? String == "bad_message")
        let o = try #require(replies[1]["observation"] as? [String: Any])
        #expect((o["hand"] as? [[Double]])?.count == 21)
        #expect(o["pinch"] as? String == "none" && o["strokes"] is [Any] && o["pen"] is Bool)
    }

    @Test("an arcade room's phone joins at /arcade/")
    func arcadeRoom() async throws {
        let server = try await TestServer.make()
        try await server.run { client, _ in
            let opened = try await client.execute(uri: "/api/v1/rooms", method: .post, headers: [.contentType: "application/json"],
                                                  body: ByteBuffer(string: #"{"purpose": "arcade"}"#))
            #expect(opened.status == .created)
            let join = try opened.body.json()["joinURL"] as? String ?? ""
            #expect(join.contains("/arcade/?room="), "\(join)")
        }
    }
}
