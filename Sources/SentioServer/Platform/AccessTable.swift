import HTTPTypes
import SentioStore

/// Who may call a route.
public enum Access: Sendable, Equatable {
    /// Anyone, signed in or not (the stills, the games' streams, pairing).
    case anyone
    /// Any signed-in user.
    case signedIn
    /// Signed-in users with one of these roles.
    case roles(Set<Role>)
    /// The user the path's `{id}` names, or a user with one of these roles.
    case selfOr(Set<Role>)
    /// A lecture's kiosk device (its `sentio_kiosk` cookie), whoever is signed in or not.
    case kiosk
}

/// One row of the access table.
public struct RouteRule: Sendable, Equatable {
    public var method: HTTPRequest.Method
    /// The path as registered, parameters in braces: `/api/v1/users/{id}`.
    public var path: String
    public var access: Access
    /// Whether it is a WebSocket upgrade (GET) rather than a plain request.
    public var webSocket = false
}

/// Who may call what: the one table of the server. Every route the server registers must be
/// here (registration checks it at start), and the role test walks every row with every role.
public enum AccessTable {
    public static let rules: [RouteRule] = [
        RouteRule(method: .get, path: "/healthz", access: .anyone),
        RouteRule(method: .get, path: "/metrics", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/openapi.json", access: .anyone),
        // Stills: guests may use them (rate-limited per client).
        RouteRule(method: .post, path: "/api/v1/faces", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/hands", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/pose", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/faces/embed", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/faces/compare", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/iv/scan", access: .anyone),
        // Accounts.
        RouteRule(method: .post, path: "/api/v1/session", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/session", access: .signedIn),
        RouteRule(method: .delete, path: "/api/v1/session", access: .signedIn),
        RouteRule(method: .put, path: "/api/v1/session/password", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/users", access: .roles([.admin])),
        RouteRule(method: .post, path: "/api/v1/users", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/users/{id}", access: .selfOr([.admin])),
        RouteRule(method: .delete, path: "/api/v1/users/{id}", access: .selfOr([.admin])),
        RouteRule(method: .get, path: "/api/v1/audit", access: .roles([.admin])),
        // Pairing.
        RouteRule(method: .post, path: "/api/v1/rooms", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/rooms/{code}", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/rooms/{code}/qr.svg", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/rooms/{code}/events", access: .anyone, webSocket: true),
        // The IV application: anyone may evaluate and read the game info; the collection is each
        // signed-in player's own (another's Pokémon answers 404, checked by the route).
        RouteRule(method: .post, path: "/api/v1/iv/evaluate", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/iv/species", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/iv/species/{name}", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/iv/collection", access: .signedIn),
        RouteRule(method: .post, path: "/api/v1/iv/collection", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/iv/collection/{pokemon}", access: .signedIn),
        RouteRule(method: .put, path: "/api/v1/iv/collection/{pokemon}", access: .signedIn),
        RouteRule(method: .delete, path: "/api/v1/iv/collection/{pokemon}", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/iv/scans/{scan}/image", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/iv/collection.csv", access: .signedIn),
        RouteRule(method: .post, path: "/api/v1/iv/collection.csv", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/iv/collection-by-species", access: .signedIn),
        // The attendance application. The roles enter here; which course a professor or student
        // may touch is checked by the route (another's course answers 404), and professors need a
        // face check in their session (AttendanceRoutes).
        RouteRule(method: .get, path: "/api/v1/attendance/me", access: .signedIn),
        RouteRule(method: .get, path: "/api/v1/attendance/people", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/courses", access: .signedIn),
        RouteRule(method: .post, path: "/api/v1/attendance/courses", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/attendance/courses/{course}", access: .roles([.admin, .professor, .student])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/professors", access: .roles([.admin])),
        RouteRule(method: .delete, path: "/api/v1/attendance/courses/{course}/professors/{user}", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/attendance/courses/{course}/students", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/students", access: .roles([.admin])),
        RouteRule(method: .delete, path: "/api/v1/attendance/courses/{course}/students/{user}", access: .roles([.admin])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/students.csv", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/attendance/imports/{job}", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/attendance/courses/{course}/lectures", access: .roles([.admin, .professor, .student])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/lectures", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/courses/{course}/attendance.csv", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/lectures/{lecture}", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/lectures/{lecture}/open", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/lectures/{lecture}/confirm", access: .roles([.professor])),
        RouteRule(method: .put, path: "/api/v1/attendance/lectures/{lecture}/records/{student}", access: .roles([.professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/lectures/{lecture}/audit", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/my-attendance", access: .roles([.student])),
        // Timetables and reports (issue 37, item 5): the course's professors (face-checked) and
        // the administrator; another professor's course answers 404 (the route checks it).
        RouteRule(method: .get, path: "/api/v1/attendance/courses/{course}/slots", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/slots", access: .roles([.admin, .professor])),
        RouteRule(method: .delete, path: "/api/v1/attendance/courses/{course}/slots/{slot}", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions", access: .roles([.admin, .professor])),
        RouteRule(method: .delete, path: "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions/{date}", access: .roles([.admin, .professor])),
        RouteRule(method: .post, path: "/api/v1/attendance/courses/{course}/timetable", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/report", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/report.csv", access: .roles([.admin, .professor])),
        // A face proof is made over a stream, with the liveness challenge (issue 37): never one frame.
        RouteRule(method: .get, path: "/api/v1/attendance/face-proof", access: .signedIn, webSocket: true),
        RouteRule(method: .get, path: "/api/v1/attendance/people/{id}/faces", access: .selfOr([.admin])),
        // Enrolment is the administrator's: a student enrolling their own account could put a
        // friend's face on it and let the friend check in for them. Seeing and deleting one's own
        // face data stays with the person.
        RouteRule(method: .post, path: "/api/v1/attendance/people/{id}/faces", access: .roles([.admin])),
        RouteRule(method: .delete, path: "/api/v1/attendance/people/{id}/faces", access: .selfOr([.admin])),
        RouteRule(method: .post, path: "/api/v1/attendance/people/{id}/reenrol", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/attendance/people/{id}/faces/{photo}", access: .selfOr([.admin])),
        RouteRule(method: .post, path: "/api/v1/attendance/people/{id}/verify", access: .roles([.admin])),
        RouteRule(method: .post, path: "/api/v1/attendance/admin-handover", access: .roles([.admin])),
        // A kiosk is a device, not a session (issue 37): the professor turns a browser into the
        // lecture's kiosk (their session there ends); the device then reaches only these routes.
        RouteRule(method: .post, path: "/api/v1/attendance/lectures/{lecture}/kiosk-device", access: .roles([.admin, .professor])),
        RouteRule(method: .delete, path: "/api/v1/attendance/lectures/{lecture}/kiosk-device", access: .roles([.admin, .professor])),
        RouteRule(method: .get, path: "/api/v1/attendance/kiosk", access: .kiosk),
        RouteRule(method: .get, path: "/api/v1/attendance/kiosk/names", access: .kiosk),
        RouteRule(method: .get, path: "/api/v1/attendance/kiosk/stream", access: .kiosk, webSocket: true),
        RouteRule(method: .post, path: "/api/v1/attendance/kiosk/leave", access: .kiosk),
        RouteRule(method: .get, path: "/api/v1/attendance/checkin", access: .roles([.student]), webSocket: true),
        RouteRule(method: .get, path: "/api/v1/attendance/checkin/lecture", access: .roles([.student])),
        // The puzzle game: guests play too (a device cookie names them); each player reaches
        // only their own progress, so there is no other player's data to guard per route.
        RouteRule(method: .get, path: "/api/v1/puzzler/levels", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/puzzler/progress", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/resume", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/levels/{level}/hints", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/levels/{level}/events", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/meteors", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/meteors/{round}", access: .anyone),
        RouteRule(method: .post, path: "/api/v1/puzzler/pair", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/puzzler/pairings/{code}", access: .anyone),
        RouteRule(method: .get, path: "/api/v1/puzzler/difficulty", access: .roles([.admin])),
        RouteRule(method: .get, path: "/api/v1/puzzler/levels/{level}/play", access: .anyone, webSocket: true),
        // Live streams.
        RouteRule(method: .get, path: "/api/v1/stream/faces", access: .anyone, webSocket: true),
        RouteRule(method: .get, path: "/api/v1/stream/hands", access: .anyone, webSocket: true),
        RouteRule(method: .get, path: "/api/v1/stream/pose", access: .anyone, webSocket: true),
        RouteRule(method: .get, path: "/api/v1/stream/motion", access: .anyone, webSocket: true),
        RouteRule(method: .get, path: "/api/v1/stream/gestures", access: .anyone, webSocket: true),
    ]

    /// The rule for a registered route; stops the server at start when a route is missing.
    static func rule(_ method: HTTPRequest.Method, _ path: String) -> RouteRule {
        guard let rule = rules.first(where: { $0.method == method && $0.path == path }) else {
            preconditionFailure("route \(method) \(path) is not in the access table (AccessTable.rules)")
        }
        return rule
    }

    /// Whether `identity` (or a kiosk device, `kiosk`) may call a route with `rule`; `pathID`
    /// is the `{id}` of the path.
    public static func decide(_ rule: RouteRule, identity: User?, kiosk: Bool = false, pathID: String?) -> Decision {
        switch rule.access {
        case .anyone: return .allowed
        case .kiosk: return kiosk ? .allowed : .kioskRequired
        case .signedIn: return identity == nil ? .signInRequired : .allowed
        case .roles(let roles):
            guard let identity else { return .signInRequired }
            return roles.contains(identity.role) ? .allowed : .forbidden
        case .selfOr(let roles):
            guard let identity else { return .signInRequired }
            return roles.contains(identity.role) || identity.id == pathID ? .allowed : .forbidden
        }
    }

    public enum Decision: Sendable, Equatable { case allowed, signInRequired, kioskRequired, forbidden }
}
