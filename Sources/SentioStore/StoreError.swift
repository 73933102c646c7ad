/// What went wrong in the store, in words a person can act on. Messages never contain passwords.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `--database` address could not be understood.
    case badLocation(String, reason: String)
    /// The database could not be opened or reached.
    case unavailable(String, reason: String)
    /// The database holds a schema newer than this program knows (a newer Sentio migrated it).
    case schemaTooNew(found: Int, known: Int)
    /// A migration failed; the database is left at the previous version.
    case migrationFailed(version: Int, name: String, reason: String)
    /// A row that must be unique already exists (e.g. a user name).
    case conflict(String)
    /// A row that was asked for does not exist.
    case notFound(String)
    /// The caller may no longer do this (their role changed since the request began).
    case notAllowed(String)
    /// The store was closed.
    case closed

    public var description: String {
        switch self {
        case .badLocation(let text, let reason): "database address '\(text)': \(reason)"
        case .unavailable(let location, let reason): "database \(location) is unavailable: \(reason)"
        case .schemaTooNew(let found, let known):
            "the database's schema is version \(found) but this Sentio knows versions up to \(known); use a newer Sentio"
        case .migrationFailed(let version, let name, let reason): "migration \(version) (\(name)) failed: \(reason)"
        case .conflict(let what): "\(what) already exists"
        case .notFound(let what): "\(what) does not exist"
        case .notAllowed(let why): why
        case .closed: "the store is closed"
        }
    }
}
