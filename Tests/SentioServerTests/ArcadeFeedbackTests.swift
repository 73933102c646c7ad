import Foundation
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SentioServer
import SentioTestSupport
import Testing

/// The big screen's word to each phone (issue #41, the controller screen): feedback sent on
/// the room's watcher socket reaches the one motion stream it names, checked field by field;
/// a malformed or out-of-range message is refused on the watcher's socket and reaches nobody.
@Suite("Arcade feedback", .timeLimit(.minutes(2)))
struct ArcadeFeedbackTests {
    typealias Replies = StreamTests.Replies

    /// A phone in room `code`: sends a sample every 100 ms and keeps what comes back, until `stop`.
    static func phone(port: Int, code: String, replies: Replies, stop: @escaping @Sendable () -> Bool) async throws {
        try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/stream/motion?room=\(code)", configuration: .init(maxFrameSize: 1 << 20), logger: Logger(label: "phone")) { inbound, outbound, _ in
            let sending = Task {
                var t = 16.0
                while !stop() && !Task.isCancelled {
                    try await outbound.write(.text(#"{"samples": [\#(PlayStreamTests.sample(t))]}"#))
                    t += 100
                    try await Task.sleep(for: .milliseconds(100))
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            defer { sending.cancel() }
            for try await message in inbound.messages(maxSize: 1 << 20) {
                if case .text(let text) = message { replies.add(text) }
            }
        }
    }

    @Test("feedback reaches the phone it names and only it; bad feedback is refused on the watcher")
    func feedback() async throws {
        let server = try await TestServer.make()
        try await server.run { client, port in
            let opened = try await client.execute(uri: "/api/v1/rooms", method: .post, headers: [.contentType: "application/json"],
                                                  body: ByteBuffer(string: #"{"purpose": "arcade"}"#))
            let code = ((try opened.body.json())["room"] as! [String: Any])["code"] as! String
            let seen = Replies(), phoneA = Replies(), phoneB = Replies()
            let done = ManagedAtomicFlag()
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/rooms/\(code)/events", configuration: .init(maxFrameSize: 1 << 20), logger: Logger(label: "desktop")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                /// The next `joined` event's controller id.
                func joined() async throws -> String {
                    while case .text(let text)? = try await messages.next() {
                        seen.add(text)
                        if let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], o["event"] as? String == "joined" {
                            return o["controller"] as? String ?? ""
                        }
                    }
                    throw TestFailure("the watcher closed before a phone joined")
                }
                try await Task.sleep(for: .milliseconds(200))  // the watcher's subscription in place
                let a = Task { try await Self.phone(port: port, code: code, replies: phoneA, stop: done.isSet) }
                let idA = try await joined()
                let b = Task { try await Self.phone(port: port, code: code, replies: phoneB, stop: done.isSet) }
                let idB = try await joined()
                #expect(idA.count == 6 && idB.count == 6 && idA != idB)
                try await Task.sleep(for: .milliseconds(300))  // each phone's feedback subscription in place
                try await outbound.write(.text(##"{"type": "feedback", "controller": "\##(idA)", "player": 1, "colour": "#4f46e5", "game": "basketball", "score": 3, "text": "Basket!", "vibrate": [80, 60, 160]}"##))
                for bad in [#"{"type": "feedback", "controller": "\#(idA)", "colour": "red"}"#, #"{"type": "feedback", "controller": "\#(idA)", "score": -1}"#,
                            #"{"type": "feedback", "controller": "\#(idA)", "vibrate": [5000]}"#, #"{"type": "feedback", "controller": "../../x"}"#, "not json"] {
                    try await outbound.write(.text(bad))
                }
                // Five errors back on the watcher, in order.
                var errors = 0
                while errors < 5, case .text(let text)? = try await messages.next() {
                    seen.add(text)
                    if text.contains(#""type":"error""#) { errors += 1 }
                }
                try await Task.sleep(for: .milliseconds(700))
                done.set()
                _ = try await (a.value, b.value)
                try await outbound.close(.normalClosure, reason: nil)
            }
            let feedbackA = phoneA.all.filter { $0["type"] as? String == "feedback" }
            #expect(feedbackA.count == 1, "phone A's feedback: \(feedbackA)")
            let f = try #require(feedbackA.first)
            #expect(f["player"] as? Int == 1 && f["colour"] as? String == "#4f46e5" && f["game"] as? String == "basketball")
            #expect(f["score"] as? Int == 3 && f["text"] as? String == "Basket!" && f["vibrate"] as? [Int] == [80, 60, 160])
            #expect(!phoneB.all.contains { $0["type"] as? String == "feedback" }, "phone B heard phone A's feedback")
            #expect(phoneA.all.contains { $0["type"] as? String == "observation" } && phoneB.all.contains { $0["type"] as? String == "observation" })
            let refusals = seen.all.filter { $0["type"] as? String == "error" }.compactMap { $0["message"] as? String }
            #expect(refusals.count == 5, "\(refusals)")
            #expect(refusals.first?.contains("colour") == true && refusals.dropFirst().first?.contains("score") == true, "\(refusals)")
        }
    }
}

/// A flag set once, read from other tasks.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    @Sendable func isSet() -> Bool { lock.withLock { value } }
}
