import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Attendance
import Puzzler
import IVCollection
import Logging
import NIOCore
import SentioNeural
import SentioStore
import ServiceLifecycle

/// The addresses a running server answers on.
public struct ServerAddresses: Sendable {
    /// `http://HOST:PORT`.
    public var http: String
    /// `https://HOST:PORT` when TLS is on.
    public var https: String?
    /// The HTTPS addresses a phone on the same network can open (one per local IPv4 address).
    public var phone: [String]
}

/// How a listener's clients reach it.
public enum Transport: Sendable, Equatable {
    /// Plain HTTP; with a port, every client but the loopback is redirected to HTTPS there.
    case plain(redirectTo: Int?)
    /// HTTPS (answers carry HSTS).
    case tls
}

/// Sentio's web server: the routes, streams and pages over one ``Platform``.
public enum SentioServer {
    /// Opens the store, loads the models and serves until SIGINT or SIGTERM; then stops taking
    /// requests, lets those in flight finish (their writes included) and closes the store.
    public static func run(_ configuration: ServerConfiguration, models: ModelStore, logger: Logger,
                           onReady: @escaping @Sendable (ServerAddresses) async -> Void) async throws {
        let files = raiseOpenFileLimit()
        logger.info("open-file limit", metadata: ["files": "\(files)"])
        let store = try await Store.open(configuration.database, logger: logger)
        do { try await prepare(store) } catch {
            await store.close()
            throw error
        }
        let perception = Perception(store: models, threads: configuration.threads, longLaneThreads: configuration.limits.longLaneThreads)
        do {
            try perception.preload(faceModel: configuration.attendanceFaceModel)
        } catch {
            await store.close()
            throw error
        }
        let platform = try Platform(store: store, perception: perception, limits: configuration.limits,
                                publicDirectory: configuration.pagesDirectory ?? publicDirectory, secureCookies: configuration.tls != .off, logger: logger,
                                fixedLivenessChallenge: configuration.fixedLivenessChallenge, faceModel: configuration.attendanceFaceModel)
        var applications: [any Service] = []
        let ready = ReadyLatch(count: configuration.tls == .off ? 1 : 2)
        let addresses = platform.addresses

        // With TLS on, plain HTTP redirects every client but the loopback to HTTPS.
        let plain: Transport = configuration.tls == .off ? .plain(redirectTo: nil) : .plain(redirectTo: configuration.tlsPort)
        applications.append(makeApplication(platform: platform, server: http1(platform), host: configuration.host,
                                            port: configuration.port, logger: logger, housekeeping: true, transport: plain) { port in
            addresses.set(http: "http://\(display(configuration.host)):\(port)")
            if ready.arrive() { await onReady(addresses.value) }
        })
        if configuration.tls != .off {
            let tls = try tlsConfiguration(configuration)
            let builder = try HTTPServerBuilder.tls(http1(platform), tlsConfiguration: tls)
            applications.append(makeApplication(platform: platform, server: builder, host: configuration.host,
                                                port: configuration.tlsPort, logger: logger, housekeeping: false, transport: .tls) { port in
                let phones = configuration.host == "0.0.0.0" ? SelfSignedCertificate.localAddresses().map { "https://\($0):\(port)" } : []
                addresses.set(https: "https://\(display(configuration.host)):\(port)", phone: phones)
                if ready.arrive() { await onReady(addresses.value) }
            })
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: applications.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Shutdown has a deadline too (issue 34, finding 1): requests in flight get this long to
        // finish, then they are cancelled, which stops their compute work at its next operator
        // (ComputeDeadline), and the process ends a few seconds later whatever is left.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(configuration.limits.shutdownGraceSeconds)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch {
            perception.stop()
            await store.close()
            throw error
        }
        perception.stop()
        await store.close()
        logger.info("stopped")
    }

    /// Migrates the applications' own tables (after the platform's, which `Store.open` does).
    public static func prepare(_ store: Store) async throws {
        try await IVCollection.prepare(store)
        try await AttendanceRegister.prepare(store)
        try await PuzzlerProgress.prepare(store)
    }

    /// The HTTP/1 server with WebSocket upgrades for the streams.
    /// Every connection goes through the guards of ConnectionGuard.swift: caps per address and
    /// in all, the deadline of the first head (before Hummingbird's own handlers exist), then
    /// the deadlines of bodies and of keep-alive idle; WebSockets are pinged and closed when
    /// the pong does not come back.
    public static func http1(_ platform: Platform) -> HTTPServerBuilder {
        let webSockets = webSocketRouter(platform).buildResponder()
        let deadlines = ConnectionDeadlines(platform.limits)
        let metrics = platform.metrics, sockets = platform.sockets
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [MalformedRequestHandler(), RequestDeadlines(deadlines: deadlines, metrics: metrics),
                                                     UpgradeRefusalWriter(sockets: sockets)],
                         idleTimeout: .seconds(Int64(platform.limits.requestHeadSeconds.rounded(.up)) + 20)),
            ws: .init(maxFrameSize: platform.limits.maxFrameBytes, autoPing: .enabled(timePeriod: .seconds(20))))
        let connections = platform.connections
        return HTTPServerBuilder { responder in
            GuardedChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSockets, configuration: configuration),
                           connections: connections, deadlines: deadlines, metrics: metrics)
        }
    }

    /// One listening application over `platform`; with `housekeeping` it also runs the platform's
    /// background chores (one application per platform should).
    public static func makeApplication(platform: Platform, server: HTTPServerBuilder, host: String, port: Int, logger: Logger,
                                       housekeeping: Bool = true, transport: Transport = .plain(redirectTo: nil),
                                       onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(router: router(platform, transport: transport), server: server,
                    configuration: .init(address: .hostname(host, port: port), serverName: "Sentio"),
                    services: housekeeping ? [Housekeeping(platform: platform)] : [],
                    onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
                    logger: logger)
    }

    /// The HTTP routes, in the order a request meets them.
    public static func router(_ platform: Platform, transport: Transport = .plain(redirectTo: nil)) -> Router<AppContext> {
        let router = Router(context: AppContext.self)
        if !platform.limits.trustedProxies.isEmpty { router.add(middleware: ForwardedClient(proxies: platform.limits.trustedProxies)) }
        router.add(middleware: ObservingMiddleware(metrics: platform.metrics, secure: transport == .tls))
        if case .plain(let port?) = transport { router.add(middleware: PlainHTTPRedirect(httpsPort: port)) }
        router.add(middleware: ControlCharacterGuard())
        router.add(middleware: UnmatchedRoute())
        router.add(middleware: SessionMiddleware(accounts: platform.accounts, attendance: platform.attendance))
        router.add(middleware: FileMiddleware(platform.publicDirectory, cacheControl: .init([(MediaType(type: .any), [.noCache])]),
                                              searchForIndexHtml: true))
        router.add(middleware: FileMiddleware(javascriptDirectory, urlBasePath: "/vendor", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])])))
        SystemRoutes(platform: platform).register(on: router)
        StillRoutes(platform: platform).register(on: router)
        AccountRoutes(platform: platform).register(on: router)
        RoomRoutes(platform: platform).register(on: router)
        IVRoutes(platform: platform).register(on: router)
        AttendanceRoutes(platform: platform).register(on: router)
        PuzzlerRoutes(platform: platform).register(on: router)
        return router
    }

    /// The WebSocket routes (a router of their own, as Hummingbird advises).
    public static func webSocketRouter(_ platform: Platform) -> Router<AppContext> {
        let router = Router(context: AppContext.self)
        if !platform.limits.trustedProxies.isEmpty { router.add(middleware: ForwardedClient(proxies: platform.limits.trustedProxies)) }
        router.add(middleware: ObservingMiddleware(metrics: platform.metrics))
        router.add(middleware: SessionMiddleware(accounts: platform.accounts, attendance: platform.attendance, checksEveryOrigin: true))
        StreamRoutes(platform: platform).register(webSocket: router)
        RoomRoutes(platform: platform).register(webSocket: router)
        AttendanceRoutes(platform: platform).register(webSocket: router)
        PuzzlerRoutes(platform: platform).register(webSocket: router)
        return router
    }

    /// The pages and the OpenAPI document (the target's resources).
    public static var publicDirectory: String {
        Bundle.module.resourceURL!.appendingPathComponent("Public").path
    }

    /// Where Debian installs browser libraries (libjs-three, libjs-chart.js), served at /vendor.
    static let javascriptDirectory = "/usr/share/javascript"

    static func tlsConfiguration(_ configuration: ServerConfiguration) throws -> TLSConfiguration {
        switch configuration.tls {
        case .off: throw ServerError.tls("off")
        case .files(let certificate, let key): return try SelfSignedCertificate.configuration(certificate: certificate, key: key)
        case .auto:
            let files = try SelfSignedCertificate.ensure(in: configuration.dataDirectory, addresses: SelfSignedCertificate.localAddresses(),
                                                         hostname: ProcessInfo.processInfo.hostName)
            return try SelfSignedCertificate.configuration(certificate: files.certificate, key: files.key)
        }
    }

    static func display(_ host: String) -> String { host == "0.0.0.0" ? "127.0.0.1" : host }
}

/// Background chores: expired sessions and rooms forgotten, large broadcasts swept, other
/// servers' room messages carried in.
struct Housekeeping: Service {
    let platform: Platform

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await platform.hub.listen() }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(60))
                    _ = try? await platform.accounts.deleteExpiredSessions()
                    try? await platform.rooms.deleteExpired()
                    try? await platform.hub.broadcaster.sweep()
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// Counts listeners up; the last one to arrive is told so.
final class ReadyLatch: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    init(count: Int) { remaining = count }
    func arrive() -> Bool { lock.withLock { remaining -= 1; return remaining == 0 } }
}

final class AddressBook: @unchecked Sendable {
    private let lock = NSLock()
    private var addresses = ServerAddresses(http: "", https: nil, phone: [])
    var value: ServerAddresses { lock.withLock { addresses } }
    func set(http: String) { lock.withLock { addresses.http = http } }
    func set(https: String, phone: [String]) { lock.withLock { addresses.https = https; addresses.phone = phone } }
}
