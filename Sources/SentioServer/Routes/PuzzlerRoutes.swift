import Foundation
import Hummingbird
import HummingbirdWebSocket
import Puzzler
import SentioStore

/// The puzzle game's API (docs/puzzler-api.md; the pages are in Public/puzzler). A thin layer:
/// the rules and the judges live in the Puzzler module.
///
/// A signed-in user plays as their account; anyone else as a guest known by the
/// `sentio_puzzler` cookie, which the first call (usually `GET /api/v1/puzzler/progress`) sets.
struct PuzzlerRoutes {
    let platform: Platform
    static let cookie = "sentio_puzzler"

    struct Progress: Encodable {
        struct PlayerInfo: Encodable { var kind: String; var name: String?; var resumeCode: String }
        var player: PlayerInfo
        var points: Int
        var meteors: Int
        var hintCost: Int
        var levels: [LevelProgress]
    }
    struct Resume: Decodable { var code: String }
    struct Caught: Decodable { var caught: Int }
    struct Pair: Decodable { var level: String }
    struct Paired: Encodable { var code: String; var level: String; var url: String; var qr: String }
    struct Events: Decodable { var events: [DeviceEvent] }

    func register(on router: Router<AppContext>) {
        router.route(.get, "/api/v1/puzzler/levels") { _, _ in
            struct Levels: Encodable { var levels: [LevelInfo] }
            return try Response.json(Levels(levels: Catalogue.levels.map(LevelInfo.init)))
        }
        router.route(.get, "/api/v1/puzzler/progress") { request, context in
            let (player, token) = try await player(request, context, create: true)
            var response = try Response.json(try await progress(player, context))
            if let token { setCookie(&response, token) }
            return response
        }
        router.route(.post, "/api/v1/puzzler/resume") { request, context in
            if context.identity != nil {
                throw HTTPError(.conflict, message: "you are signed in: your account's progress is the one you play; sign out to resume a guest's game")
            }
            try platform.stillsLimiter.admit("puzzler-resume " + context.client) { _ in "too many tries; wait a moment" }
            let body = try await decode(Resume.self, request, context)
            // A resume code is a password of sorts: wrong ones are counted like wrong room codes.
            let resumed = try await platform.lookUpCode(context) { () async throws -> (Player, token: String)? in
                do { return try await platform.puzzler.resume(code: body.code) } catch PuzzlerError.unknownCode { return nil }
            }
            guard let resumed else { throw HTTPError(.notFound, message: PuzzlerError.unknownCode.description) }
            let (player, token) = resumed
            var response = try Response.json(try await progress(player, context))
            setCookie(&response, token)
            return response
        }
        router.route(.post, "/api/v1/puzzler/levels/{level}/hints") { request, context in
            let level = try levelID(context)
            let (player, token) = try await player(request, context, create: true)
            struct Bought: Encodable { var tier: Int; var text: String; var points: Int }
            let bought = try await platform.puzzler.buyHint(player: player.id, level: level)
            return withCookie(token, try Response.json(Bought(tier: bought.tier, text: bought.text, points: bought.points)))
        }
        router.route(.post, "/api/v1/puzzler/levels/{level}/events") { request, context in
            let level = try levelID(context)
            guard Catalogue.level(level).sense == .device else {
                throw HTTPError(.badRequest, message: "only device levels take a reported list of events; \(level.rawValue) is played on its socket")
            }
            let (player, token) = try await player(request, context, create: true)
            let body = try await decode(Events.self, request, context)
            guard body.events.count <= 200 else { throw HTTPError(.contentTooLarge, message: "at most 200 events") }
            let state = try await platform.puzzler.state(of: player.id, level: level)
            guard state != .locked else { throw HTTPError(.notFound, message: PuzzlerError.locked(level).description) }
            let judge = try LevelPlayer(level: level, store: platform.perception.store)
            var report = LevelReport(progress: 0, message: "No events.")
            for event in body.events { report = try judge.event(event) }
            var reply = LevelReply(level: level.rawValue, phase: report.phase.rawValue, progress: report.progress, message: report.message,
                                   detail: report.detail, serverMs: 0, waitMs: 0)
            if report.phase == .solved, state == .open {
                let times = body.events.compactMap(\.t)
                let seconds = ((times.max() ?? 0) - (times.min() ?? 0)) / 1000
                reply.opened = try await platform.puzzler.solve(player: player.id, level: level, seconds: seconds).map(\.rawValue)
                reply.seconds = seconds
            }
            return withCookie(token, try Response.json(reply))
        }
        router.route(.post, "/api/v1/puzzler/meteors") { request, context in
            let (player, token) = try await player(request, context, create: true)
            return withCookie(token, try Response.json(try await platform.puzzler.startRound(player: player.id), status: .created))
        }
        router.route(.post, "/api/v1/puzzler/meteors/{round}") { request, context in
            let (player, token) = try await player(request, context, create: true)
            let round = try context.parameters.require("round")
            let body = try await decode(Caught.self, request, context)
            struct Credited: Encodable { var credited: Int; var points: Int }
            let result = try await platform.puzzler.credit(player: player.id, round: round, caught: body.caught)
            return withCookie(token, try Response.json(Credited(credited: result.credited, points: result.points)))
        }
        router.route(.post, "/api/v1/puzzler/pair") { request, context in
            let (player, token) = try await player(request, context, create: true)
            let body = try await decode(Pair.self, request, context)
            guard let level = LevelID(rawValue: body.level) else { throw HTTPError(.badRequest, message: PuzzlerError.unknownLevel(body.level).description) }
            guard try await platform.puzzler.state(of: player.id, level: level) != .locked else {
                throw HTTPError(.notFound, message: PuzzlerError.locked(level).description)
            }
            try platform.stillsLimiter.admit("rooms " + context.client) { _ in "too many rooms opened; wait a moment" }
            let room = try await platform.rooms.open(purpose: "puzzler")
            try await platform.puzzler.pair(code: room.code, player: player.id, level: level)
            let url = RoomRoutes(platform: platform).joinURL(code: room.code, purpose: room.purpose, request: request) + "&level=\(level.rawValue)"
            return withCookie(token, try Response.json(Paired(code: room.code, level: level.rawValue, url: url, qr: "/api/v1/rooms/\(room.code)/qr.svg"), status: .created))
        }
        router.route(.get, "/api/v1/puzzler/pairings/{code}") { _, context in
            let code = try context.parameters.require("code").uppercased()
            let pairing = try await openPairing(code, context)
            struct Pairing: Encodable { var code: String; var level: LevelInfo }
            return try Response.json(Pairing(code: code, level: LevelInfo(Catalogue.level(pairing.level))))
        }
        router.route(.get, "/api/v1/puzzler/difficulty") { _, _ in
            struct Difficulty: Encodable { var levels: [LevelDifficulty] }
            return try Response.json(Difficulty(levels: try await platform.puzzler.difficulty()))
        }
    }

    func register(webSocket router: Router<AppContext>) {
        struct Play: Sendable { var level: LevelID; var player: String; var room: String?; var rate: Int }
        router.socket("/api/v1/puzzler/levels/{level}/play", name: "puzzler", pool: .streams, platform: platform) { request, context in
            let query = request.queryDictionary
            let level = try levelID(context)
            if let rate = query["rate"], !(Int(rate).map { (8000...96000).contains($0) } ?? false) {
                throw HTTPError(.badRequest, message: "rate is the audio's sample rate, 8000…96000")
            }
            let player = try await playingPlayer(request, context, room: query["room"])
            return Play(level: level, player: player, room: query["room"]?.uppercased(), rate: query["rate"].flatMap(Int.init) ?? 48000)
        } run: { play, inbound, outbound, context in
            try await PuzzlerConnection(level: play.level, player: play.player, room: play.room, sampleRate: play.rate,
                                        platform: platform, logger: context.logger, userAgent: context.request.headers[.userAgent])
                .run(inbound: inbound, outbound: outbound)
        }
    }

    // MARK: Helpers

    /// The catalogue's view of a level for the pages (no hints: those are bought).
    struct LevelInfo: Encodable {
        var id: String, number: Int, title: String, clue: String, sense: String
        var x: Double, y: Double, neighbours: [String], needsPhone: Bool
        var browserSignal: String?, alternative: String?
        init(_ level: Level) {
            (id, number, title, clue, sense) = (level.id.rawValue, level.number, level.title, level.clue, level.sense.rawValue)
            (x, y, neighbours, needsPhone) = (level.x, level.y, level.neighbours.map(\.rawValue), level.needsPhone)
            (browserSignal, alternative) = (level.browserSignal, level.alternative)
        }
    }

    func levelID(_ context: AppContext) throws -> LevelID {
        let text = try context.parameters.require("level")
        guard let level = LevelID(rawValue: text) else { throw HTTPError(.notFound, message: PuzzlerError.unknownLevel(text).description) }
        return level
    }

    /// The player asking: the account's, else the device cookie's guest; a new guest when
    /// `create` (with the cookie's token to set), else 401.
    func player(_ request: Request, _ context: AppContext, create: Bool) async throws -> (Player, token: String?) {
        if let identity = context.identity { return (try await platform.puzzler.player(user: identity.user.id), nil) }
        if let token = request.cookies[Self.cookie]?.value, token.count == 64, token.allSatisfy(\.isHexDigit),
           let player = try await platform.puzzler.player(deviceToken: token) {
            return (player, nil)
        }
        // A caller with no player yet becomes a new guest on any route but the level's socket
        // (an upgrade sets no cookie).
        guard create else { throw HTTPError(.unauthorized, message: "open the game's map first (it makes you a guest player), or sign in") }
        try platform.stillsLimiter.admit("puzzler-guest " + context.client) { _ in "too many new players from here; wait a moment" }
        let (player, token) = try await platform.puzzler.newGuest()
        return (player, token)
    }

    /// Who plays on a level's socket: a paired phone plays for the room's player (the room must
    /// be open and paired for this level); anyone else for themselves.
    func playingPlayer(_ request: Request, _ context: AppContext, room: String?) async throws -> String {
        if let room {
            let code = room.uppercased()
            let pairing = try await openPairing(code, context)
            guard pairing.level == (try levelID(context)) else {
                throw HTTPError(.badRequest, message: "room \(code) was paired for the \(pairing.level.rawValue) level")
            }
            return pairing.player
        }
        return try await player(request, context, create: false).0.id
    }

    /// The player and level of an open room paired for the game; 404 otherwise.
    func openPairing(_ code: String, _ context: AppContext) async throws -> (player: String, level: LevelID) {
        let found = try await platform.lookUpCode(context) { () async throws -> (player: String, level: LevelID)? in
            guard try await platform.rooms.find(code) != nil else { return nil }
            return try await platform.puzzler.pairing(code: code)
        }
        guard let pairing = found else {
            throw HTTPError(.notFound, message: "no open room \(code) for the puzzle game; pair again from the level's page")
        }
        return pairing
    }

    func progress(_ player: Player, _ context: AppContext) async throws -> Progress {
        Progress(player: .init(kind: player.userID == nil ? "guest" : "account", name: context.identity?.user.displayName, resumeCode: player.resumeCode),
                 points: player.points, meteors: player.meteors, hintCost: Catalogue.hintCost, levels: try await platform.puzzler.levels(of: player.id))
    }

    /// `response`, setting the new guest's cookie when there is one.
    func withCookie(_ token: String?, _ response: Response) -> Response {
        var response = response
        if let token { setCookie(&response, token) }
        return response
    }

    func setCookie(_ response: inout Response, _ token: String) {
        // Lax, not Strict: a player following a link to the game from elsewhere must arrive as
        // themselves, not as a new guest. Unsafe requests are still same-origin only.
        response.setCookie(Cookie(name: Self.cookie, value: token, maxAge: 400 * 24 * 3600, path: "/",
                                  secure: platform.secureCookies, httpOnly: true, sameSite: .lax))
    }
}
