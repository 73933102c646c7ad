import Attendance
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import SentioImage
import SentioStore

/// The attendance application's API (pages in Public/attendance). A thin layer: the rules live
/// in the Attendance module. The access table lets the roles in; who may touch which course
/// (its professors, its students, the administrator) is checked here, per request, with
/// ``course(_:_:for:)``. Professors work only after a face check in their session (the
/// `/api/v1/attendance/face-proof` stream, with the liveness challenge); confirming a lecture,
/// editing a record and handing over the administrator role spend a fresh proof made in the
/// same session. Kiosk devices have their own routes (``KioskRoutes``).
struct AttendanceRoutes {
    let platform: Platform
    var register: AttendanceRegister { platform.attendance }

    struct NewCourse: Decodable { var code: String; var title: String; var academicYear: String }
    struct Member: Decodable { var user: String }
    struct NewLecture: Decodable { var title: String; var startsAt: Int64; var endsAt: Int64 }
    struct Confirm: Decodable { var headcount: Int?; var proof: String }
    /// `remark`: absent leaves the record's remark, "" clears it (``Remark``).
    struct Edit: Decodable { var status: AttendanceStatus; var remark: String?; var proof: String }
    struct Roles: Encodable { var policy: MatchPolicy; var faceVerified: Bool }

    func register(on router: Router<AppContext>) {
        // Who am I to the attendance app: the match policy and whether this session's face is checked.
        router.route(.get, "/api/v1/attendance/me") { _, context in
            let me = try identity(context)
            return try Response.json(Roles(policy: register.policy, faceVerified: try await register.isFaceVerified(user: me.user.id, session: me.tokenHash)))
        }
        router.route(.get, "/api/v1/attendance/people") { request, context in
            let role = try Query(request, allowed: ["role"]).string("role")
            if let role, Role(rawValue: role) == nil {
                throw HTTPError(.badRequest, message: "role is one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            // The register of people is attendance data: a professor sees it only after the
            // session's face check, as every other attendance route (issue 34, finding 12).
            try await faceGate(try identity(context))
            return try Response.json(try await register.people(role: role))
        }
        router.route(.get, "/api/v1/attendance/courses") { request, context in
            let me = try identity(context)
            let query = try Query(request, allowed: ["year"])
            if let year = query.string("year"), !AttendanceRegister.validYear(year) {
                throw HTTPError(.badRequest, message: "year is an academic year like 2026/27, not '\(year)'")
            }
            try await faceGate(me)
            return try Response.json(try await register.courses(for: me.user.id, role: me.user.role.rawValue, year: query.string("year")))
        }
        router.route(.post, "/api/v1/attendance/courses") { request, context in
            let me = try identity(context)
            let body = try await decode(NewCourse.self, request, context)
            return try Response.json(try await register.createCourse(code: body.code, title: body.title, academicYear: body.academicYear, actor: me.user.id),
                                     status: .created)
        }
        router.route(.get, "/api/v1/attendance/courses/{course}") { _, context in
            let (course, _) = try await self.course(context, "course", for: .read)
            return try Response.json(course)
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/professors") { request, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .administer)
            let body = try await decode(Member.self, request, context)
            try await register.assignProfessor(body.user, course: course.id, actor: me.user.id)
            return try Response.json(try await register.course(course.id))
        }
        router.route(.delete, "/api/v1/attendance/courses/{course}/professors/{user}") { _, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .administer)
            try await register.removeProfessor(try context.parameters.require("user"), course: course.id, actor: me.user.id)
            return Response(status: .noContent)
        }
        router.route(.get, "/api/v1/attendance/courses/{course}/students") { _, context in
            let (course, _) = try await self.course(context, "course", for: .teach)
            return try Response.json(try await register.students(course: course.id))
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/students") { request, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .administer)
            let body = try await decode(Member.self, request, context)
            try await register.enrol(body.user, course: course.id, actor: me.user.id)
            return try Response.json(try await register.students(course: course.id))
        }
        router.route(.delete, "/api/v1/attendance/courses/{course}/students/{user}") { _, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .administer)
            try await register.unenrol(try context.parameters.require("user"), course: course.id, actor: me.user.id)
            return Response(status: .noContent)
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/students.csv") { request, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .administer)
            return try await startImport(request, course: course.id, actor: me.user.id)
        }
        router.route(.get, "/api/v1/attendance/imports/{job}") { _, context in
            let me = try identity(context), id = try context.parameters.require("job")
            guard let job = await platform.imports.job(id, owner: me.user.id) else { throw HTTPError(.notFound, message: "no import \(id) of yours") }
            return try Response.json(job)
        }
        router.route(.get, "/api/v1/attendance/courses/{course}/lectures") { _, context in
            let (course, _) = try await self.course(context, "course", for: .read)
            return try Response.json(try await register.lectures(course: course.id))
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/lectures") { request, context in
            let me = try identity(context)
            let (course, _) = try await self.course(context, "course", for: .teach)
            let body = try await decode(NewLecture.self, request, context)
            return try Response.json(try await register.createLecture(course: course.id, title: body.title, startsAt: body.startsAt, endsAt: body.endsAt, actor: me.user.id), status: .created)
        }
        router.route(.get, "/api/v1/attendance/courses/{course}/attendance.csv") { _, context in
            let (course, _) = try await self.course(context, "course", for: .teach)
            let csv = try await register.exportCSV(course: course.id)
            let name = course.code.filter { $0.isLetter || $0.isNumber } + "-" + course.academicYear.replacingOccurrences(of: "/", with: "-")
            return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"attendance-\(name).csv\""],
                            body: .init(byteBuffer: ByteBuffer(string: csv)))
        }
        router.route(.get, "/api/v1/attendance/lectures/{lecture}") { _, context in
            let lecture = try await self.lecture(context, for: .teach)
            return try Response.json(try await register.roll(lecture: lecture.id))
        }
        router.route(.post, "/api/v1/attendance/lectures/{lecture}/open") { _, context in
            let me = try identity(context)
            let lecture = try await self.lecture(context, for: .teach)
            return try Response.json(try await register.open(lecture: lecture.id, actor: me.user.id))
        }
        router.route(.post, "/api/v1/attendance/lectures/{lecture}/confirm") { request, context in
            let me = try identity(context)
            let lecture = try await self.lecture(context, for: .teach)
            let body = try await decode(Confirm.self, request, context)
            let distance = try await register.useFaceProof(body.proof, user: me.user.id, session: me.tokenHash)
            return try Response.json(try await register.confirm(lecture: lecture.id, professor: me.user.id, faceDistance: distance, headcount: body.headcount))
        }
        router.route(.put, "/api/v1/attendance/lectures/{lecture}/records/{student}") { request, context in
            let me = try identity(context)
            let lecture = try await self.lecture(context, for: .teach)
            let body = try await decode(Edit.self, request, context)
            // The remark is checked before the proof is spent: a remark too long costs no face check.
            if let remark = body.remark { _ = try Remark.check(remark) }
            let distance = try await register.useFaceProof(body.proof, user: me.user.id, session: me.tokenHash)
            return try Response.json(try await register.edit(lecture: lecture.id, student: try context.parameters.require("student"), status: body.status,
                                        remark: body.remark, professor: me.user.id, faceDistance: distance))
        }
        router.route(.get, "/api/v1/attendance/lectures/{lecture}/audit") { _, context in
            let lecture = try await self.lecture(context, for: .teach)
            return try Response.json(try await register.auditTrail(lecture: lecture.id))
        }
        router.route(.get, "/api/v1/attendance/checkin/lecture") { request, context in
            let (lecture, _) = try await ownLecture(request, context)
            guard let course = try await register.course(lecture.courseID) else { throw HTTPError(.notFound, message: "the lecture's course is gone") }
            return try Response.json(CodeLecture(lecture: lecture, courseCode: course.code, courseTitle: course.title))
        }
        router.route(.get, "/api/v1/attendance/my-attendance") { _, context in
            let me = try identity(context)
            return try Response.json(try await register.attendance(student: me.user.id))
        }
        AttendanceFaceRoutes(platform: platform).register(on: router)
        AttendancePlanningRoutes(platform: platform, attendance: self).register(on: router)
        KioskRoutes(platform: platform, attendance: self).register(on: router)
    }

    /// A signed-in user's own face proof (with the liveness challenge), a lecture's kiosk
    /// device, and a student's own phone.
    func register(webSocket router: Router<AppContext>) {
        router.socket("/api/v1/attendance/face-proof", name: "face-proof", pool: .streams, platform: platform) { _, context in
            try identity(context)
        } run: { me, inbound, outbound, _ in
            try await KioskConnection(mode: .proof(user: me.user.id, session: me.tokenHash), platform: platform).run(inbound: inbound, outbound: outbound)
        }
        router.socket("/api/v1/attendance/kiosk/stream", name: "kiosk", pool: .streams, platform: platform) { _, context in
            guard let device = context.kiosk else { throw HTTPError(.unauthorized, message: "this device is not a lecture's kiosk") }
            guard let lecture = try await register.lecture(device.lectureID) else { throw HTTPError(.notFound, message: "the kiosk's lecture is gone") }
            return (device, lecture)
        } run: { resolved, inbound, outbound, _ in
            try await KioskConnection(mode: .kiosk(resolved.0, lecture: resolved.1), platform: platform).run(inbound: inbound, outbound: outbound)
        }
        router.socket("/api/v1/attendance/checkin", name: "checkin", pool: .streams, platform: platform) { request, context in
            let (lecture, code) = try await ownLecture(request, context)
            return (lecture, code, try identity(context))
        } run: { resolved, inbound, outbound, _ in
            let (lecture, code, me) = resolved
            try await KioskConnection(mode: .ownDevice(lecture: lecture, student: me.user.id, code: code), platform: platform)
                .run(inbound: inbound, outbound: outbound)
        }
    }

    /// The open lecture of the `code` query parameter, in one of the student's courses. A code
    /// of another course's open lecture says so (the student typed a real code, in the wrong
    /// room); it still counts as a wrong guess, as an unknown code does.
    func ownLecture(_ request: Request, _ context: AppContext) async throws -> (Lecture, String) {
        let me = try identity(context)
        let code = try Query(request, allowed: ["code"]).string("code") ?? ""
        var otherCourse: String?
        let found = try await platform.lookUpCode(context) { () async throws -> Lecture? in
            guard let lecture = try await register.openLecture(code: code) else { return nil }
            guard try await register.isEnrolled(me.user.id, course: lecture.courseID) else {
                otherCourse = try await register.course(lecture.courseID)?.code
                return nil
            }
            return lecture
        }
        guard let lecture = found else {
            if let otherCourse {
                throw HTTPError(.forbidden, message: "you are not enrolled in \(otherCourse), the course of the lecture with the code \(code)")
            }
            throw HTTPError(.notFound, message: "no open lecture of your courses has the code \(code)")
        }
        return (lecture, code)
    }

    /// What a student's phone shows before its camera starts: which lecture a code opens.
    struct CodeLecture: Encodable { var lecture: Lecture; var courseCode: String; var courseTitle: String }

    /// Checks a class list (`username,display name` rows, a header row skipped) and queues its
    /// import as a background job (``ImportJobs``); every problem of the list is a 422 naming
    /// its line, before anything is queued.
    func startImport(_ request: Request, course: String, actor: String) async throws -> Response {
        guard request.headers[.contentType]?.lowercased().hasPrefix("text/csv") == true else {
            throw HTTPError(.unsupportedMediaType, message: "send the CSV with Content-Type text/csv")
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: 1 << 20) } catch { throw HTTPError(.contentTooLarge, message: "a CSV of at most 1 MiB") }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else { throw HTTPError(.badRequest, message: "the CSV is not UTF-8 text") }
        let list = try StudentImport(csv: text)
        let job = try await platform.imports.start(list, course: course, owner: actor)
        var response = try Response.json(job, status: .accepted)
        response.headers[.location] = "/api/v1/attendance/imports/\(job.id)"
        return response
    }

    func identity(_ context: AppContext) throws -> Identity {
        guard let identity = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
        return identity
    }

    /// Professors work with attendance only after checking their face in this session.
    func faceGate(_ me: Identity) async throws {
        guard me.user.role == .professor else { return }
        guard try await register.isFaceVerified(user: me.user.id, session: me.tokenHash) else {
            throw HTTPError(.forbidden, message: "professors check their face after signing in (the /api/v1/attendance/face-proof stream)")
        }
    }

    enum Need { case read, teach, administer }

    /// The course the path names, if the caller may: read (its professors, its students, the
    /// administrator), teach (its professors, the administrator), administer (the administrator).
    /// A course the caller may not see is 404, as if it did not exist.
    func course(_ context: AppContext, _ parameter: String, for need: Need) async throws -> (Course, Identity) {
        let me = try identity(context)
        let id = try context.parameters.require(parameter)
        guard let course = try await register.course(id) else { throw HTTPError(.notFound, message: "no course \(id)") }
        try await allow(me, course: course.id, need)
        return (course, me)
    }

    func allow(_ me: Identity, course: String, _ need: Need) async throws {
        switch me.user.role {
        case .admin: return
        case .professor where need != .administer:
            guard try await register.isProfessor(me.user.id, course: course) else { throw HTTPError(.notFound, message: "no course \(course) of yours") }
            try await faceGate(me)
        case .student where need == .read:
            guard try await register.isEnrolled(me.user.id, course: course) else { throw HTTPError(.notFound, message: "no course \(course) of yours") }
        default:
            throw HTTPError(.forbidden, message: "your role may not do this")
        }
    }

    func lecture(_ context: AppContext, for need: Need) async throws -> Lecture {
        let me = try identity(context)
        let id = try context.parameters.require("lecture")
        guard let lecture = try await register.lecture(id) else { throw HTTPError(.notFound, message: "no lecture \(id)") }
        do { try await allow(me, course: lecture.courseID, need) } catch let error as HTTPError where error.status == .notFound {
            throw HTTPError(.notFound, message: "no lecture \(id) of yours")
        }
        return lecture
    }
}
