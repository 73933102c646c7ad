import Foundation
import HummingbirdBcrypt
import NIOPosix
import SentioStore

/// Password hashing with bcrypt, off the event loops (a hash takes about a quarter second).
struct Passwords: Sendable {
    let cost: UInt8
    /// Checked when the user name is unknown, so a wrong name takes as long as a wrong password.
    let decoy: String

    init(cost: UInt8) {
        self.cost = cost
        self.decoy = Bcrypt.hash("not a password", cost: cost)
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String?) async throws -> Bool {
        let stored = hash ?? decoy
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: stored) }
        return matches && hash != nil
    }

    /// What a password must be: at least 10 characters, at most 72 bytes in UTF-8 — bcrypt reads
    /// only the first 72 bytes, and a longer password would be cut short without a word (issue
    /// 34, finding 12); no control characters.
    static func problem(with password: String) -> String? {
        if password.count < 10 { return "a password needs at least 10 characters" }
        if password.utf8.count > 72 { return "a password has at most 72 bytes (72 letters without accents; fewer with them)" }
        if password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a password has no control characters"
        }
        return nil
    }
}

/// Session tokens: 256 random bits for the cookie, stored only as their SHA-256.
enum SessionToken {
    static func make() -> String {
        RandomID.make(bytes: 32)
    }

    static func hash(_ token: String) -> String {
        SHA256Hex.of(token)
    }
}
