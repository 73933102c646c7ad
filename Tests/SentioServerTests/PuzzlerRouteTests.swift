import Foundation
import HTTPTypes
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SentioServer
import SentioTestSupport
import Testing

/// The puzzle game over HTTP and its level socket: a guest's cookie, locked levels refused,
/// the map opening after a solve stored by the socket, hints and meteors by the rules, a device
/// level reported after the fact, bad messages answered and survived.
@Suite("Puzzler routes", .timeLimit(.minutes(3)))
struct PuzzlerRouteTests {
    /// Plays `messages` on a level's socket with `cookie`; the replies (one per message here).
    static func play(port: Int, level: String, cookie: String, _ messages: [String], replies count: Int) async throws -> [[String: Any]] {
        let replies = StreamTests.Replies()
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 22)
        configuration.additionalHeaders = [.cookie: cookie]
        try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/puzzler/levels/\(level)/play", configuration: configuration,
                                          logger: Logger(label: "test")) { inbound, outbound, _ in
            var iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
            for message in messages { try await outbound.write(.text(message)) }
            for _ in 0..<count {
                guard case .text(let text) = try await iterator.next() else { break }
                replies.add(text)
            }
            try? await outbound.close(.normalClosure, reason: nil)
        }
        return replies.all
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test("a guest plays: cookie, locked levels refused, a solve on the socket opens the neighbours and survives, hints and meteors by the rules")
    func guest() async throws {
        let server = try await TestServer.make()
        try await server.run { client, port in
            let first = try await client.execute(uri: "/api/v1/puzzler/progress", method: .get)
            #expect(first.status == .ok)
            let setCookie = try #require(first.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.lowercased().contains("samesite=lax"))
            let cookie = String(setCookie.split(separator: ";")[0])
            let headers: HTTPFields = [.cookie: cookie]
            let progress = try Self.json(first)
            let open = (progress["levels"] as! [[String: Any]]).filter { $0["state"] as? String == "open" }.map { $0["id"] as! String }
            #expect(open == ["eyes", "sos"])
            // The catalogue gives no hints away.
            let catalogue = try Self.json(try await client.execute(uri: "/api/v1/puzzler/levels", method: .get))
            #expect((catalogue["levels"] as! [[String: Any]]).allSatisfy { $0["hints"] == nil })

            // A locked level's socket says so and closes.
            let locked = try await Self.play(port: port, level: "turns", cookie: cookie, [], replies: 1)
            #expect(locked.first?["code"] as? String == "locked")

            // SOS: a bad message and a wrong input are answered, then nine presses solve it.
            var messages = ["not json", #"{"type": "event", "name": "online"}"#]
            messages += [100, 120, 90, 500, 600, 450, 100, 110, 80].map { #"{"type": "press", "ms": \#($0), "sentAt": 7}"# }
            let replies = try await Self.play(port: port, level: "sos", cookie: cookie, messages, replies: 11)
            #expect(replies[0]["code"] as? String == "bad_message")
            #expect(replies[1]["code"] as? String == "wrong_input")
            let solved = try #require(replies.last)
            #expect(solved["phase"] as? String == "solved" && solved["sentAt"] as? Double == 7)
            #expect(solved["opened"] as? [String] == ["drawing", "theme", "volume"])
            let after = try Self.json(try await client.execute(uri: "/api/v1/puzzler/progress", method: .get, headers: headers))
            let states = Dictionary(uniqueKeysWithValues: (after["levels"] as! [[String: Any]]).map { ($0["id"] as! String, $0["state"] as! String) })
            #expect(states["sos"] == "solved" && states["theme"] == "open" && states["offline"] == "locked")

            // Theme on the socket, then offline reported afterwards over HTTP.
            let theme = try await Self.play(port: port, level: "theme", cookie: cookie, [
                #"{"type": "event", "name": "color-scheme", "value": "light", "t": 1}"#,
                #"{"type": "event", "name": "color-scheme", "value": "dark", "t": 2}"#,
                #"{"type": "event", "name": "color-scheme", "value": "light", "t": 3}"#,
            ], replies: 3)
            #expect(theme.last?["phase"] as? String == "solved")
            func events(_ body: String) async throws -> TestResponse {
                try await client.execute(uri: "/api/v1/puzzler/levels/offline/events", method: .post,
                                         headers: [.cookie: cookie, .contentType: "application/json"], body: ByteBuffer(string: body))
            }
            let short = try Self.json(try await events(#"{"events": [{"name": "offline", "t": 1000}, {"name": "online", "t": 1500}]}"#))
            #expect(short["phase"] as? String == "playing")
            let long = try Self.json(try await events(#"{"events": [{"name": "offline", "t": 1000}, {"name": "online", "t": 4000}]}"#))
            #expect(long["phase"] as? String == "solved" && long["seconds"] as? Double == 3)
            #expect(try await events(#"{"events": "#).status == .badRequest)

            // Hints cost 50 points: a new player has none. Meteors credit no faster than they fall.
            let hint = try await client.execute(uri: "/api/v1/puzzler/levels/eyes/hints", method: .post, headers: headers)
            #expect(hint.status == .conflict && String(buffer: hint.body).contains("50 points"))
            #expect(try await client.execute(uri: "/api/v1/puzzler/levels/turns/hints", method: .post, headers: headers).status == .notFound)
            let round = try Self.json(try await client.execute(uri: "/api/v1/puzzler/meteors", method: .post, headers: headers))
            let credited = try Self.json(try await client.execute(uri: "/api/v1/puzzler/meteors/\(round["round"] as! String)", method: .post,
                                                                  headers: [.cookie: cookie, .contentType: "application/json"], body: ByteBuffer(string: #"{"caught": 50}"#)))
            #expect(credited["credited"] as? Int == 0)
            // Another device resumes by the code; a wrong code is 404.
            let code = (progress["player"] as! [String: Any])["resumeCode"] as! String
            let resumed = try await client.execute(uri: "/api/v1/puzzler/resume", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"code": "\#(code)"}"#))
            #expect(resumed.status == .ok)
            let resumedLevels = try Self.json(resumed)["levels"] as! [[String: Any]]
            #expect(resumedLevels.contains { $0["id"] as? String == "sos" && $0["state"] as? String == "solved" })
            #expect(try await client.execute(uri: "/api/v1/puzzler/resume", method: .post, headers: [.contentType: "application/json"],
                                             body: ByteBuffer(string: #"{"code": "ZZZZZZZZ"}"#)).status == .notFound)
            // The server is still up.
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }
}
