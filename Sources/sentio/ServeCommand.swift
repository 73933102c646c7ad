import Attendance
import ArgumentParser
import Foundation
import Logging
import SentioServer
import SentioStore

/// `sentio serve`: the web applications, the live streams and the API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the web applications, the live streams and the HTTP API.",
        discussion: """
            /healthz answers 200 once the server is ready. Phones need HTTPS for the camera and motion \
            sensors: with --tls auto a self-signed certificate is made on first start and kept in the data \
            folder (the page tells a phone user how to accept it). Stop with Ctrl-C: requests in flight finish first.
            """)

    @Option(help: "Address to listen on (0.0.0.0: every network, for phones).") var host = "127.0.0.1"
    @Option(help: "HTTP port (0: any free port).") var port = 8080
    @Option(help: "HTTPS port when TLS is on (0: any free port).") var tlsPort = 8443
    @Option(help: "sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: SQLite in the data folder).") var database: String?
    @Option(help: "auto (a self-signed certificate, kept), off, or CERT.pem,KEY.pem.") var tls = "off"
    @Option(help: "The data folder (default $XDG_DATA_HOME/sentio or ~/.local/share/sentio).") var dataDir: String?
    @Option(help: "Compute threads (default: one per core).") var threads: Int?
    @Flag(help: "Print the addresses as JSON once ready (for scripts).") var json = false
    @Option(help: "Serve the pages from this folder (e.g. Sources/SentioServer/Public while editing them).") var pages: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel = "info"
    @Option(help: "Stills and rooms a client address may ask for per second (bursts of 6×).") var requestRate = 5.0
    @Option(help: "Streams one guest address may hold at once (load generators playing many clients from one machine raise it).")
    var streamsPerClient = Limits().maxStreamsPerClient
    @Option(help: "The address of a proxy in front of this server (repeat for several): its requests are the client its X-Forwarded-For names (docs/deploy.md).")
    var trustedProxy: [String] = []
    @Option(help: ArgumentHelp("Tests and demonstrations only: every attendance check-in asks for these liveness actions (e.g. blink,open-mouth) instead of a random pair.", visibility: .hidden))
    var livenessChallenge: String?
    @Option(help: "The attendance app's face descriptor: sface (default) or dlib. Enrolments of the other are kept aside until the person is enrolled again.")
    var faceModel = "sface"

    func run() async throws {
        var configuration = try ServeCommand.configuration(host: host, port: port, tlsPort: tlsPort, database: database, tls: tls,
                                                           dataDir: dataDir, threads: threads)
        guard requestRate > 0, requestRate.isFinite else { throw ValidationError("--request-rate must be positive") }
        configuration.limits.stillsPerSecond = requestRate
        configuration.limits.stillsBurst = max(configuration.limits.stillsBurst, Int(requestRate * 6))
        guard (1...configuration.limits.maxStreams).contains(streamsPerClient) else {
            throw ValidationError("--streams-per-client is 1 to \(configuration.limits.maxStreams)")
        }
        configuration.limits.maxStreamsPerClient = streamsPerClient
        configuration.limits.trustedProxies = Set(trustedProxy)
        // A load generator's streams are all guests of one address: the share kept for
        // signed-in users is theirs too then.
        if streamsPerClient > configuration.limits.maxStreams - configuration.limits.reservedStreams { configuration.limits.reservedStreams = 0 }
        if let livenessChallenge {
            let actions = try livenessChallenge.split(separator: ",").map { name in
                guard let action = LivenessAction(rawValue: String(name)) else {
                    throw ValidationError("--liveness-challenge: \(name) is not one of \(LivenessAction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return action
            }
            configuration.fixedLivenessChallenge = try LivenessChallenge(actions: actions)
        }
        guard let model = FaceModel(rawValue: faceModel) else { throw ValidationError("--face-model is sface or dlib") }
        configuration.attendanceFaceModel = model
        if let pages {
            guard FileManager.default.fileExists(atPath: pages + "/index.html") else { throw ValidationError("--pages: no index.html in \(pages)") }
            configuration.pagesDirectory = pages
        }
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("--log-level: trace, debug, info, notice, warning or error") }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "sentio.server")
        logger.info("starting", metadata: ["database": "\(configuration.database)", "data": "\(configuration.dataDirectory)"])
        let json = self.json
        try await SentioServer.run(configuration, models: CommandEnvironment.store, logger: logger) { addresses in
            if json {
                struct Ready: Encodable { let http: String; let https: String?; let phone: [String] }
                try? JSONOutput.print(Ready(http: addresses.http, https: addresses.https, phone: addresses.phone))
            } else {
                ServeCommand.announce(addresses)
            }
            fflush(nil)  // all output streams: the addresses reach a pipe at once
        }
    }

    static func configuration(host: String, port: Int, tlsPort: Int, database: String?, tls: String, dataDir: String?,
                              threads: Int?) throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let data = dataDir ?? ServerConfiguration.defaultDataDirectory(environment: environment)
        let location = try database.map { try DatabaseLocation(parsing: $0) } ?? .sqlite(path: data + "/sentio.db")
        var configuration = ServerConfiguration(database: location, dataDirectory: data)
        guard (0...65535).contains(port), (0...65535).contains(tlsPort) else { throw ValidationError("ports are 0 to 65535") }
        (configuration.host, configuration.port, configuration.tlsPort, configuration.threads) = (host, port, tlsPort, threads)
        configuration.tls = try ServerConfiguration.TLSMode(parsing: tls)
        return configuration
    }

    static func announce(_ addresses: ServerAddresses) {
        print("Sentio is ready.")
        print("  On this computer:  \(addresses.http)/")
        if let https = addresses.https { print("  HTTPS:             \(https)/") }
        if let phone = addresses.phone.first {
            print("  On a phone on the same network, open \(phone)/ (or scan):")
            if let code = QRCode(phone + "/") { print(code.terminal) }
            print("  The certificate is self-signed: the phone's browser warns once; choose to proceed (the page explains).")
        }
        print("Stop with Ctrl-C.")
    }
}

/// `sentio admin create`: the first administrator (and any account) from the terminal.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Accounts, from the terminal.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account (by default an administrator). The password is read from standard input.")

        @Option(help: "User name (3 to 40 letters, digits, . _ -).") var username: String
        @Option(help: "Name shown on pages.") var displayName: String?
        @Option(help: "admin, professor, student or player.") var role = "admin"
        @Option(help: "sqlite:PATH or postgres://… (default: SQLite in the data folder).") var database: String?
        @Option(help: "The data folder (default $XDG_DATA_HOME/sentio or ~/.local/share/sentio).") var dataDir: String?

        func run() async throws {
            guard let role = Role(rawValue: role) else { throw ValidationError("--role is admin, professor, student or player") }
            let configuration = try ServeCommand.configuration(host: "127.0.0.1", port: 0, tlsPort: 0, database: database, tls: "off",
                                                               dataDir: dataDir, threads: 1)
            if isatty(0) == 1 { FileHandle.standardError.write(Data("Password (at least 10 characters): ".utf8)) }
            let password = AdminCommand.readPassword()
            let store = try await Store.open(configuration.database, logger: Logger(label: "sentio.admin"))
            do {
                let platform = try Platform(store: store, perception: Perception(store: CommandEnvironment.store, threads: 1),
                                        limits: Limits(), publicDirectory: "", secureCookies: false, logger: Logger(label: "sentio.admin"))
                let user = try await platform.createUser(username: username, displayName: displayName, role: role, password: password)
                print("created \(user.role.rawValue) \(user.username) (\(user.id)) in \(configuration.database)")
                platform.perception.stop()
            } catch {
                await store.close()
                throw ValidationError("\(error)")
            }
            await store.close()
        }
    }

    /// A line from standard input without echo when it is a terminal.
    static func readPassword() -> String {
        if isatty(0) == 1, let raw = getpass("") { return String(cString: raw) }
        return readLine(strippingNewline: true) ?? ""
    }
}
