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
            router.socket("/api/v1/stream/\(kind.rawValue)", name: kind.rawValue, pool: .streams, platform: platform) { request, context in
                let options: StreamOptions
                do {
                    options = try StreamOptions(query: request.queryDictionary)
                } catch let error as StreamError {
                    throw HTTPError(.badRequest, message: error.message)
                }
                // The room is looked up once, here, with wrong codes counted against the client
                // (an unknown room is told on the socket, where the page shows it).
                guard let code = options.room else { return (options, true) }
                let found = try await platform.lookUpCode(context) { try await platform.rooms.find(code) }
                return (options, found != nil)
            } run: { resolved, inbound, outbound, context in
                try await StreamConnection(kind: kind, options: resolved.0, platform: platform, logger: context.logger,
                                           userAgent: context.request.headers[.userAgent], roomFound: resolved.1)
                    .run(inbound: inbound, outbound: outbound)
            }
        }
    }
}
