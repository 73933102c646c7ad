import Attendance
import Foundation
import Hummingbird
import SentioStore

/// A lecture's kiosk is a device, not a session (issue 37). A professor (or the administrator)
/// turns the browser in front of them into the lecture's kiosk: their session in that browser
/// ends and the browser holds a kiosk token instead (an HttpOnly cookie sent only to
/// `/api/v1/attendance/kiosk…`), which can do the lecture's check-ins and nothing else. A
/// student left alone with the tablet reaches no professor page and no professor act. Leaving
/// the kiosk takes the operator's password and a live face proof made at the kiosk, and signs
/// the operator back in there; the professor can also end the lecture's kiosks from another
/// device. Docs: docs/attendance.md, "The kiosk".
struct KioskRoutes {
    let platform: Platform
    let attendance: AttendanceRoutes
    var register: AttendanceRegister { platform.attendance }

    struct Started: Encodable { var lecture: String; var expiresAt: Int64; var page: String }
    struct Ended: Encodable { var ended: Int }
    /// What the kiosk shows: the lecture, its course, the count, never the class list.
    struct About: Encodable {
        var lecture: Lecture; var courseCode: String; var courseTitle: String
        var checkedIn: Int; var expected: Int; var operatorName: String; var expiresAt: Int64
    }
    /// A student the type-ahead found: the name to show and whether a face check is possible.
    struct Name: Encodable { var id: String; var displayName: String; var hasFace: Bool }
    struct Leave: Decodable { var password: String; var proof: String }
    struct Left: Encodable { var next: String }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/attendance/lectures/{lecture}/kiosk-device") { _, context in
            let me = try attendance.identity(context)
            let lecture = try await attendance.lecture(context, for: .teach)
            let token = SessionToken.make()
            let device = try await register.startKiosk(lecture: lecture.id, operatorID: me.user.id, tokenHash: SessionToken.hash(token))
            var response = try Response.json(Started(lecture: lecture.id, expiresAt: device.expiresAt, page: "/attendance/kiosk.html"), status: .created)
            // This browser is the kiosk now, no longer the professor's: their session here ends
            // (their other devices keep theirs).
            try await AccountRoutes(platform: platform).closeSession(me.tokenHash, in: &response)
            response.setCookie(Self.cookie(token, maxAge: Int(AttendanceRegister.kioskHours * 3600), secure: platform.secureCookies))
            response.setCookie(Self.hint(maxAge: Int(AttendanceRegister.kioskHours * 3600), secure: platform.secureCookies))
            return response
        }
        router.route(.delete, "/api/v1/attendance/lectures/{lecture}/kiosk-device") { _, context in
            let me = try attendance.identity(context)
            let lecture = try await attendance.lecture(context, for: .teach)
            return try Response.json(Ended(ended: try await register.endKiosks(lecture: lecture.id, actor: me.user.id)))
        }
        router.route(.get, "/api/v1/attendance/kiosk") { _, context in
            let device = try kiosk(context)
            let roll = try await register.roll(lecture: device.lectureID)
            let operatorName = try await platform.accounts.user(id: device.operatorID)?.displayName ?? "the professor"
            return try Response.json(About(lecture: roll.lecture, courseCode: roll.course.code, courseTitle: roll.course.title,
                                           checkedIn: roll.checkedIn.count, expected: roll.checkedIn.count + roll.missing.count,
                                           operatorName: operatorName, expiresAt: device.expiresAt))
        }
        router.route(.get, "/api/v1/attendance/kiosk/names") { request, context in
            let device = try kiosk(context)
            let text = try Query(request, allowed: ["q"]).string("q") ?? ""
            guard text.count <= 100 else { throw HTTPError(.badRequest, message: "q: at most 100 characters") }
            let found = try await register.missingStudents(lecture: device.lectureID, matching: text)
            return try Response.json(found.map { Name(id: $0.id, displayName: $0.displayName, hasFace: $0.faces > 0) })
        }
        router.route(.post, "/api/v1/attendance/kiosk/leave") { request, context in
            let device = try kiosk(context)
            let body = try await decode(Leave.self, request, context)
            guard let user = try await platform.accounts.user(id: device.operatorID) else {
                throw HTTPError(.notFound, message: "the kiosk's operator no longer exists; clear this browser's cookies")
            }
            // Wrong passwords count as failed sign-ins of the operator (as at sign-in).
            try await platform.checkPassword(body.password, username: user.username) {
                try await register.audit(AuditEntry(lectureID: device.lectureID, actor: nil, subject: user.id, action: "kiosk.leave", outcome: "refused",
                                                    detail: "wrong password"))
            }
            let distance: Double
            do {
                distance = try await register.useFaceProof(body.proof, user: user.id, session: device.proofSession)
            } catch let error as AttendanceError {
                try await register.audit(AuditEntry(lectureID: device.lectureID, actor: nil, subject: user.id, action: "kiosk.leave", outcome: "refused",
                                                    detail: error.description))
                throw error
            }
            try await register.endKiosk(device, actor: user.id)
            // The operator is back: signed in here, with the face just checked.
            let accounts = AccountRoutes(platform: platform)
            let (session, cookies) = try await accounts.openSession(for: user)
            _ = try await register.recordFaceProof(user: user.id, session: session.tokenHash, distance: distance)
            var response = try Response.json(Left(next: "/attendance/lecture.html?lecture=\(device.lectureID)"))
            cookies.forEach { response.setCookie($0) }
            response.setCookie(Self.cookie("", maxAge: 0, secure: platform.secureCookies))
            response.setCookie(Self.hint(maxAge: 0, secure: platform.secureCookies))
            return response
        }
    }

    func kiosk(_ context: AppContext) throws -> KioskDevice {
        guard let device = context.kiosk else { throw HTTPError(.unauthorized, message: "this device is not a lecture's kiosk") }
        return device
    }

    /// A cookie the kiosk page can read (the token's is HttpOnly) that says only "this browser
    /// is a kiosk": without it the page shows its gate without asking the API, so a guest's
    /// kiosk page makes no request answered 401 (as ``AccountRoutes/signedInHint(maxAge:secure:)``).
    static func hint(maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: "sentio_kiosk_device", value: maxAge > 0 ? "1" : "", maxAge: maxAge, path: "/", secure: secure, httpOnly: false, sameSite: .strict)
    }

    /// The kiosk token's cookie: HttpOnly, SameSite=Strict, sent only to the kiosk's routes.
    static func cookie(_ token: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: SessionMiddleware.kioskCookie, value: token, maxAge: maxAge, path: "/api/v1/attendance/kiosk", secure: secure, httpOnly: true,
               sameSite: .strict)
    }
}
