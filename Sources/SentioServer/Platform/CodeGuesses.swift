import Hummingbird

/// Codes typed by people — a lecture's check-in code, a pairing room's code — are short so
/// that they can be typed; what keeps them from being guessed is that wrong ones are counted
/// (issue 34, finding 7). Wrong codes are counted per address and, when signed in, per user;
/// over `Limits.codeGuessFailures` in `Limits.codeGuessWindowSeconds` the next lookup is
/// refused with 429 until the window passes. docs/server.md works out the odds.
extension Platform {
    /// Looks a code up with `find`, counting a miss against the client; the found value, or
    /// nil (a miss), or 429 when the client has missed too often.
    func lookUpCode<T>(_ context: AppContext, _ find: () async throws -> T?) async throws -> T? {
        var keys = ["client " + context.client]
        if let user = context.identity?.user { keys.append("user " + user.id) }
        let attempt = ContinuousClock.now
        if let wait = codeGuesses.reserve(keys, now: attempt) {
            let seconds = Int(wait.rounded(.up))
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(seconds)],
                            message: "too many wrong codes; try again in \(seconds) s")
        }
        let found: T?
        do {
            found = try await find()
        } catch {
            for key in keys { codeGuesses.forgive(key, at: attempt) }
            throw error
        }
        if found == nil {
            codeGuesses.fail(keys, at: attempt)
        } else {
            for key in keys { codeGuesses.forgive(key, at: attempt) }
        }
        return found
    }
}
