import Foundation
import Hummingbird

/// `/healthz`, `/metrics`, `/api/v1/openapi.json`, the pages and Debian's browser libraries.
struct SystemRoutes {
    let platform: Platform

    func register(on router: Router<AppContext>) {
        router.route(.get, "/healthz") { _, _ in
            try Response.json(["status": "ok", "database": platform.store.kind.rawValue])
        }
        router.route(.get, "/metrics") { _, context in
            // The metrics tell who is busy and how (routes, streams, refusals): for a scraper on
            // this machine (or through an SSH tunnel), or the administrator; never the world
            // (issue 34, finding 12).
            guard PlainHTTPRedirect.isLoopback(context.client) || context.identity?.user.role == .admin else {
                throw HTTPError(.forbidden, message: "the metrics are served to this machine's own address or the administrator")
            }
            platform.metrics.sessions(open: platform.sockets.streams.count)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(bytes: platform.metrics.registry.emitToBuffer())))
        }
        router.route(.get, "/api/v1/openapi.json") { _, _ in
            guard let data = FileManager.default.contents(atPath: platform.publicDirectory + "/api/openapi.json") else {
                throw HTTPError(.internalServerError, message: "the OpenAPI document is missing from the server's files")
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data)))
        }
    }
}
