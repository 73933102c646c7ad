import Foundation
import Hummingbird
import HummingbirdWebSocket
import SentioStore

/// Pairing: `POST /api/v1/rooms` opens a room (the desktop page shows its code and QR code),
/// `GET /api/v1/rooms/{code}` tells a phone whether it exists, and the WebSocket
/// `/api/v1/rooms/{code}/events` carries what the phone's streams produce to the desktop.
struct RoomRoutes {
    let platform: Platform

    struct OpenRoom: Decodable { var purpose: String? }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/rooms") { request, context in
            var purpose = "camera"
            if request.headers[.contentType] != nil {
                purpose = try await decode(OpenRoom.self, request, context).purpose ?? purpose
            }
            guard ["camera", "motion"].contains(purpose) else { throw HTTPError(.badRequest, message: "purpose is camera or motion") }
            if let wait = platform.stillsLimiter.take("rooms " + context.client) {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(Int(wait.rounded(.up)))], message: "too many rooms opened; wait a moment")
            }
            let room = try await platform.rooms.open(purpose: purpose)
            return try Response.json(room, status: .created)
        }
        router.route(.get, "/api/v1/rooms/{code}") { _, context in
            let code = try context.parameters.require("code").uppercased()
            guard let room = try await platform.rooms.find(code) else { throw HTTPError(.notFound, message: "no open room \(code)") }
            return try Response.json(room)
        }
    }

    func register(webSocket router: Router<AppContext>) {
        let rule = AccessTable.rule(.get, "/api/v1/rooms/{code}/events")
        router.ws("/api/v1/rooms/{code}/events") { request, context in
            try AccessGuard.check(rule, context)
            let code = try context.parameters.require("code").uppercased()
            guard try await platform.rooms.find(code) != nil else { throw HTTPError(.notFound, message: "no open room \(code)") }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let code = try context.requestContext.parameters.require("code").uppercased()
            let (messages, cancel) = platform.hub.watch(room: code)
            defer { cancel() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Reading keeps the connection's pings and close handshake going; the
                    // watcher sends nothing that matters.
                    for try await _ in inbound.messages(maxSize: 4096) {}
                }
                group.addTask {
                    for await message in messages { try await outbound.writeTextMessage(message) }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}
