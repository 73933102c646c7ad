import Foundation
import HTTPTypes
import HummingbirdTesting
import IVScanner
import NIOCore
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// The IV application over HTTP: a player's collection is theirs alone, entries are evaluated
/// for guests too, and bad input gets a 4xx with the reason.
@Suite("IV application over HTTP", .timeLimit(.minutes(5)))
struct IVRouteTests {
    static let password = "correct horse battery"

    @Test("another player's Pokémon is not found; the owner reads, edits, exports and deletes it")
    func owners() async throws {
        let server = try await TestServer.make()
        _ = try await server.platform.createUser(username: "ash", displayName: nil, role: .player, password: Self.password)
        _ = try await server.platform.createUser(username: "gary", displayName: nil, role: .player, password: Self.password)
        try await server.run { client, _ in
            let ash = try await SignedIn.signIn(client, "ash", Self.password)
            let gary = try await SignedIn.signIn(client, "gary", Self.password)
            // A Machop of 10/12/5 at level 20, as the game shows it (Stats computes the numbers).
            let data = try GameData.shared
            let machop = try data.species("Machop"), level = try #require(data.levels.first { $0.level == 20 })
            let cp = Stats.cp(machop, attack: 10, defense: 12, stamina: 5, cpm: level.cpMultiplier)
            let hp = Stats.hp(machop, stamina: 5, cpm: level.cpMultiplier)
            let entry = #"{"entry": {"species": "Machop", "cp": \#(cp), "hp": \#(hp), "stardust": \#(level.stardust)}}"#
            var json = ash.headers
            json[.contentType] = "application/json"
            let saved = try await client.execute(uri: "/api/v1/iv/collection", method: .post, headers: json, body: ByteBuffer(string: entry))
            #expect(saved.status == .created, "\(saved.body.text)")
            let id = try #require((try saved.body.json()["pokemon"] as? [String: Any])?["id"] as? String)

            var garyJSON = gary.headers
            garyJSON[.contentType] = "application/json"
            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .get, headers: gary.headers).status == .notFound)
            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .put, headers: garyJSON,
                                             body: ByteBuffer(string: #"{"entry": {"species": "Machop", "cp": \#(cp), "hp": \#(hp)}}"#)).status == .notFound)
            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .delete, headers: gary.headers).status == .notFound)
            let garyList = try await client.execute(uri: "/api/v1/iv/collection", method: .get, headers: gary.headers)
            #expect(garyList.status == .ok && garyList.body.text == "[]")
            let garyCSV = try await client.execute(uri: "/api/v1/iv/collection.csv", method: .get, headers: gary.headers)
            #expect(garyCSV.body.text.split(separator: "\n").count == 1, "only the header")

            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .get, headers: ash.headers).status == .ok)
            let csv = try await client.execute(uri: "/api/v1/iv/collection.csv", method: .get, headers: ash.headers)
            #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.body.text.contains(",Machop,"))
            let impossible = try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .put, headers: json,
                                                      body: ByteBuffer(string: #"{"entry": {"species": "Machop", "cp": 4000, "hp": \#(hp)}}"#))
            #expect(impossible.status == .unprocessableContent && impossible.body.text.contains("No IV combination gives CP 4000"))
            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .delete, headers: ash.headers).status == .noContent)
            #expect(try await client.execute(uri: "/api/v1/iv/collection/\(id)", method: .get, headers: ash.headers).status == .notFound)
        }
    }

    @Test("a guest evaluates an entry: combinations, and for the only one its plan and league ranks; bad entries are 4xx with the reason")
    func evaluate() async throws {
        let server = try await TestServer.make()
        try await server.run { client, _ in
            let data = try GameData.shared
            let dratini = try data.species("Dratini"), level = try #require(data.levels.first { $0.level == 20 })
            let cp = Stats.cp(dratini, attack: 15, defense: 15, stamina: 15, cpm: level.cpMultiplier)
            let hp = Stats.hp(dratini, stamina: 15, cpm: level.cpMultiplier)
            let body = #"{"entry": {"species": "Dratini", "cp": \#(cp), "hp": \#(hp), "level": 20, "appraisal": {"kind": "stars", "stars": 4}}}"#
            let r = try await client.execute(uri: "/api/v1/iv/evaluate", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
            #expect(r.status == .ok)
            let json = try r.body.json()
            #expect((json["combinations"] as? [Any])?.count == 1)
            let lines = try #require(json["leagues"] as? [[String: Any]])
            #expect(lines.compactMap { ($0["species"] as? [String: Any])?["name"] as? String } == ["Dratini", "Dragonair", "Dragonite"])
            #expect((json["plan"] as? [[String: Any]])?.last?["level"] as? Double == 50)
            for (bad, reason) in [(#"{"entry": {"species": "Notamon", "cp": 100, "hp": 30}}"#, "unknown species"),
                                  (#"{"entry": {"species": "Pidgey", "cp": 5, "hp": 30}}"#, "cp: expected 10–100000"),
                                  (#"{"entry": {"species": "Pidgey", "cp": 100, "hp": 30, "obtained": "stolen"}}"#, "'stolen' is not one of")] {
                let answer = try await client.execute(uri: "/api/v1/iv/evaluate", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: bad))
                #expect((400...422).contains(answer.status.code) && answer.body.text.contains(reason), "\(bad): \(answer.status) \(answer.body.text)")
            }
            #expect(try await client.execute(uri: "/api/v1/iv/species/Notamon", method: .get).status == .notFound)
            let info = try await client.execute(uri: "/api/v1/iv/species/Dratini", method: .get)
            #expect(info.status == .ok && info.body.text.contains("Dragonite"))
        }
    }
}
