import Attendance
import Foundation
import IVCollection
import IVScanner
import Logging
import Puzzler
import SentioNeural
import SentioStore

/// Everything the routes share: the store and its repositories, the models and compute threads,
/// the room hub, limits, rate limiters and metrics.
public final class Platform: Sendable {
    public let store: Store
    public let perception: Perception
    public let limits: Limits
    public let metrics = ServerMetrics()
    /// The IV application's collections (its tables migrated by ``SentioServer/prepare(_:)``).
    public let iv: IVCollection
    /// The attendance application's register (its tables migrated by ``SentioServer/prepare(_:)``).
    public let attendance: AttendanceRegister
    /// The puzzle game's players and progress (its tables migrated by ``SentioServer/prepare(_:)``).
    public let puzzler: PuzzlerProgress
    /// A fixed liveness challenge (tests and demonstrations; nil: a random one per check-in).
    public let fixedLivenessChallenge: LivenessChallenge?
    let accounts: Accounts
    let rooms: Rooms
    let hub: RoomHub
    let passwords: Passwords
    let stillsLimiter: TokenBuckets
    let loginFailures: FailureWindow
    let streamSlots: StreamSlots
    /// The folder of pages and the OpenAPI document.
    let publicDirectory: String
    /// Whether cookies are marked Secure (the server speaks HTTPS).
    let secureCookies: Bool
    /// The addresses the server listens on, once it does (the pairing QR code needs them).
    let addresses = AddressBook()

    /// An error only when the IV scanner's bundled game data is damaged.
    public init(store: Store, perception: Perception, limits: Limits, publicDirectory: String, secureCookies: Bool, logger: Logger,
                fixedLivenessChallenge: LivenessChallenge? = nil) throws {
        self.fixedLivenessChallenge = fixedLivenessChallenge
        self.store = store
        self.perception = perception
        self.limits = limits
        self.publicDirectory = publicDirectory
        self.secureCookies = secureCookies
        accounts = Accounts(store: store)
        rooms = Rooms(store: store)
        hub = RoomHub(broadcaster: Broadcaster(store: store), logger: logger)
        passwords = Passwords(cost: limits.bcryptCost)
        stillsLimiter = TokenBuckets(burst: limits.stillsBurst, perSecond: limits.stillsPerSecond)
        loginFailures = FailureWindow(limit: limits.loginFailures, seconds: limits.loginWindowSeconds)
        streamSlots = StreamSlots(limits: limits)
        iv = IVCollection(store: store, calculator: try IVCalculator())
        attendance = AttendanceRegister(store: store)
        puzzler = PuzzlerProgress(store: store)
    }

    /// Makes a user (what `sentio admin create` does); the error says what to change.
    public func createUser(username: String, displayName: String?, role: Role, password: String) async throws -> User {
        try await AccountRoutes(platform: self).createUser(.init(username: username, displayName: displayName, role: role, password: password), actor: nil)
    }
}
