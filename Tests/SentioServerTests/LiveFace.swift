import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import SentioTestSupport
import Testing

/// A camera for the attendance streams in tests: Yale photos played frame by frame to a kiosk
/// or face-proof stream at a camera's pace, 10 frames a second, each after the reply to the one
/// before (as a browser sends when the server keeps up). The pace matters: the face tracker
/// smooths landmarks over time, and frames 5 ms apart would smooth a blink away. The servers of these tests fix the liveness challenge to blink →
/// open mouth, the order the clip acts it out.
enum LiveFace {
    static func yale(_ subject: String, _ condition: String) throws -> ByteBuffer {
        try Photos.bytes(try Fixtures.required("faces/identity") + "/faces/identity/Yale_subject\(subject)/yale_subject\(subject)_\(condition).png")
    }

    /// A person acting the challenge: `neutral` (their photo looking straight), eyes closed
    /// ("sleepy"), neutral, mouth open ("surprised"), neutral. Measured with `sentio faces --video
    /// FOLDER --json` on these sequences (the tracked mesh, as the stream sees it): Yale 01 with
    /// "noglasses", 02 with "glasses" and 04 with "normal" close their eyes under 75% of the
    /// neutral EAR and open their mouths over +0.25 of its MAR for two frames; 01 "normal" and
    /// 02 "noglasses" do not.
    static func clip(_ subject: String, neutral: String = "normal") throws -> [ByteBuffer] {
        let n = try yale(subject, neutral), closed = try yale(subject, "sleepy"), open = try yale(subject, "surprised")
        return Array(repeating: n, count: 6) + Array(repeating: closed, count: 3) + Array(repeating: n, count: 3)
            + Array(repeating: open, count: 4) + Array(repeating: n, count: 6)
    }

    /// A photo held to the camera: the same frame, again and again.
    static func still(_ subject: String, _ condition: String = "normal") throws -> [ByteBuffer] { [try yale(subject, condition)] }

    /// Opens `path` with `cookie`, sends `start`, then `frames` in a loop until the server ends
    /// the check ("checked-in", "proof" or "refused", or an error that refuses), at most
    /// `maxFrames`; returns that last message.
    static func run(port: Int, path: String, cookie: String, start: String = #"{"type": "start"}"#, frames: [ByteBuffer],
                    maxFrames: Int = 200) async throws -> [String: Any] {
        let box = Last()
        _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)",
                                              configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: [.cookie: cookie]),
                                              logger: Logger(label: "live-face")) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text(start))
            for index in 0 ..< maxFrames {
                if index > 0 { try await Task.sleep(for: .milliseconds(100)) }
                try await outbound.write(.binary(frames[index % frames.count]))
                // Every frame is answered (a step, or idle between checks); a start refused at
                // once answers the start too.
                while true {
                    guard case .text(let text) = try await messages.next() else { throw TestFailure("the stream closed") }
                    let message = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
                    let type = message["type"] as? String ?? ""
                    if ProcessInfo.processInfo.environment["LIVE_FACE_DEBUG"] != nil { print("live-face \(index): \(text.prefix(300))") }
                    if ["checked-in", "proof", "refused"].contains(type) || (type == "error" && message["code"] as? String == "refused") {
                        box.set(message)
                        try await outbound.close(.normalClosure, reason: nil)
                        return
                    }
                    if type == "step" || type == "idle" || type == "error" { break }
                }
            }
            throw TestFailure("no decision after \(maxFrames) frames")
        }
        return try #require(box.value)
    }

    final class Last: @unchecked Sendable {
        private let lock = NSLock()
        private var message: [String: Any]?
        func set(_ m: [String: Any]) { lock.withLock { message = m } }
        var value: [String: Any]? { lock.withLock { message } }
    }
}
