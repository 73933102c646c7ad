import Hummingbird

extension Platform {
    /// Checks the password of a user who is already known (a password change, leaving a kiosk,
    /// the administrator's hand-over). Wrong ones count as failed sign-ins of that user, and
    /// the attempt is reserved before bcrypt runs, as at sign-in, so that guesses sent in
    /// parallel cannot pass the limit together: past it a 429 with Retry-After. A wrong password
    /// runs `refused` (the caller's audit line) and answers 403 with `message`.
    func checkPassword(_ password: String, username: String, message: String = "wrong password",
                       refused: () async throws -> Void = {}) async throws {
        let key = "user " + username, attempt = ContinuousClock.now
        if let wait = loginFailures.reserve([key], now: attempt) {
            let seconds = String(Int(wait.rounded(.up)))
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: seconds], message: "too many wrong passwords; wait \(seconds) s")
        }
        let found = try await accounts.credentials(username: username)
        guard try await passwords.verify(password, hash: found?.passwordHash) else {
            loginFailures.fail([key], at: attempt)
            try await refused()
            throw HTTPError(.forbidden, message: message)
        }
        loginFailures.forgive(key, at: attempt)
    }
}
