import Attendance
import Foundation
import Hummingbird
import NIOCore
import SentioStore

/// What lecturers expect of an attendance system besides the check-in (issue 37, item 5): a
/// course's weekly timetable that makes its lectures, and reports over a date range across
/// courses. The course's professors (after their face check) and the administrator; another
/// professor's course answers 404, a student 403 (the access table). The rules are the
/// register's (``Timetable``, ``AttendanceReport``).
struct AttendancePlanningRoutes {
    let platform: Platform
    let attendance: AttendanceRoutes
    var register: AttendanceRegister { platform.attendance }

    struct ExceptionDate: Decodable { var date: String }

    func register(on router: Router<AppContext>) {
        router.route(.get, "/api/v1/attendance/courses/{course}/slots") { _, context in
            let (course, _) = try await attendance.course(context, "course", for: .teach)
            return try Response.json(try await register.slots(course: course.id))
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/slots") { request, context in
            let (course, me) = try await attendance.course(context, "course", for: .teach)
            let draft = try await decode(TimetableSlot.Draft.self, request, context)
            return try Response.json(try await register.defineSlot(course: course.id, draft, actor: me.user.id), status: .created)
        }
        router.route(.delete, "/api/v1/attendance/courses/{course}/slots/{slot}") { _, context in
            let (_, me) = try await slot(context)
            let gone = try await register.deleteSlot(try context.parameters.require("slot"), actor: me.user.id)
            return try Response.json(["removedLectures": gone])
        }
        router.route(.post, "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions") { request, context in
            let (slot, me) = try await slot(context)
            let body = try await decode(ExceptionDate.self, request, context)
            return try Response.json(try await register.addException(slot: slot.id, date: body.date, actor: me.user.id), status: .created)
        }
        router.route(.delete, "/api/v1/attendance/courses/{course}/slots/{slot}/exceptions/{date}") { _, context in
            let (slot, me) = try await slot(context)
            return try Response.json(try await register.removeException(slot: slot.id, date: try context.parameters.require("date"), actor: me.user.id))
        }
        // Makes the timetable's lectures (idempotent: run again, it makes only what is missing).
        router.route(.post, "/api/v1/attendance/courses/{course}/timetable") { _, context in
            let (course, me) = try await attendance.course(context, "course", for: .teach)
            return try Response.json(try await register.generateLectures(course: course.id, actor: me.user.id))
        }
        router.route(.get, "/api/v1/attendance/report") { request, context in
            try Response.json(try await report(request, context))
        }
        router.route(.get, "/api/v1/attendance/report.csv") { request, context in
            let report = try await report(request, context)
            return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8",
                                                   .contentDisposition: "attachment; filename=\"attendance-report.csv\""],
                            body: .init(byteBuffer: ByteBuffer(string: AttendanceRegister.reportCSV(report))))
        }
    }

    /// The slot of the path, in the course of the path, which the caller teaches.
    func slot(_ context: AppContext) async throws -> (TimetableSlot, Identity) {
        let (course, me) = try await attendance.course(context, "course", for: .teach)
        let id = try context.parameters.require("slot")
        guard let slot = try await register.slot(id), slot.courseID == course.id else { throw HTTPError(.notFound, message: "no timetable slot \(id) in this course") }
        return (slot, me)
    }

    /// The report the query asks for: `from` and `to` (dates, `YYYY-MM-DD`, both included, in
    /// `zone` or the server's time zone), `course` (one; default every course the caller
    /// teaches, or every course for the administrator), `threshold` (percent, default 75).
    func report(_ request: Request, _ context: AppContext) async throws -> AttendanceReport {
        let me = try attendance.identity(context)
        let query = try Query(request, allowed: ["from", "to", "course", "threshold", "zone"])
        let threshold = try query.double("threshold", in: 0...100) ?? AttendanceRegister.defaultThreshold
        var zone = TimeZone.current
        if let name = query.string("zone") {
            guard let found = TimeZone(identifier: name) else { throw HTTPError(.badRequest, message: "zone is an IANA time zone like Europe/Ljubljana") }
            zone = found
        }
        let from = try instant(query.string("from"), "from", zone: zone, dayOffset: 0) ?? 0
        let to = try instant(query.string("to"), "to", zone: zone, dayOffset: 1).map { $0 - 1 } ?? AttendanceRegister.lastMillisecond
        guard from <= to else { throw HTTPError(.badRequest, message: "to is on or after from") }
        try await attendance.faceGate(me)
        let courses: [String]
        if let id = query.string("course") {
            guard try await register.course(id) != nil else { throw HTTPError(.notFound, message: "no course \(id)") }
            try await attendance.allow(me, course: id, .teach)
            courses = [id]
        } else {
            courses = try await register.courses(for: me.user.id, role: me.user.role.rawValue).map(\.id)
        }
        return try await register.report(courses: courses, from: from, to: to, threshold: threshold)
    }

    /// The start of a date's day (`dayOffset` days later) in `zone`, Unix milliseconds.
    func instant(_ text: String?, _ name: String, zone: TimeZone, dayOffset: Int) throws -> Int64? {
        guard let text else { return nil }
        guard let day = Timetable.day(text) else { throw HTTPError(.badRequest, message: "\(name) is a date like 2027-03-01") }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let (y, m, d) = Timetable.civil(day + dayOffset)
        guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d)) else { throw HTTPError(.badRequest, message: "\(name): no such day") }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
