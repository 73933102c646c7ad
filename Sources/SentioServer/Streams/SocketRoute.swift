import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTPTypes

/// Which pool of sockets a WebSocket route draws from.
enum SocketPool: String, Sendable {
    /// Sockets that bring compute work (image and motion streams, kiosks, puzzle levels).
    case streams
    /// Room watchers: cheap, but each still a socket and a subscription.
    case watchers
}

/// The one way a WebSocket route is made (issue 35, item 5; issue 34, findings 2 and 3): the
/// access rule checked, the route's inputs resolved once (before the upgrade, and handed to
/// the socket as they were), a slot taken from the route's pool before the upgrade and given
/// back when the socket ends, the socket counted in the metrics, and every refusal answered
/// with its real status and reason (503 with `Retry-After` when full) rather than
/// Hummingbird's bare 400.
extension Router where Context == AppContext {
    func socket<Resolved: Sendable>(
        _ path: String, name: String, pool: SocketPool, platform: Platform,
        resolve: @escaping @Sendable (Request, AppContext) async throws -> Resolved,
        run: @escaping @Sendable (Resolved, WebSocketInboundStream, WebSocketOutboundWriter, WebSocketRouterContext<AppContext>) async throws -> Void
    ) {
        let rule = AccessTable.rule(.get, path)
        let sockets = platform.sockets
        ws(RouterPath(path)) { request, context in
            do {
                try AccessGuard.check(rule, context)
                let resolved = try await resolve(request, context)
                let slot = try sockets.slots(pool).take(SlotOwner(context), metrics: platform.metrics)
                sockets.hold(context.channel, Pending(resolved: resolved, slot: slot, pool: pool))
                return .upgrade([:])
            } catch {
                sockets.refuse(context.channel, error)
                throw error
            }
        } onUpgrade: { inbound, outbound, context in
            guard let pending = sockets.take(context.requestContext.channel) as? Pending<Resolved> else {
                try? await outbound.close(.unexpectedServerError, reason: "no slot")
                return
            }
            defer { sockets.slots(pool).give(pending.slot) }
            platform.metrics.streamOpened(name)
            defer { platform.metrics.streamClosed(name) }
            do {
                try await run(pending.resolved, inbound, outbound, context)
            } catch is CancellationError {
                return
            } catch let error as StreamError {
                try? await outbound.writeTextMessage(try JSON.string(error))
            } catch let error as MessageTooLarge {
                try? await outbound.writeTextMessage(try JSON.string(StreamError(.tooLarge, error.description)))
                try? await outbound.close(.messageTooLarge, reason: "message too large")
            } catch {
                // Too large a message or a broken connection: say why when the socket still can.
                context.logger.debug("socket ended", metadata: ["socket": "\(name)", "error": "\(error)"])
                try? await outbound.writeTextMessage(try JSON.string(StreamError(.closed, "\(error)")))
            }
        }
    }
}

/// What a route resolved before its upgrade, and its slot, waiting for the socket.
struct Pending<Resolved: Sendable>: Sendable, SlotHolding {
    var resolved: Resolved
    var slot: SlotOwner
    var pool: SocketPool

    func release(_ sockets: Sockets) { sockets.slots(pool).give(slot) }
}

/// Who holds a slot: a kiosk device (counted per device), a signed-in user (counted per user,
/// wherever they are: a lecture hall shares one address), or a guest (counted per address).
struct SlotOwner: Hashable, Sendable {
    var key: String
    var signedIn: Bool

    init(_ context: AppContext) {
        if let kiosk = context.kiosk {
            // A kiosk is a lecture's device, as trusted as its operator's account.
            key = "kiosk " + kiosk.id
            signedIn = true
        } else if let user = context.identity?.user {
            key = "user " + user.id
            signedIn = true
        } else {
            key = "address " + context.client
            signedIn = false
        }
    }
}

/// A pool's slots: in all, per owner, and a share kept for signed-in users (attendance,
/// players with accounts) that guests cannot take (issue 34, finding 3).
final class SocketSlots: @unchecked Sendable {
    // Unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var open: [SlotOwner: Int] = [:]
    private var total = 0
    private var guests = 0
    let pool: SocketPool
    /// Slots in all; of them, the most guests may hold together; per owner.
    let limit: Int, guestLimit: Int, perGuest: Int, perUser: Int

    init(pool: SocketPool, limit: Int, reserved: Int, perGuest: Int, perUser: Int) {
        self.pool = pool
        self.limit = limit
        guestLimit = max(0, limit - reserved)
        self.perGuest = perGuest
        self.perUser = perUser
    }

    /// Takes a slot for `owner`, or throws the 503 that says which limit was reached.
    func take(_ owner: SlotOwner, metrics: ServerMetrics) throws -> SlotOwner {
        let refusal: (reason: String, message: String)? = lock.withLock {
            let mine = open[owner] ?? 0
            if total >= limit { return ("server", "the server has \(total) \(pool.rawValue) open, its limit; try again shortly") }
            if owner.signedIn, mine >= perUser { return ("client", "at most \(perUser) \(pool.rawValue) per user") }
            if !owner.signedIn {
                if mine >= perGuest { return ("client", "at most \(perGuest) \(pool.rawValue) per address without signing in") }
                if guests >= guestLimit {
                    return ("guests", "the \(pool.rawValue) open to guests are all taken (the rest are kept for signed-in users); try again shortly")
                }
                guests += 1
            }
            open[owner] = mine + 1
            total += 1
            return nil
        }
        if let refusal {
            metrics.streamRefused(reason: refusal.reason)
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: refusal.message)
        }
        return owner
    }

    func give(_ owner: SlotOwner) {
        lock.withLock {
            total -= 1
            if !owner.signedIn { guests -= 1 }
            let mine = (open[owner] ?? 1) - 1
            open[owner] = mine > 0 ? mine : nil
        }
    }

    var count: Int { lock.withLock { total } }
}

/// The sockets' shared state: the pools, the values resolved before each upgrade and the
/// refusals waiting to be written, both keyed by connection.
final class Sockets: @unchecked Sendable {
    let streams: SocketSlots
    let watchers: SocketSlots
    // Unchecked: `pending` and `refusals` are guarded by `lock`.
    private let lock = NSLock()
    private var pending: [ObjectIdentifier: any Sendable] = [:]
    private var refusals: [ObjectIdentifier: any Error] = [:]

    init(limits: Limits) {
        streams = SocketSlots(pool: .streams, limit: limits.maxStreams, reserved: limits.reservedStreams,
                              perGuest: limits.maxStreamsPerClient, perUser: limits.maxStreamsPerUser)
        watchers = SocketSlots(pool: .watchers, limit: limits.maxWatchers, reserved: limits.maxWatchers / 4,
                               perGuest: limits.maxWatchersPerClient, perUser: limits.maxWatchersPerClient)
    }

    func slots(_ pool: SocketPool) -> SocketSlots { pool == .streams ? streams : watchers }

    /// Keeps `value` for the socket of `channel` (forgotten when the connection closes).
    func hold(_ channel: any Channel, _ value: any Sendable) {
        let id = ObjectIdentifier(channel)
        let stale: (any Sendable)? = lock.withLock {
            defer { pending[id] = value }
            return pending[id]
        }
        if let stale = stale as? any SlotHolding { stale.release(self) }
        channel.closeFuture.whenComplete { [weak self] _ in
            guard let self, let left = self.take(channel) as? any SlotHolding else { return }
            left.release(self)  // the upgrade never happened: give the slot back
        }
    }

    func take(_ channel: any Channel) -> (any Sendable)? {
        lock.withLock { pending.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Keeps why the upgrade of `channel` was refused, for ``UpgradeRefusalWriter``.
    func refuse(_ channel: any Channel, _ error: any Error) {
        lock.withLock { refusals[ObjectIdentifier(channel)] = error }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.lock.withLock { self?.refusals.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    func takeRefusal(_ channel: any Channel) -> (any Error)? {
        lock.withLock { refusals.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// A pending value that holds a slot to give back when its upgrade never happens.
protocol SlotHolding {
    func release(_ sockets: Sockets)
}

/// Hummingbird answers a refused WebSocket upgrade with a bare 400 whatever the reason; this
/// handler, on the connection's HTTP parts, writes the refusal the route recorded instead:
/// its status, `Retry-After` and message (503 when full, 401, 403, 404, 400 with the reason).
final class UpgradeRefusalWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
    let sockets: Sockets
    private var body: ByteBuffer?

    init(sockets: Sockets) { self.sockets = sockets }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status == .badRequest && head.headerFields[.contentLength] == "0":
            guard let error = sockets.takeRefusal(context.channel) else { break }
            let (status, headers, message) = Self.describe(error)
            let json = (try? JSONEncoder().encode(["error": ["message": message]])) ?? Data()
            head.status = status
            for field in headers { head.headerFields[field.name] = field.value }
            head.headerFields[.contentType] = "application/json; charset=utf-8"
            head.headerFields[.contentLength] = String(json.count)
            body = ByteBuffer(data: json)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .end:
            if let body {
                self.body = nil
                context.write(wrapOutboundOut(.body(body)), promise: nil)
            }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    static func describe(_ error: any Error) -> (HTTPResponse.Status, HTTPFields, String) {
        switch error {
        case let error as HTTPError: (error.status, error.headers, error.body ?? error.status.reasonPhrase)
        case let error as any StatusError:
            (error.status, error.retryAfter.map { [.retryAfter: String($0)] } ?? [:], error.description)
        case let error as any HTTPResponseError: (error.status, [:], "\(error)")
        default: (.internalServerError, [:], "the upgrade failed")
        }
    }
}
