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
    /// Stills admitted by their cost: compute credit per address, lanes, pixels in flight.
    let admission: ComputeAdmission
    /// Connections per address and in all, capped.
    let connections: ConnectionTable
    /// Failed password checks of a signed-in user (the administrator's hand-over).
    let loginFailures: FailureWindow
    /// Failed sign-ins per (address, account) and per address.
    let signIns: SignInThrottle
    /// Class-list imports, run in the background one at a time.
    let imports: ImportJobs
    /// Wrong check-in and room codes per address and per user (``lookUpCode(_:_:)``).
    let codeGuesses: FailureWindow
    /// The WebSocket pools (streams, room watchers) and what each upgrade resolved.
    let sockets: Sockets
    /// The folder of pages and the OpenAPI document.
    let publicDirectory: String
    /// Whether cookies are marked Secure (the server speaks HTTPS).
    let secureCookies: Bool
    /// The addresses the server listens on, once it does (the pairing QR code needs them).
    let addresses = AddressBook()

    /// An error only when the IV scanner's bundled game data is damaged.
    public init(store: Store, perception: Perception, limits: Limits, publicDirectory: String, secureCookies: Bool, logger: Logger,
                fixedLivenessChallenge: LivenessChallenge? = nil, faceModel: FaceModel = .sface) throws {
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
        admission = ComputeAdmission(limits: limits)
        // Keep a margin of files for the database, models, pages and the streams' own use.
        connections = ConnectionTable(perClient: limits.maxConnectionsPerClient,
                                      limit: max(64, min(limits.maxConnections, openFileLimit() - 256)), proxies: limits.trustedProxies)
        loginFailures = FailureWindow(limit: limits.loginFailures, seconds: limits.loginWindowSeconds)
        codeGuesses = FailureWindow(limit: limits.codeGuessFailures, seconds: limits.codeGuessWindowSeconds)
        signIns = SignInThrottle(perPair: limits.loginFailures, perAddress: limits.loginFailuresPerAddress, seconds: limits.loginWindowSeconds)
        sockets = Sockets(limits: limits)
        iv = IVCollection(store: store, calculator: try IVCalculator())
        attendance = AttendanceRegister(store: store, faceModel: faceModel)
        puzzler = PuzzlerProgress(store: store)
        imports = ImportJobs(register: attendance, passwords: passwords)
    }

    /// Makes a user (what `sentio admin create` does); the error says what to change.
    public func createUser(username: String, displayName: String?, role: Role, password: String) async throws -> User {
        try await AccountRoutes(platform: self).createUser(.init(username: username, displayName: displayName, role: role, password: password), actor: nil)
    }
}
