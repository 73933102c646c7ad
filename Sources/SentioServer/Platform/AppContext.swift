import Attendance
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SentioStore

/// Who is asking: the signed-in user and their session, or nobody (a guest).
public struct Identity: Sendable {
    public var user: User
    /// The session's CSRF token; unsafe requests must echo it in `X-CSRF-Token`.
    var csrfToken: String
    var tokenHash: String
}

/// The request context of every route: the client's address (for rate limits) and who is asking.
public struct AppContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<AppContext>
    /// The client's IP address ("unknown" when the socket does not say); behind a trusted
    /// proxy, the address the proxy says it serves (``ForwardedClient``).
    public internal(set) var client: String
    /// The connection (WebSocket routes keep what they resolved, and their refusals, by it).
    let channel: any Channel
    /// Set by ``SessionMiddleware`` from the session cookie.
    public var identity: Identity?
    /// Set by ``SessionMiddleware`` from a kiosk device's cookie: the live kiosk it holds.
    public var kiosk: KioskDevice?
    /// The matched route's rule, set by ``AccessMiddleware``.
    var rule: RouteRule?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
        channel = source.channel
    }

    /// Bodies up to the stills' limit are collected; the routes check their own.
    public var maxUploadSize: Int { 16 << 20 }
}
