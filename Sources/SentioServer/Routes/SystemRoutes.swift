import Foundation
import Hummingbird

/// `/healthz`, `/metrics`, `/api/v1/openapi.json`, the pages and Debian's browser libraries.
struct SystemRoutes {
    let platform: Platform

    func register(on router: Router<AppContext>) {
        router.route(.get, "/healthz") { _, _ in
            try Response.json(["status": "ok", "database": platform.store.kind.rawValue])
        }
        router.route(.get, "/metrics") { _, _ in
            platform.metrics.sessions(open: platform.streamSlots.open)
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
