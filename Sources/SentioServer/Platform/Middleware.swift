import Attendance
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SentioStore

/// Reads the session cookie into `context.identity` (and a kiosk device's into
/// `context.kiosk`), and guards unsafe requests against
/// cross-site forgery: a signed-in POST/PUT/PATCH/DELETE must carry the session's CSRF token in
/// `X-CSRF-Token`, and any unsafe request from a page of another origin is refused.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = AppContext
    static let cookie = "sentio_session"
    /// The cookie of a browser turned into a lecture's kiosk (``KioskDevice``).
    static let kioskCookie = "sentio_kiosk"
    let accounts: Accounts
    let attendance: AttendanceRegister
    /// Check the Origin of every request, GETs included (the WebSocket router).
    var checksEveryOrigin = false

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        var context = context
        if let token = request.cookies[Self.cookie]?.value, token.count == 64, token.allSatisfy(\.isHexDigit) {
            let hash = SessionToken.hash(token)
            if let (session, user) = try await accounts.session(tokenHash: hash) {
                context.identity = Identity(user: user, csrfToken: session.csrfToken, tokenHash: hash)
            }
        }
        if let token = request.cookies[Self.kioskCookie]?.value, token.count == 64, token.allSatisfy(\.isHexDigit) {
            context.kiosk = try await attendance.kiosk(tokenHash: SessionToken.hash(token))
        }
        // WebSocket upgrades are GETs, but a page of another site must not open a socket with
        // this site's cookie either (issue 34, finding 12): `checksEveryOrigin` on their router.
        let unsafe = ![.get, .head, .options].contains(request.method)
        if checksEveryOrigin || unsafe, let origin = request.headers[.origin], origin != "null", !Self.sameOrigin(origin, request) {
            throw HTTPError(.forbidden, message: "cross-site request refused (Origin \(origin))")
        }
        if unsafe {
            if let identity = context.identity, request.headers[.csrfToken] != identity.csrfToken {
                throw HTTPError(.forbidden, message: "missing or wrong X-CSRF-Token (the token comes with the sign-in and from GET /api/v1/session)")
            }
        }
        if let identity = context.identity, identity.user.mustChangePassword, request.uri.path.hasPrefix("/api/"),
           !Self.allowedBeforePasswordChange.contains(request.uri.path) {
            throw HTTPError(.forbidden, message: "choose your own password first (PUT /api/v1/session/password; the account page does it)")
        }
        return try await next(request, context)
    }

    /// What a user whose password someone else chose may do before changing it: see the
    /// session, change the password, sign out.
    static let allowedBeforePasswordChange: Set<String> = ["/api/v1/session", "/api/v1/session/password"]

    /// Whether the Origin header names the host and port the request was sent to. A port left
    /// out is its scheme's default on both sides (the Host header of a request to port 80 or
    /// 443 has none), so `http://host:8080` is not the origin of `Host: host`.
    static func sameOrigin(_ origin: String, _ request: Request) -> Bool {
        guard let authority = request.head.authority?.lowercased() else { return false }
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let originHost = url.host?.lowercased() else { return false }
        let host = PlainHTTPRedirect.host(of: authority)
        // A browser's Origin is its page's, http or https. A ws:// or wss:// one comes from a
        // program (Hummingbird's WebSocket client sends its URL's scheme and host, no port);
        // Origin protects browsers only, so such a client is judged by its host.
        if scheme == "ws" || scheme == "wss" { return originHost == host || "[\(originHost)]" == host }
        let defaultPort = scheme == "https" ? 443 : 80
        let originPort = url.port ?? defaultPort
        let hostPort: Int
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]"), let port = Int(authority[authority.index(after: colon)...]) {
            hostPort = port
        } else {
            hostPort = defaultPort
        }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return (originHost == host || originHost == bareHost) && originPort == hostPort
    }
}

/// Enforces the access table on the matched route: 401 for a guest, 403 for a wrong role or
/// someone else's data.
struct AccessGuard {
    static func check(_ rule: RouteRule, _ context: AppContext) throws {
        let pathID = rule.path.contains("{id}") ? context.parameters.get("id") : nil
        switch AccessTable.decide(rule, identity: context.identity?.user, kiosk: context.kiosk != nil, pathID: pathID) {
        case .allowed: return
        case .signInRequired: throw HTTPError(.unauthorized, message: "sign in first")
        case .kioskRequired:
            throw HTTPError(.unauthorized, message: "this device is not a lecture's kiosk (or its kiosk ended); a professor makes one from the lecture's page")
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
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Errors are answered here rather than by Hummingbird, so that they carry the same
            // security headers as any answer (issue 34, finding 12: 401 and 404 had none).
            response = try error.response(from: request, context: context)
        } catch {
            // A failure nobody gave a status: the server's, told in the log, never to the client.
            context.logger.error("unhandled", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            response = try HTTPError(.internalServerError, message: "the server failed; the failure is in its log")
                .response(from: request, context: context)
        }
        status = response.status.code
        Self.secure(&response.headers, path: request.uri.path, https: secure)
        return response
    }

    /// Whether this server speaks HTTPS (then it says so with HSTS).
    var secure = false

    static func secure(_ headers: inout HTTPFields, path: String = "/", https: Bool = false) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
        headers[.xFrameOptions] = "DENY"
        if headers[.contentSecurityPolicy] == nil {
            headers[.contentSecurityPolicy] =
                "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self' ws: wss:; style-src 'self'; "
                + "script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
        }
        // The API's answers are personal (a session, a register, a collection): never kept by
        // a browser's or a proxy's cache.
        if path.hasPrefix("/api/"), headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        if https { headers[.strictTransportSecurity] = "max-age=31536000" }
    }
}

extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let serverTiming = Self("Server-Timing")!
    static let strictTransportSecurity = Self("Strict-Transport-Security")!
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

/// With TLS on, plain HTTP serves only the loopback address (development, the tests); every
/// other client is redirected to the same path over HTTPS, so that no password or session
/// cookie crosses the network in clear (issue 34, finding 10). 308 keeps the method and body.
struct PlainHTTPRedirect: RouterMiddleware {
    typealias Context = AppContext
    let httpsPort: Int

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        if Self.isLoopback(context.client) { return try await next(request, context) }
        let authority = request.head.authority ?? "localhost"
        let host = Self.host(of: authority)
        let port = httpsPort == 443 ? "" : ":\(httpsPort)"
        let target = "https://\(host)\(port)\(request.uri.path)" + (request.uri.query.map { "?\($0)" } ?? "")
        return Response(status: .permanentRedirect, headers: [.location: target, .contentLength: "0"])
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// The host of a Host header: brackets kept around an IPv6 address, the port dropped.
    static func host(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") { return String(authority[...end]) }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "localhost")
    }
}

/// Refuses a path that holds a control character once decoded (`%00`, `%0A`): no page has one,
/// and a NUL cut a file name short for the file server, which then answered
/// `/favicon.svg%00.html` with the icon labelled text/html (issue 34, finding 12).
struct ControlCharacterGuard: RouterMiddleware {
    typealias Context = AppContext

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // The API's routes check their own parameters (an unknown room code is a 404 whatever
        // its bytes); the guard is for the file server.
        let decoded = path.hasPrefix("/api/") ? "" : path.removingPercentEncoding ?? path
        if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw HTTPError(.badRequest, message: "the path holds a control character")
        }
        return try await next(request, context)
    }
}

/// Behind a proxy every request comes from the proxy's address: for a request from one of
/// the trusted proxies, the client is the last address of `X-Forwarded-For` (the one the proxy
/// itself saw; earlier ones are the client's word), so that every per-address limit counts the
/// real client. From any other address the header is ignored.
struct ForwardedClient: RouterMiddleware {
    typealias Context = AppContext
    let proxies: Set<String>

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        guard proxies.contains(context.client), let header = request.headers[values: .xForwardedFor].last,
              let last = header.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.count <= 45
        else { return try await next(request, context) }
        var context = context
        context.client = last
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
