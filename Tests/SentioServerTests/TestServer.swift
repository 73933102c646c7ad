import Attendance
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NIOCore
import SentioNeural
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// A real server for a test: its own fresh database (SQLite in a temporary folder, or a new
/// database on the PostgreSQL of `SENTIO_TEST_POSTGRES`), the real models, real HTTP and
/// WebSockets on a free loopback port.
struct TestServer {
    let platform: Platform
    let logs: LogCollector

    static let models = ModelStore()

    /// A server on a new SQLite database (or on `location`, to share one between servers).
    /// `challenge`: the liveness challenge every check asks for (the attendance tests fix it so
    /// that their clips act it out), or random as in production.
    static func make(_ location: DatabaseLocation? = nil, limits: Limits = TestServer.limits, challenge: LivenessChallenge? = nil) async throws -> TestServer {
        let location = location ?? .sqlite(path: FileManager.default.temporaryDirectory
            .appendingPathComponent("sentio-server-\(RandomID.make(bytes: 6))/sentio.db").path)
        let logs = LogCollector()
        let logger = Logger(label: "test") { _ in logs.handler() }
        let store = try await Store.open(location, logger: logger)
        try await SentioServer.prepare(store)
        let platform = try Platform(store: store, perception: Perception(store: models, threads: 2), limits: limits,
                                publicDirectory: SentioServer.publicDirectory, secureCookies: false, logger: logger,
                                fixedLivenessChallenge: challenge)
        return TestServer(platform: platform, logs: logs)
    }

    /// Test limits: bcrypt at cost 4 (a sign-in in milliseconds), the rest as shipped.
    static var limits: Limits {
        var limits = Limits()
        limits.bcryptCost = 4
        return limits
    }

    /// Runs `body` against the server listening on a free port.
    func run<T: Sendable>(_ body: @Sendable (any TestClientProtocol, Int) async throws -> T) async throws -> T {
        let app = SentioServer.makeApplication(platform: platform, server: SentioServer.http1(platform), host: "127.0.0.1", port: 0,
                                               logger: Logger(label: "test") { _ in logs.handler() })
        defer { Task { await platform.store.close(); platform.perception.stop() } }
        return try await app.test(.live) { client in try await body(client, client.port!) }
    }
}

/// Keeps every log line a test's server writes, to check what never appears in them.
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    func handler() -> some LogHandler { Handler(collector: self) }

    struct Handler: LogHandler {
        let collector: LogCollector
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            collector.append("\(event.level) \(event.message) \(all)")
        }
    }
}

/// Fixture photos read as request bodies.
enum Photos {
    static func bytes(_ path: String) throws -> ByteBuffer {
        ByteBuffer(bytes: try Array(Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A frontal face from the fixtures (identity set).
    static func face() throws -> String {
        let dir = try Fixtures.required("faces/identity") + "/faces/identity"
        let people = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        for person in people {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/" + person).sorted()) ?? []
            if let jpeg = files.first(where: { $0.lowercased().hasSuffix(".jpg") }) { return "\(dir)/\(person)/\(jpeg)" }
        }
        throw TestFailure("no JPEG in \(dir)")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ByteBuffer {
    var text: String { String(buffer: self) }

    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(buffer: self)) as? [String: Any] else {
            throw TestFailure("not a JSON object: \(String(buffer: self).prefix(200))")
        }
        return object
    }
}

/// A signed-in client's cookie and CSRF token.
struct SignedIn: Sendable {
    var cookie: String
    var csrf: String
    var userID: String

    var headers: HTTPFields { [.cookie: cookie, HTTPField.Name("X-CSRF-Token")!: csrf] }

    static func signIn(_ client: any TestClientProtocol, _ username: String, _ password: String) async throws -> SignedIn {
        let response = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(string: #"{"username": "\#(username)", "password": "\#(password)"}"#))
        guard response.status == .ok, let setCookie = response.headers[.setCookie] else {
            throw TestFailure("sign-in as \(username): \(response.status) \(response.body.text)")
        }
        let body = try response.body.json()
        let cookie = String(setCookie.split(separator: ";")[0])
        return SignedIn(cookie: cookie, csrf: body["csrfToken"] as! String, userID: (body["user"] as! [String: Any])["id"] as! String)
    }
}
