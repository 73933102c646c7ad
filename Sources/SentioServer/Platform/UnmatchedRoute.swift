import HTTPTypes
import Hummingbird

/// Answers a request no route took. A known path asked with a method it does not have gets
/// 405 with `Allow` (RFC 9110 §15.5.6), not Hummingbird's bare 404 that told a client the path
/// itself was wrong; an unknown path under `/api/` gets a 404 that says so, in the API's JSON
/// error shape. Pages keep the file server's 404.
struct UnmatchedRoute: RouterMiddleware {
    typealias Context = AppContext

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            let allowed = Self.methods(forPath: request.uri.path)
            if !allowed.isEmpty {
                var refusal = HTTPError(.methodNotAllowed, message: "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method.rawValue)")
                refusal.headers[.allow] = allowed.joined(separator: ", ")
                throw refusal
            }
            if request.uri.path.hasPrefix("/api/") {
                throw HTTPError(.notFound, message: "no API route \(request.uri.path) (the routes are in /api/v1/openapi.json)")
            }
            throw error
        }
    }

    /// The methods the access table registers for a concrete path, a `{parameter}` standing
    /// for any one non-empty segment.
    static func methods(forPath path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var methods: [String] = []
        for rule in AccessTable.rules where matches(rule.path, segments) {
            if !methods.contains(rule.method.rawValue) { methods.append(rule.method.rawValue) }
        }
        return methods.sorted()
    }

    private static func matches(_ pattern: String, _ segments: [Substring]) -> Bool {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return false }
        return zip(parts, segments).allSatisfy { part, segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? !segment.isEmpty : part == segment
        }
    }
}
