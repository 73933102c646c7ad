import Foundation
import Hummingbird
import HummingbirdWebSocket
import SentioStore

/// Pairing: `POST /api/v1/rooms` opens a room (the desktop page shows its code and QR code),
/// `GET /api/v1/rooms/{code}` tells a phone whether it exists, and the WebSocket
/// `/api/v1/rooms/{code}/events` carries what the phone's streams produce to the desktop, and
/// the desktop's ``ControllerFeedback`` back to each phone (the arcade's controller screens).
struct RoomRoutes {
    let platform: Platform

    struct OpenRoom: Decodable { var purpose: String? }
    struct OpenedRoom: Encodable {
        var room: Room
        /// What the phone opens (also the QR code's content).
        var joinURL: String
    }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/rooms") { request, context in
            var purpose = "camera"
            if request.headers[.contentType] != nil {
                purpose = try await decode(OpenRoom.self, request, context).purpose ?? purpose
            }
            guard ["camera", "motion", "arcade"].contains(purpose) else { throw HTTPError(.badRequest, message: "purpose is camera, motion or arcade") }
            try platform.stillsLimiter.admit("rooms " + context.client) { _ in "too many rooms opened; wait a moment" }
            let room = try await platform.rooms.open(purpose: purpose)
            return try Response.json(OpenedRoom(room: room, joinURL: joinURL(code: room.code, purpose: room.purpose, request: request)), status: .created)
        }
        router.route(.get, "/api/v1/rooms/{code}") { _, context in
            let code = try context.parameters.require("code").uppercased()
            guard let room = try await platform.lookUpCode(context, { try await platform.rooms.find(code) }) else {
                throw HTTPError(.notFound, message: "no open room \(code)")
            }
            return try Response.json(room)
        }
        router.route(.get, "/api/v1/rooms/{code}/qr.svg") { request, context in
            let code = try context.parameters.require("code").uppercased()
            guard let room = try await platform.lookUpCode(context, { try await platform.rooms.find(code) }) else {
                throw HTTPError(.notFound, message: "no open room \(code)")
            }
            guard let qr = QRCode(joinURL(code: code, purpose: room.purpose, request: request)) else { throw HTTPError(.internalServerError, message: "the address is too long for a QR code") }
            return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: qr.svg)))
        }
    }

    /// The address a phone opens to join `code`: the server's HTTPS address on the network when
    /// there is one (phones need HTTPS for the camera and sensors), else the page's own origin;
    /// an arcade room's phone opens the arcade, the others the pairing page.
    func joinURL(code: String, purpose: String, request: Request) -> String {
        let origin = platform.addresses.value.phone.first
            ?? "\(request.head.scheme ?? "http")://\(request.head.authority ?? "127.0.0.1")"
        switch purpose {
        case "arcade": return "\(origin)/arcade/?room=\(code)"
        case "puzzler": return "\(origin)/puzzler/phone.html?room=\(code)"
        default: return "\(origin)/pair/?room=\(code)"
        }
    }

    /// A watcher's feedback messages a second (a game sends a few: a ring, a basket, a score).
    static let feedbackPerSecond = 30

    /// One message from a watcher: ``ControllerFeedback`` checked and re-encoded, delivered to
    /// the phone it names; anything else is answered with an error on the watcher's socket.
    private func relayFeedback(_ message: WebSocketMessage, room: String, outbound: WebSocketOutboundWriter) async throws {
        guard case .text(let text) = message, let feedback = try? JSONDecoder().decode(ControllerFeedback.self, from: Data(text.utf8)) else {
            try await outbound.writeTextMessage(try JSON.string(StreamError(.badMessage, "a watcher sends JSON text: {\"type\": \"feedback\", \"controller\": …}")))
            return
        }
        if let problem = feedback.problem {
            try await outbound.writeTextMessage(try JSON.string(StreamError(.badMessage, problem)))
            return
        }
        await platform.hub.publish(room: ControllerFeedback.key(room: room, controller: feedback.controller), json: try JSON.string(feedback))
    }

    func register(webSocket router: Router<AppContext>) {
        router.socket("/api/v1/rooms/{code}/events", name: "watcher", pool: .watchers, platform: platform) { _, context in
            let code = try context.parameters.require("code").uppercased()
            guard try await platform.lookUpCode(context, { try await platform.rooms.find(code) }) != nil else {
                throw HTTPError(.notFound, message: "no open room \(code)")
            }
            return code
        } run: { code, inbound, outbound, _ in
            let (messages, cancel) = platform.hub.watch(room: code)
            defer { cancel() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Reading keeps the connection's pings and close handshake going, and
                    // carries the big screen's feedback to its phones.
                    var window = (second: ContinuousClock.now, count: 0)
                    for try await message in inbound.boundedMessages(maxSize: 4096) {
                        let now = ContinuousClock.now
                        if now - window.second > .seconds(1) { window = (now, 0) }
                        window.count += 1
                        guard window.count <= Self.feedbackPerSecond else {
                            if window.count == Self.feedbackPerSecond + 1 {
                                try await outbound.writeTextMessage(try JSON.string(StreamError(.badMessage, "at most \(Self.feedbackPerSecond) feedback messages a second; the rest of this second's are dropped")))
                            }
                            continue
                        }
                        try await relayFeedback(message, room: code, outbound: outbound)
                    }
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
