import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SentioServer
import SentioStore
import SentioTestSupport
import Testing

/// Every HTTP route of the access table, called by every kind of caller: a guest, each role, and
/// a user asking for another user's data. The server must answer 401 where the table wants a
/// sign-in, 403 where the role (or the owner) is wrong, and neither where the call is allowed.
@Suite("Roles on every route", .timeLimit(.minutes(5)), .requires(model: "face_detection_short_range"), .requires(fixture: "faces/identity"))
struct RoleTests {
    static let password = "correct horse battery"

    @Test("the table pins who may call what", arguments: [
        ("GET", "/api/v1/users", [Role.admin]), ("POST", "/api/v1/users", [.admin]), ("GET", "/api/v1/audit", [.admin]),
    ])
    func pinned(method: String, path: String, roles: [Role]) throws {
        let rule = try #require(AccessTable.rules.first { $0.method.rawValue == method && $0.path == path })
        #expect(rule.access == .roles(Set(roles)))
        // Guests may use the stills and the streams, never the administration.
        #expect(AccessTable.rules.filter { $0.access == .anyone }.allSatisfy { !$0.path.contains("users") && !$0.path.contains("audit") })
    }

    @Test("each route answers each caller as the table says")
    func walk() async throws {
        let server = try await TestServer.make()
        var users: [Role: User] = [:]
        for role in Role.allCases {
            users[role] = try await server.platform.createUser(username: "u-\(role.rawValue)", displayName: nil, role: role, password: Self.password)
        }
        let photo = try Photos.bytes(try Photos.face())
        let accounts = users
        try await server.run { client, _ in
            let users = accounts
            var callers: [(String, SignedIn?, User?)] = [("guest", nil, nil)]
            for role in Role.allCases {
                callers.append((role.rawValue, try await SignedIn.signIn(client, "u-\(role.rawValue)", Self.password), users[role]))
            }
            let room = try await client.execute(uri: "/api/v1/rooms", method: .post).body.json()
            let code = (room["room"] as! [String: Any])["code"] as! String
            var checked = 0
            for rule in AccessTable.rules where !rule.webSocket && rule.method != .delete {
                for (name, signedIn, user) in callers {
                    // For {id}: the caller's own record and someone else's.
                    let targets: [String?] = rule.path.contains("{id}") ? [user?.id ?? users[.student]!.id, users[.player]!.id] : [nil]
                    for target in targets {
                        let path = rule.path.replacingOccurrences(of: "{id}", with: target ?? "").replacingOccurrences(of: "{code}", with: code)
                            .replacingOccurrences(of: "{name}", with: "Pidgey").replacingOccurrences(of: "{pokemon}", with: "none")
                            .replacingOccurrences(of: "{scan}", with: "none").replacingOccurrences(of: "{course}", with: "none")
                            .replacingOccurrences(of: "{lecture}", with: "none").replacingOccurrences(of: "{user}", with: "none")
                            .replacingOccurrences(of: "{student}", with: "none").replacingOccurrences(of: "{photo}", with: "none")
                            .replacingOccurrences(of: "{level}", with: "eyes").replacingOccurrences(of: "{round}", with: "none")
                            .replacingOccurrences(of: "{job}", with: "none").replacingOccurrences(of: "{slot}", with: "none")
                            .replacingOccurrences(of: "{date}", with: "2027-03-29")
                        var headers = signedIn?.headers ?? [:]
                        var body: ByteBuffer?
                        switch path {
                        case "/api/v1/session":
                            headers[.contentType] = "application/json"
                            body = ByteBuffer(string: #"{"username": "u-player", "password": "\#(Self.password)"}"#)
                        case "/api/v1/users":
                            headers[.contentType] = "application/json"
                            body = ByteBuffer(string: #"{"username": "new-\#(name)-\#(checked)", "role": "student", "password": "\#(Self.password)"}"#)
                        case "/api/v1/faces/compare":
                            continue  // a form of two images: covered by the stills' tests; its row is .anyone
                        default:
                            if rule.method == .post, path.hasPrefix("/api/v1/") && path != "/api/v1/rooms" {
                                headers[.contentType] = "image/jpeg"
                                body = photo
                            }
                        }
                        let response = try await client.execute(uri: path, method: rule.method, headers: headers, body: body)
                        let expected = AccessTable.decide(rule, identity: user, pathID: target)
                        let status = response.status.code
                        switch expected {
                        case .allowed where user?.role == .professor && rule.method == .get
                                && ["/api/v1/attendance/courses", "/api/v1/attendance/people", "/api/v1/attendance/report",
                                    "/api/v1/attendance/report.csv"].contains(rule.path):
                            // Professors reach attendance data only after a face check in the session.
                            #expect(status == 403 && response.body.text.contains("check their face"), "\(name) \(rule.method) \(path): \(status)")
                        case .allowed:
                            #expect(status != 401 && status != 403, "\(name) \(rule.method) \(path): \(status) \(response.body.text.prefix(120))")
                        case .signInRequired, .kioskRequired:
                            #expect(status == 401, "\(name) \(rule.method) \(path): \(status)")
                        case .forbidden:
                            #expect(status == 403, "\(name) \(rule.method) \(path): \(status)")
                        }
                        checked += 1
                    }
                }
            }
            // DELETE last: a user's record (self or another's), then signing out.
            let victim = try await server.platform.createUser(username: "victim", displayName: nil, role: .player, password: Self.password)
            for (name, signedIn, user) in callers where user?.role != .admin {
                let response = try await client.execute(uri: "/api/v1/users/\(victim.id)", method: .delete, headers: signedIn?.headers ?? [:])
                #expect(response.status.code == (signedIn == nil ? 401 : 403), "\(name) deleting another user: \(response.status)")
            }
            let admin = callers.first { $0.0 == "admin" }!.1!
            #expect(try await client.execute(uri: "/api/v1/users/\(victim.id)", method: .delete, headers: admin.headers).status == .noContent)
            let student = callers.first { $0.0 == "student" }!.1!
            #expect(try await client.execute(uri: "/api/v1/users/\(student.userID)", method: .delete, headers: student.headers).status == .noContent,
                    "a user may delete their own account")
            #expect(try await client.execute(uri: "/api/v1/session", method: .delete).status == .unauthorized)
            let professor = callers.first { $0.0 == "professor" }!.1!
            #expect(try await client.execute(uri: "/api/v1/session", method: .delete, headers: professor.headers).status == .noContent)
            #expect(try await client.execute(uri: "/api/v1/session", method: .get, headers: professor.headers).status == .unauthorized,
                    "the cookie of a signed-out session opens nothing")
            #expect(checked > 60)
        }
    }

    @Test("signed-in writes need the CSRF token and the same origin; passwords and tokens never reach the logs")
    func forgery() async throws {
        let server = try await TestServer.make()
        _ = try await server.platform.createUser(username: "root", displayName: nil, role: .admin, password: Self.password)
        try await server.run { client, port in
            let admin = try await SignedIn.signIn(client, "root", Self.password)
            let body = ByteBuffer(string: #"{"username": "eve", "role": "admin", "password": "\#(Self.password)"}"#)
            let noToken = try await client.execute(uri: "/api/v1/users", method: .post,
                                                   headers: [.cookie: admin.cookie, .contentType: "application/json"], body: body)
            #expect(noToken.status == .forbidden)
            var crossSite = admin.headers
            crossSite[.origin] = "https://evil.example"
            crossSite[.contentType] = "application/json"
            #expect(try await client.execute(uri: "/api/v1/users", method: .post, headers: crossSite, body: body).status == .forbidden)
            // The test client sends `Host: localhost`, no port: port 80 is that origin's, and a
            // page on another port of the same host is another site (issue 34, finding 12).
            var otherPort = admin.headers
            otherPort[.origin] = "http://localhost:\(port)"
            otherPort[.contentType] = "application/json"
            #expect(try await client.execute(uri: "/api/v1/users", method: .post, headers: otherPort, body: body).status == .forbidden)
            var sameSite = admin.headers
            sameSite[.origin] = "http://localhost"
            sameSite[.contentType] = "application/json"
            #expect(try await client.execute(uri: "/api/v1/users", method: .post, headers: sameSite, body: body).status == .created)
            let logs = server.logs.text
            #expect(!logs.contains(Self.password))
            #expect(!logs.contains(admin.csrf))
            #expect(!logs.contains(String(admin.cookie.split(separator: "=")[1])))
            #expect(logs.contains("request"), "the server logged its requests")
        }
    }

    @Test("failed sign-ins are limited per user name, with Retry-After")
    func loginLimit() async throws {
        let server = try await TestServer.make()
        _ = try await server.platform.createUser(username: "ada", displayName: nil, role: .student, password: Self.password)
        try await server.run { client, _ in
            for _ in 0..<5 {
                let r = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"username": "ada", "password": "wrong password!"}"#))
                #expect(r.status == .unauthorized)
            }
            let blocked = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"username": "ada", "password": "\#(Self.password)"}"#))
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.headers[.retryAfter] != nil)
        }
    }

    @Test("a burst of wrong passwords sent at once is limited all the same: no more than the limit reach the password check")
    func loginBurst() async throws {
        // bcrypt at the shipped cost: its quarter of a second is the window a burst would use.
        let limits = Limits()
        let server = try await TestServer.make(limits: limits)
        _ = try await server.platform.createUser(username: "ada", displayName: nil, role: .student, password: Self.password)
        try await server.run { client, port in
            // Twenty guesses at once, each on a connection of its own (one connection's
            // requests are answered in turn).
            let answers = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
                            let r = try await connection.execute(TestClient.Request("/api/v1/session", method: .post, authority: "localhost",
                                                                                    headers: [.contentType: "application/json"],
                                                                                    body: ByteBuffer(string: #"{"username": "ada", "password": "wrong password!"}"#)))
                            return (r.status, r.headers[.retryAfter])
                        }
                    }
                }
                return try await group.reduce(into: [(HTTPResponse.Status, String?)]()) { $0.append($1) }
            }
            let statuses = answers.map(\.0)
            #expect(statuses.filter { $0 == .unauthorized }.count == limits.loginFailures, "\(statuses.map(\.code))")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 20 - limits.loginFailures)
            // Refused while the five were still being checked: asked to come back in a second
            // (they might have been right).
            #expect(answers.contains { $0.0 == .tooManyRequests && $0.1 == "1" }, "\(answers.map(\.1))")
            // And the right password, after them, is refused too until the window passes: five
            // failures settled count for the window.
            let after = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"username": "ada", "password": "\#(Self.password)"}"#))
            #expect(after.status == .tooManyRequests)
            #expect((after.headers[.retryAfter].flatMap { Int($0) } ?? 0) > 200, "\(String(describing: after.headers[.retryAfter]))")
        }
    }

    @Test("a right password is not counted against the limit")
    func loginForgiven() async throws {
        let server = try await TestServer.make()
        _ = try await server.platform.createUser(username: "ada", displayName: nil, role: .student, password: Self.password)
        try await server.run { client, _ in
            for _ in 0..<12 {
                let r = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"username": "ada", "password": "\#(Self.password)"}"#))
                #expect(r.status == .ok)
            }
        }
    }

    @Test("cookies are HttpOnly and SameSite=Strict; a wrong name and a wrong password read alike")
    func cookies() async throws {
        let server = try await TestServer.make()
        _ = try await server.platform.createUser(username: "grace", displayName: "Grace", role: .professor, password: Self.password)
        try await server.run { client, _ in
            let r = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                             body: ByteBuffer(string: #"{"username": "GRACE", "password": "\#(Self.password)"}"#))
            let cookies = r.headers[values: .setCookie]
            let cookie = try #require(cookies.first { $0.hasPrefix("sentio_session=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            // Beside it, the readable hint that lets a guest's pages skip the session check: "1", no secret.
            let hint = try #require(cookies.first { $0.hasPrefix("sentio_signed_in=") })
            #expect(hint.hasPrefix("sentio_signed_in=1;") && !hint.contains("HttpOnly") && hint.contains("SameSite=Strict"))
            let token = String(cookie.split(separator: ";")[0])
            let csrf = try #require((try r.body.json())["csrfToken"] as? String)
            let out = try await client.execute(uri: "/api/v1/session", method: .delete, headers: [.cookie: token, HTTPField.Name("X-CSRF-Token")!: csrf])
            #expect(out.headers[values: .setCookie].contains { $0.hasPrefix("sentio_signed_in=;") && $0.contains("Max-Age=0") },
                    "signing out clears the hint too: \(out.headers[values: .setCookie])")
            let unknown = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"username": "nobody", "password": "\#(Self.password)"}"#))
            let wrong = try await client.execute(uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"username": "grace", "password": "not the password"}"#))
            #expect(unknown.status == .unauthorized && wrong.status == .unauthorized)
            #expect(unknown.body.text == wrong.body.text)
        }
    }
}
