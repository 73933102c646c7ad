import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The live streams: `/api/v1/stream/faces`, `…/hands`, `…/pose` (binary image frames in, one
/// JSON observation out per processed frame) and `…/motion` (JSON samples in, device motion and
/// gesture events out). Options are query parameters (`maxFaces`, `iris`, `maxHands`, `room`).
struct StreamRoutes {
    let platform: Platform

    func register(webSocket router: Router<AppContext>) {
        for kind in StreamKind.allCases {
            let path = "/api/v1/stream/\(kind.rawValue)"
            let rule = AccessTable.rule(.get, path)
            router.ws(RouterPath(path)) { request, context in
                try AccessGuard.check(rule, context)
                do {
                    _ = try StreamOptions(query: request.queryDictionary)
                } catch let error as StreamError {
                    throw HTTPError(.badRequest, message: error.message)
                }
                return try platform.streamSlots.admit(client: context.client, metrics: platform.metrics)
            } onUpgrade: { inbound, outbound, context in
                let client = context.requestContext.client
                guard try await platform.streamSlots.open(client: client, outbound: outbound) else { return }
                defer { platform.streamSlots.close(client: client) }
                let options = try StreamOptions(query: context.request.queryDictionary)
                do {
                    try await StreamConnection(kind: kind, options: options, platform: platform, logger: context.logger,
                                         userAgent: context.request.headers[.userAgent])
                        .run(inbound: inbound, outbound: outbound)
                } catch is CancellationError {
                    return
                } catch let error as StreamError {
                    try? await outbound.writeTextMessage(try JSON.string(error))
                } catch {
                    // Too large a message or a broken connection: say why when the socket still can.
                    context.logger.debug("stream ended", metadata: ["stream": "\(kind.rawValue)", "error": "\(error)"])
                    try? await outbound.writeTextMessage(try JSON.string(StreamError("closed", "\(error)")))
                }
            }
        }
    }
}

/// Counts open streams against the limits, overall and per client address.
final class StreamSlots: @unchecked Sendable {
    // Unchecked: the counts are guarded by `lock`.
    private let lock = NSLock()
    private var total = 0
    private var perClient: [String: Int] = [:]
    let limits: Limits

    init(limits: Limits) { self.limits = limits }

    struct Refusal { var reason: String; var message: String }

    func refusal(client: String) -> Refusal? {
        lock.withLock {
            if total >= limits.maxStreams { return Refusal(reason: "server", message: "the server has \(total) streams open, its limit; try again shortly") }
            if perClient[client, default: 0] >= limits.maxStreamsPerClient {
                return Refusal(reason: "client", message: "at most \(limits.maxStreamsPerClient) streams per client")
            }
            return nil
        }
    }

    func open(client: String) -> Bool {
        lock.withLock {
            guard total < limits.maxStreams, perClient[client, default: 0] < limits.maxStreamsPerClient else { return false }
            total += 1
            perClient[client, default: 0] += 1
            return true
        }
    }

    /// An upgrade's answer: refused with 503 and Retry-After when the server or the client is
    /// at its limit (counted in the metrics), else go ahead.
    func admit(client: String, metrics: ServerMetrics) throws -> RouterShouldUpgrade {
        if let refusal = refusal(client: client) {
            metrics.streamRefused(reason: refusal.reason)
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: refusal.message)
        }
        return .upgrade([:])
    }

    /// Takes a slot for an upgraded socket; when the limit was reached since the upgrade was
    /// admitted, tells the socket so, closes it and answers false. A true answer is closed
    /// with ``close(client:)``.
    func open(client: String, outbound: WebSocketOutboundWriter) async throws -> Bool {
        guard open(client: client) else {
            try await outbound.writeTextMessage(try JSON.string(StreamError("too_many_streams", "the server is at its stream limit; try again shortly")))
            try await outbound.close(.unknown(1013), reason: "stream limit")
            return false
        }
        return true
    }

    func close(client: String) {
        lock.withLock {
            total -= 1
            perClient[client, default: 1] -= 1
            if perClient[client] == 0 { perClient[client] = nil }
        }
    }

    var open: Int { lock.withLock { total } }
}
