import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SentioStore

/// Reads the session cookie into `context.identity`, and guards unsafe requests against
/// cross-site forgery: a signed-in POST/PUT/PATCH/DELETE must carry the session's CSRF token in
/// `X-CSRF-Token`, and any unsafe request from a page of another origin is refused.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = AppContext
    static let cookie = "sentio_session"
    let accounts: Accounts

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        var context = context
        if let token = request.cookies[Self.cookie]?.value, token.count == 64, token.allSatisfy(\.isHexDigit) {
            let hash = SessionToken.hash(token)
            if let (session, user) = try await accounts.session(tokenHash: hash) {
                context.identity = Identity(user: user, csrfToken: session.csrfToken, tokenHash: hash)
            }
        }
        if ![.get, .head, .options].contains(request.method) {
            if let origin = request.headers[.origin], origin != "null", !Self.sameOrigin(origin, request) {
                throw HTTPError(.forbidden, message: "cross-site request refused (Origin \(origin))")
            }
            if let identity = context.identity, request.headers[.csrfToken] != identity.csrfToken {
                throw HTTPError(.forbidden, message: "missing or wrong X-CSRF-Token (the token comes with the sign-in and from GET /api/v1/session)")
            }
        }
        return try await next(request, context)
    }

    /// Whether the Origin header names the host the request was sent to.
    static func sameOrigin(_ origin: String, _ request: Request) -> Bool {
        guard let host = request.head.authority else { return false }
        guard let url = URL(string: origin), let originHost = url.host else { return false }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority == host || originHost == host
    }
}

/// Enforces the access table on the matched route: 401 for a guest, 403 for a wrong role or
/// someone else's data.
struct AccessGuard {
    static func check(_ rule: RouteRule, _ context: AppContext) throws {
        let pathID = rule.path.contains("{id}") ? context.parameters.get("id") : nil
        switch AccessTable.decide(rule, identity: context.identity?.user, pathID: pathID) {
        case .allowed: return
        case .signInRequired: throw HTTPError(.unauthorized, message: "sign in first")
        case .forbidden: throw HTTPError(.forbidden, message: "your role may not do this")
        }
    }
}

/// Per-route latency and status in the metrics, one log line per request (never its cookies,
/// body or query: passwords and tokens stay out of the logs), and the security headers.
struct ObservingMiddleware: RouterMiddleware {
    typealias Context = AppContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var status = 500
        defer {
            let route = context.endpointPath ?? "unmatched"
            metrics.requestFinished(route: route, method: request.method.rawValue, status: status, duration: .now - started)
            context.logger.info("request", metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(status)",
                "ms": "\(Int((ContinuousClock.now - started).milliseconds))", "client": "\(context.client)",
            ])
        }
        do {
            var response = try await next(request, context)
            status = response.status.code
            Self.secure(&response.headers)
            return response
        } catch let error as HTTPError {
            status = error.status.code
            throw error
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        }
    }

    static func secure(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
        headers[.xFrameOptions] = "DENY"
        if headers[.contentSecurityPolicy] == nil {
            headers[.contentSecurityPolicy] =
                "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"
        }
    }
}

extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let serverTiming = Self("Server-Timing")!
}

extension RouterMethods where Context == AppContext {
    /// Registers a route under its row of the access table and checks the row on every request.
    @discardableResult
    func route(_ method: HTTPRequest.Method, _ path: String,
               use handler: @Sendable @escaping (Request, AppContext) async throws -> Response) -> Self {
        let rule = AccessTable.rule(method, path)
        return on(RouterPath(path), method: method) { request, context in
            try AccessGuard.check(rule, context)
            return try await handler(request, context)
        }
    }
}
