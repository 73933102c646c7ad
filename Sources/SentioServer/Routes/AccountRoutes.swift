import Foundation
import Hummingbird
import SentioStore

/// Sign-in sessions and user administration.
///
/// `POST /api/v1/session` {username, password} signs in: an HttpOnly, SameSite=Strict cookie
/// carries the session, and the answer carries the CSRF token that unsafe requests echo in
/// `X-CSRF-Token`. Failed sign-ins are limited per client address and per user name.
struct AccountRoutes {
    let platform: Platform

    struct Credentials: Decodable { var username: String; var password: String }
    struct SessionInfo: Encodable { var user: User; var csrfToken: String; var expiresAt: Int64? }
    struct NewUser: Decodable {
        var username: String; var displayName: String?; var role: Role; var password: String
        /// Whether the new user must replace this password at the first sign-in (default: yes,
        /// since the administrator chose it; tools that sign in as the accounts they make say no).
        var mustChangePassword: Bool?
    }
    struct PasswordChange: Decodable { var currentPassword: String; var newPassword: String }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/session") { request, context in
            let credentials = try await decode(Credentials.self, request, context)
            let name = credentials.username.lowercased()
            // The attempt is counted as failed before the password is checked (one step under
            // the limiter's lock), so guesses sent at once cannot all pass the limit; a right
            // password takes it back.
            let attempt = ContinuousClock.now
            if let wait = platform.signIns.reserve(client: context.client, name: name, now: attempt) {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(Int(wait.rounded(.up)))],
                                message: "too many failed sign-ins; try again in \(Int(wait.rounded(.up))) s")
            }
            let found = try await platform.accounts.credentials(username: name)
            guard try await platform.passwords.verify(credentials.password, hash: found?.passwordHash), let user = found?.user else {
                platform.signIns.failed(client: context.client, name: name, at: attempt)
                platform.metrics.loginFailed()
                throw HTTPError(.unauthorized, message: "wrong user name or password")
            }
            platform.signIns.succeeded(client: context.client, name: name, at: attempt)
            let (record, cookies) = try await openSession(for: user)
            var response = try Response.json(SessionInfo(user: user, csrfToken: record.csrfToken, expiresAt: record.expiresAt))
            cookies.forEach { response.setCookie($0) }
            return response
        }
        router.route(.get, "/api/v1/session") { _, context in
            let identity = try signedIn(context)
            return try Response.json(SessionInfo(user: identity.user, csrfToken: identity.csrfToken, expiresAt: nil))
        }
        router.route(.put, "/api/v1/session/password") { request, context in
            let identity = try signedIn(context)
            let change = try await decode(PasswordChange.self, request, context)
            try await changePassword(identity, change)
            guard let user = try await platform.accounts.user(id: identity.user.id) else { throw HTTPError(.unauthorized, message: "sign in first") }
            return try Response.json(SessionInfo(user: user, csrfToken: identity.csrfToken, expiresAt: nil))
        }
        router.route(.delete, "/api/v1/session") { _, context in
            let identity = try signedIn(context)
            var response = Response(status: .noContent)
            try await closeSession(identity.tokenHash, in: &response)
            return response
        }
        router.route(.get, "/api/v1/users") { _, _ in
            try Response.json(try await platform.accounts.users())
        }
        router.route(.post, "/api/v1/users") { request, context in
            var new = try await decode(NewUser.self, request, context)
            // The administrator chose this password: its owner replaces it at the first sign-in.
            new.mustChangePassword = new.mustChangePassword ?? true
            let user = try await createUser(new, actor: context.identity?.user.id)
            return try Response.json(user, status: .created)
        }
        router.route(.get, "/api/v1/users/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let user = try await platform.accounts.user(id: id) else { throw HTTPError(.notFound, message: "no user \(id)") }
            return try Response.json(user)
        }
        router.route(.delete, "/api/v1/users/{id}") { _, context in
            let id = try context.parameters.require("id")
            do {
                try await platform.accounts.delete(id: id, actor: context.identity?.user.id)
            } catch StoreError.notFound {
                throw HTTPError(.notFound, message: "no user \(id)")
            }
            return Response(status: .noContent)
        }
        router.route(.get, "/api/v1/audit") { request, _ in
            let query = try Query(request, allowed: ["limit"])
            return try Response.json(try await Audit.recent(platform.store, limit: try query.int("limit", in: 1...1000) ?? 100))
        }
    }

    /// Checks the current password (wrong ones counted as failed sign-ins of this user), then
    /// sets the new one; the user's other sessions end.
    func changePassword(_ identity: Identity, _ change: PasswordChange) async throws {
        try await platform.checkPassword(change.currentPassword, username: identity.user.username, message: "the current password is wrong")
        if let problem = Passwords.problem(with: change.newPassword) { throw HTTPError(.badRequest, message: problem) }
        guard change.newPassword != change.currentPassword else { throw HTTPError(.badRequest, message: "the new password is the one you have") }
        try await platform.accounts.setPassword(id: identity.user.id, passwordHash: try await platform.passwords.hash(change.newPassword),
                                                keepSession: identity.tokenHash)
    }

    /// Validates and stores a new user (also `sentio admin create`); `new.mustChangePassword`
    /// when someone other than the user chose the password (no by default).
    func createUser(_ new: NewUser, actor: String?) async throws -> User {
        let name = new.username.trimmingCharacters(in: .whitespaces)
        if let problem = Accounts.usernameProblem(name) { throw HTTPError(.badRequest, message: problem) }
        if let problem = Passwords.problem(with: new.password) { throw HTTPError(.badRequest, message: problem) }
        let display = try TextField.check(new.displayName ?? name, maximum: 100)
            .mapError { HTTPError(.badRequest, message: "display name: \($0)") }.get()
        do {
            return try await platform.accounts.create(username: name, displayName: display, role: new.role,
                                                      passwordHash: try await platform.passwords.hash(new.password), actor: actor,
                                                      mustChangePassword: new.mustChangePassword ?? false)
        } catch let error as StoreError {
            if case .conflict = error { throw HTTPError(.conflict, message: error.description) }
            throw error
        }
    }

    /// Starts a session of `user`: the stored session and the cookies that carry it (the
    /// session's, HttpOnly and SameSite=Strict, and the readable signed-in hint).
    func openSession(for user: User) async throws -> (SessionRecord, [Cookie]) {
        let token = SessionToken.make(), csrf = SessionToken.make()
        let now = Clock.milliseconds()
        let record = SessionRecord(tokenHash: SessionToken.hash(token), userID: user.id, csrfToken: csrf, createdAt: now,
                                   expiresAt: now + Int64(platform.limits.sessionSeconds * 1000))
        try await platform.accounts.createSession(record)
        return (record, [Cookie(name: SessionMiddleware.cookie, value: token, maxAge: Int(platform.limits.sessionSeconds),
                                path: "/", secure: platform.secureCookies, httpOnly: true, sameSite: .strict),
                         Self.signedInHint(maxAge: Int(platform.limits.sessionSeconds), secure: platform.secureCookies)])
    }

    /// Ends the session with this token hash and clears its cookies on `response`.
    func closeSession(_ tokenHash: String, in response: inout Response) async throws {
        try await platform.accounts.deleteSession(tokenHash: tokenHash)
        response.setCookie(Cookie(name: SessionMiddleware.cookie, value: "", maxAge: 0, path: "/",
                                  secure: platform.secureCookies, httpOnly: true, sameSite: .strict))
        response.setCookie(Self.signedInHint(maxAge: 0, secure: platform.secureCookies))
    }

    /// A cookie the pages can read (the session's is HttpOnly) that says only "this browser
    /// signed in": a page asks GET /api/v1/session when it is there, so a guest's page makes no
    /// request answered 401, which browsers log as an error on every page (issue 36). It holds
    /// no secret; a stale one costs one 401, after which the page deletes it.
    static func signedInHint(maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: "sentio_signed_in", value: maxAge > 0 ? "1" : "", maxAge: maxAge, path: "/", secure: secure, httpOnly: false, sameSite: .strict)
    }

    func signedIn(_ context: AppContext) throws -> Identity {
        guard let identity = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
        return identity
    }
}

/// A JSON body of at most 64 KiB, decoded with the reason in the 400 when it does not fit.
func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: AppContext) async throws -> T {
    guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
        throw HTTPError(.unsupportedMediaType, message: "send JSON with Content-Type application/json")
    }
    let body: ByteBuffer
    do { body = try await request.body.collect(upTo: 64 << 10) } catch {
        throw HTTPError(.contentTooLarge, message: "a JSON body has at most 64 KiB")
    }
    do {
        return try JSONDecoder().decode(T.self, from: body)
    } catch {
        throw HTTPError(.badRequest, message: describe(decoding: error))
    }
}
