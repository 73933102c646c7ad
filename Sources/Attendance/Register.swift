import Foundation
import SentioStore
import SQLKit

/// The attendance register in the store: courses, professors, enrolments, lectures, pending
/// check-ins, saved records, enrolled faces and the audit trail. Who may do what is decided
/// by the caller (the server's routes) with ``isProfessor(_:course:)`` and
/// ``isEnrolled(_:course:)``; the register keeps the rules of the records themselves (only an
/// open lecture takes check-ins, once per student; a confirmed lecture takes none).
public struct AttendanceRegister: Sendable {
    let store: Store
    /// Minutes after a lecture's start when a check-in counts as late.
    public var lateAfterMinutes: Int64 = 10
    /// The descriptor attendance decides with; enrolments of another model are left aside
    /// (counted as `staleFaces`) until the person is enrolled again.
    public var faceModel: FaceModel = .sface
    /// The match policy of `faceModel`.
    public var policy: MatchPolicy { faceModel.policy }

    public init(store: Store, faceModel: FaceModel = .sface) {
        self.store = store
        self.faceModel = faceModel
    }

    /// Creates or updates the application's tables; call once at start.
    public static func prepare(_ store: Store) async throws { try await store.migrate(AttendanceSchema.schema) }

    // MARK: People

    /// People with a role, and how many faces each has enrolled.
    public func people(role: String? = nil) async throws -> [Person] {
        try await store.read { db in
            var sql = Self.selectPeople(faceModel)
            if let role { sql += " WHERE u.role = \(bind: role)" }
            sql += " ORDER BY u.display_name, u.username"
            return try await db.raw(sql).all().map(Self.person)
        }
    }

    public func person(_ id: String) async throws -> Person? {
        try await store.read { db in try await Self.person(db, id, faceModel) }
    }

    static func person(_ db: any SQLDatabase, _ id: String, _ model: FaceModel) async throws -> Person? {
        try await db.raw(selectPeople(model) + " WHERE u.id = \(bind: id)").first().map(person)
    }

    /// A person's columns and their counts of enrolled faces (of `model`, and of others), from
    /// `users u` (joins and conditions follow).
    static func selectPeople(_ model: FaceModel) -> SQLQueryString {
        // The model is one of the enum's fixed names, not input: bound all the same.
        "SELECT u.id, u.username, u.display_name, u.role, (SELECT COUNT(*) FROM att_faces f WHERE f.user_id = u.id AND f.model = \(bind: model.rawValue)) AS faces, (SELECT COUNT(*) FROM att_faces f WHERE f.user_id = u.id AND f.model <> \(bind: model.rawValue)) AS stale_faces FROM users u"
    }

    static func person(_ row: any SQLRow) throws -> Person {
        Person(id: try row.decode(column: "id", as: String.self), username: try row.decode(column: "username", as: String.self),
               displayName: try row.decode(column: "display_name", as: String.self), role: try row.decode(column: "role", as: String.self),
               faces: try row.decode(column: "faces", as: Int.self), staleFaces: try row.decode(column: "stale_faces", as: Int.self))
    }

    // MARK: Courses

    public func createCourse(code: String, title: String, academicYear: String, actor: String) async throws -> Course {
        let code = try Self.text(code, "code", maximum: 20), title = try Self.text(title, "title", maximum: 120)
        guard Self.validYear(academicYear) else { throw AttendanceError.invalid("academicYear", "a year like 2026/27") }
        let id = RandomID.make()
        do {
            try await store.transaction { db in
                try await db.insert(into: "att_courses").columns("id", "code", "title", "academic_year", "created_at")
                    .values(SQLBind(id), SQLBind(code), SQLBind(title), SQLBind(academicYear), SQLBind(Clock.milliseconds())).run()
                try await Self.audit(db, AuditEntry(actor: actor, subject: id, action: "course.create", outcome: "ok", detail: "\(code) \(academicYear)"))
            }
        } catch where Store.isUniqueViolation(error) {
            throw AttendanceError.conflict("a course \(code) already exists in \(academicYear)")
        }
        return Course(id: id, code: code, title: title, academicYear: academicYear)
    }

    /// A year like 2026/27: four digits, a slash, the next year's last two digits ("+123/24",
    /// which `Int` would read, is not one).
    public static func validYear(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let first = Int(parts[0]), let second = Int(parts[1]) else { return false }
        return (first + 1) % 100 == second
    }

    /// A typed field by the one text rule (``TextField``), its problem named.
    static func text(_ value: String, _ field: String, maximum: Int) throws -> String {
        try TextField.check(value, maximum: maximum).mapError { AttendanceError.invalid(field, $0.description) }.get()
    }

    /// The courses `user` sees: all (administrator), those they teach (professor) or attend (student).
    public func courses(for user: String, role: String, year: String? = nil) async throws -> [Course] {
        try await store.read { db in
            var sql: SQLQueryString = "SELECT c.* FROM att_courses c"
            switch role {
            case "admin": sql += " WHERE 1 = 1"
            case "professor": sql += " JOIN att_course_professors p ON p.course_id = c.id WHERE p.user_id = \(bind: user)"
            default: sql += " JOIN att_enrolments e ON e.course_id = c.id WHERE e.user_id = \(bind: user)"
            }
            if let year { sql += " AND c.academic_year = \(bind: year)" }
            sql += " ORDER BY c.academic_year DESC, c.code"
            var courses: [Course] = []
            for row in try await db.raw(sql).all() {
                courses.append(try await Self.course(db, row, faceModel))
            }
            return courses
        }
    }

    public func course(_ id: String) async throws -> Course? {
        try await store.read { db in
            guard let row = try await db.select().columns("*").from("att_courses").where("id", .equal, SQLBind(id)).first() else { return nil }
            return try await Self.course(db, row, faceModel)
        }
    }

    static func course(_ db: any SQLDatabase, _ row: any SQLRow, _ model: FaceModel) async throws -> Course {
        let id = try row.decode(column: "id", as: String.self)
        let professors = try await db.raw(selectPeople(model) + " JOIN att_course_professors p ON p.user_id = u.id WHERE p.course_id = \(bind: id) ORDER BY u.display_name")
            .all().map(person)
        let students = try await db.raw("SELECT COUNT(*) AS n FROM att_enrolments WHERE course_id = \(bind: id)").first()?.decode(column: "n", as: Int.self) ?? 0
        return Course(id: id, code: try row.decode(column: "code", as: String.self), title: try row.decode(column: "title", as: String.self),
                      academicYear: try row.decode(column: "academic_year", as: String.self), professors: professors, students: students)
    }

    public func isProfessor(_ user: String, course: String) async throws -> Bool {
        try await store.read { db in
            try await db.raw("SELECT 1 AS x FROM att_course_professors WHERE course_id = \(bind: course) AND user_id = \(bind: user)").first() != nil
        }
    }

    public func isEnrolled(_ user: String, course: String) async throws -> Bool {
        try await store.read { db in try await Self.enrolled(db, user, course) }
    }

    static func enrolled(_ db: any SQLDatabase, _ user: String, _ course: String) async throws -> Bool {
        try await db.raw("SELECT 1 AS x FROM att_enrolments WHERE course_id = \(bind: course) AND user_id = \(bind: user)").first() != nil
    }

    /// Assigns a professor to a course (an administrator's act).
    public func assignProfessor(_ user: String, course: String, actor: String) async throws {
        try await link("att_course_professors", user: user, course: course, role: "professor", actor: actor, action: "course.assign")
    }

    public func removeProfessor(_ user: String, course: String, actor: String) async throws {
        try await unlink("att_course_professors", user: user, course: course, actor: actor, action: "course.unassign")
    }

    /// Enrols a student in a course.
    public func enrol(_ user: String, course: String, actor: String) async throws {
        try await link("att_enrolments", user: user, course: course, role: "student", actor: actor, action: "course.enrol")
    }

    public func unenrol(_ user: String, course: String, actor: String) async throws {
        try await unlink("att_enrolments", user: user, course: course, actor: actor, action: "course.unenrol")
    }

    private func link(_ table: String, user: String, course: String, role: String, actor: String, action: String) async throws {
        try await store.transaction { db in
            guard try await db.select().column("id").from("att_courses").where("id", .equal, SQLBind(course)).first() != nil else {
                throw AttendanceError.notFound("course \(course)")
            }
            // The body names the person: someone unknown makes it unprocessable (422); a 404 is
            // for the course of the path.
            guard let person = try await Self.person(db, user, faceModel) else { throw AttendanceError.invalid("user", "no person '\(user)'") }
            guard person.role == role else { throw AttendanceError.invalid("user", "\(person.username) is a \(person.role), not a \(role)") }
            // Already linked is no change: two requests at once insert once and audit once.
            guard try await db.raw("""
                INSERT INTO \(unsafeRaw: table) (course_id, user_id) VALUES (\(bind: course), \(bind: user))
                ON CONFLICT (course_id, user_id) DO NOTHING RETURNING user_id
                """).first() != nil else { return }
            try await Self.audit(db, AuditEntry(actor: actor, subject: user, action: action, outcome: "ok", detail: course))
        }
    }

    private func unlink(_ table: String, user: String, course: String, actor: String, action: String) async throws {
        try await store.transaction { db in
            try await db.delete(from: table).where("course_id", .equal, SQLBind(course)).where("user_id", .equal, SQLBind(user)).run()
            try await Self.audit(db, AuditEntry(actor: actor, subject: user, action: action, outcome: "ok", detail: course))
        }
    }

    /// The course's students, by name.
    public func students(course: String) async throws -> [Person] {
        try await store.read { db in try await Self.students(db, course, faceModel) }
    }

    static func students(_ db: any SQLDatabase, _ course: String, _ model: FaceModel) async throws -> [Person] {
        try await db.raw(selectPeople(model) + " JOIN att_enrolments e ON e.user_id = u.id WHERE e.course_id = \(bind: course) ORDER BY u.display_name, u.username")
            .all().map(person)
    }

    // MARK: Lectures

    /// 9999-12-31T23:59:59.999Z in Unix milliseconds: the latest time a lecture may have.
    public static let lastMillisecond: Int64 = 253_402_300_799_999

    public func createLecture(course: String, title: String, startsAt: Int64, endsAt: Int64, actor: String) async throws -> Lecture {
        let title = try Self.text(title, "title", maximum: 120)
        // Times are Unix milliseconds from 1970 to the end of year 9999: the check-in window and
        // the late mark add to them, which near Int64's ends would overflow.
        guard (0...Self.lastMillisecond).contains(startsAt), (0...Self.lastMillisecond).contains(endsAt) else {
            throw AttendanceError.invalid("startsAt", "Unix milliseconds between 1970 and 9999")
        }
        // Subtracted with the overflow reported: Int64.min as the start (the API fuzzer sent it)
        // trapped and stopped the server. A span past Int64.max is past 12 hours too.
        let (span, overflow) = endsAt.subtractingReportingOverflow(startsAt)
        guard endsAt > startsAt, !overflow, span <= 12 * 3_600_000 else { throw AttendanceError.invalid("endsAt", "after the start, within 12 hours") }
        let lecture = Lecture(id: RandomID.make(), courseID: course, title: title, startsAt: startsAt, endsAt: endsAt, state: .scheduled)
        try await store.transaction { db in
            guard try await db.select().column("id").from("att_courses").where("id", .equal, SQLBind(course)).first() != nil else {
                throw AttendanceError.notFound("course \(course)")
            }
            try await db.insert(into: "att_lectures").columns("id", "course_id", "title", "starts_at", "ends_at", "state")
                .values(SQLBind(lecture.id), SQLBind(course), SQLBind(title), SQLBind(startsAt), SQLBind(endsAt), SQLBind(lecture.state.rawValue)).run()
            try await Self.audit(db, AuditEntry(lectureID: lecture.id, actor: actor, action: "lecture.create", outcome: "ok", detail: title))
        }
        return lecture
    }

    public func lectures(course: String) async throws -> [Lecture] {
        try await store.read { db in
            try await db.select().columns("*").from("att_lectures").where("course_id", .equal, SQLBind(course))
                .orderBy("starts_at", .descending).all().map(Self.lecture)
        }
    }

    public func lecture(_ id: String) async throws -> Lecture? {
        try await store.read { db in try await Self.lecture(db, id) }
    }

    /// The open lecture whose room code is `code` (students' own phones find it by the code).
    public func openLecture(code: String) async throws -> Lecture? {
        guard code.count == Self.checkInCodeDigits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else { return nil }
        return try await store.read { db in
            try await db.select().columns("*").from("att_lectures").where("checkin_code", .equal, SQLBind(code))
                .where("state", .equal, SQLBind(LectureState.open.rawValue)).first().map(Self.lecture)
        }
    }

    static func lecture(_ db: any SQLDatabase, _ id: String) async throws -> Lecture? {
        try await db.select().columns("*").from("att_lectures").where("id", .equal, SQLBind(id)).first().map(lecture)
    }

    static func lecture(_ row: any SQLRow) throws -> Lecture {
        Lecture(id: try row.decode(column: "id", as: String.self), courseID: try row.decode(column: "course_id", as: String.self),
                title: try row.decode(column: "title", as: String.self), startsAt: try row.decode(column: "starts_at", as: Int64.self),
                endsAt: try row.decode(column: "ends_at", as: Int64.self),
                state: LectureState(rawValue: try row.decode(column: "state", as: String.self)) ?? .scheduled,
                checkinCode: try row.decode(column: "checkin_code", as: String?.self), headcount: try row.decode(column: "headcount", as: Int?.self),
                confirmedAt: try row.decode(column: "confirmed_at", as: Int64?.self), confirmedBy: try row.decode(column: "confirmed_by", as: String?.self),
                slotDate: try row.decode(column: "slot_date", as: String?.self))
    }

    /// Digits of a check-in code: 10⁸ codes, so that guessing one within a lecture is hopeless
    /// while wrong codes are counted (docs/attendance.md works out the odds).
    public static let checkInCodeDigits = 8

    /// Opens a lecture for check-in, with a fresh eight-digit code for students' own phones.
    public func open(lecture id: String, actor: String, at now: Int64 = Clock.milliseconds()) async throws -> Lecture {
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%08d", Int.random(in: 0..<100_000_000, using: &generator))
        return try await store.transaction { db in
            // Only a scheduled lecture opens, in one conditional UPDATE: two opens at once on
            // PostgreSQL (read committed) cannot both give out a code, nor reopen a lecture
            // confirmed in between.
            if let row = try await db.raw("""
                UPDATE att_lectures SET state = \(bind: LectureState.open.rawValue), checkin_code = \(bind: code), opened_at = \(bind: now)
                WHERE id = \(bind: id) AND state = \(bind: LectureState.scheduled.rawValue) RETURNING *
                """).first() {
                try await Self.audit(db, AuditEntry(lectureID: id, actor: actor, action: "lecture.open", outcome: "ok"))
                return try Self.lecture(row)
            }
            guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
            guard lecture.state != .confirmed else { throw AttendanceError.conflict("this lecture is already confirmed") }
            return lecture   // already open: the code it has
        }
    }

    /// Who checked in and who is missing (and, once confirmed, the saved records).
    public func roll(lecture id: String) async throws -> LectureRoll {
        try await store.read { db in
            guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
            guard let courseRow = try await db.select().columns("*").from("att_courses").where("id", .equal, SQLBind(lecture.courseID)).first() else {
                throw AttendanceError.notFound("course \(lecture.courseID)")
            }
            let course = try await Self.course(db, courseRow, faceModel)
            let checkedIn = try await db.raw("""
                SELECT c.*, u.display_name FROM att_checkins c JOIN users u ON u.id = c.student_id
                WHERE c.lecture_id = \(bind: id) ORDER BY c.at
                """).all().map { row in
                PendingCheckIn(studentID: try row.decode(column: "student_id", as: String.self), displayName: try row.decode(column: "display_name", as: String.self),
                               at: try row.decode(column: "at", as: Int64.self),
                               method: DecisionMethod(rawValue: try row.decode(column: "method", as: String.self)) ?? .kioskVerified,
                               distance: try row.decode(column: "distance", as: Double.self), liveness: try row.decode(column: "liveness", as: String.self))
            }
            let records = try await Self.records(db, lecture: id)
            let seen = Set(checkedIn.map(\.studentID))
            let missing = try await Self.students(db, lecture.courseID, faceModel).filter { !seen.contains($0.id) }
            return LectureRoll(lecture: lecture, course: course, checkedIn: checkedIn, missing: lecture.state == .confirmed ? [] : missing, records: records)
        }
    }

    static func records(_ db: any SQLDatabase, lecture: String) async throws -> [AttendanceRecord] {
        try await db.raw("""
            SELECT r.*, u.display_name FROM att_records r JOIN users u ON u.id = r.student_id
            WHERE r.lecture_id = \(bind: lecture) ORDER BY u.display_name
            """).all().map(record)
    }

    static func record(_ row: any SQLRow) throws -> AttendanceRecord {
        AttendanceRecord(lectureID: try row.decode(column: "lecture_id", as: String.self), studentID: try row.decode(column: "student_id", as: String.self),
                         displayName: try row.decode(column: "display_name", as: String.self),
                         status: AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .absent,
                         method: DecisionMethod(rawValue: try row.decode(column: "method", as: String.self)) ?? .notCheckedIn,
                         decidedAt: try row.decode(column: "decided_at", as: Int64.self), decidedBy: try row.decode(column: "decided_by", as: String?.self),
                         remark: try row.decode(column: "remark", as: String?.self))
    }

    /// Records a verified student as pending. Refused when the lecture is not open, the student
    /// is not enrolled, or already checked in; an own-device check-in must come inside the
    /// lecture's time window with the room's code.
    public func checkIn(lecture id: String, student: String, method: DecisionMethod, distance: Double, liveness: String,
                        frameHash: String?, actor: String?, code: String? = nil, at now: Int64 = Clock.milliseconds()) async throws -> PendingCheckIn {
        do {
            return try await store.transaction { db in
                // Read with a no-op UPDATE that locks the lecture's row until this check-in
                // commits: a confirmation (which changes the same row first) waits for it and
                // then counts it, or has already committed and this finds the lecture closed.
                guard let lecture = try await db.raw("""
                    UPDATE att_lectures SET state = state WHERE id = \(bind: id) AND state = \(bind: LectureState.open.rawValue) RETURNING *
                    """).first().map(Self.lecture) else {
                    guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
                    switch lecture.state {
                    case .confirmed: throw AttendanceError.conflict("this lecture is already confirmed")
                    case .scheduled, .open: throw AttendanceError.conflict("this lecture is not open for check-in")
                    }
                }
                guard let person = try await Self.person(db, student, faceModel) else { throw AttendanceError.notFound("student \(student)") }
                guard try await Self.enrolled(db, student, lecture.courseID) else {
                    throw AttendanceError.forbidden("\(person.displayName) is not enrolled in this course")
                }
                if method == .ownDevice {
                    guard let code, code == lecture.checkinCode else { throw AttendanceError.invalid("code", "not this lecture's code") }
                    let early: Int64 = 15 * 60_000
                    guard now >= lecture.startsAt - early, now <= lecture.endsAt else {
                        throw AttendanceError.conflict("check-in from your phone is open from 15 minutes before the lecture until its end")
                    }
                }
                if let row = try await db.select().column("at").from("att_checkins").where("lecture_id", .equal, SQLBind(id))
                    .where("student_id", .equal, SQLBind(student)).first() {
                    let at = try row.decode(column: "at", as: Int64.self)
                    throw AttendanceError.conflict("\(person.displayName) already checked in at \(Self.clock(at))")
                }
                try await db.insert(into: "att_checkins").columns("lecture_id", "student_id", "at", "method", "distance", "liveness")
                    .values(SQLBind(id), SQLBind(student), SQLBind(now), SQLBind(method.rawValue), SQLBind(distance), SQLBind(liveness)).run()
                try await Self.audit(db, AuditEntry(at: now, lectureID: id, actor: actor, subject: student, action: "checkin", outcome: "pending",
                                                    frameHash: frameHash, distance: distance, liveness: liveness, detail: method.rawValue))
                return PendingCheckIn(studentID: student, displayName: person.displayName, at: now, method: method, distance: distance, liveness: liveness)
            }
        } catch where Store.isUniqueViolation(error) {
            throw AttendanceError.conflict("already checked in")
        }
    }

    /// A refused check-in (face or liveness), for the audit trail; nothing else changes.
    public func recordRefusal(lecture id: String, claimed: String?, actor: String?, frameHash: String?, distance: Double?, liveness: String?, reason: String) async throws {
        try await store.transaction { db in
            try await Self.audit(db, AuditEntry(lectureID: id, actor: actor, subject: claimed, action: "checkin", outcome: "refused",
                                                frameHash: frameHash, distance: distance, liveness: liveness, detail: String(reason.prefix(300))))
        }
    }

    static func clock(_ ms: Int64) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) + " UTC"
    }

    /// Ends an open lecture: the professor's face was confirmed (`faceDistance`) by the caller.
    /// Every enrolled student gets a record in one transaction: present (checked in by
    /// `lateAfterMinutes` after the start), late, or absent.
    public func confirm(lecture id: String, professor: String, faceDistance: Double, headcount: Int?, at now: Int64 = Clock.milliseconds()) async throws -> Confirmation {
        if let headcount, !(0...10_000).contains(headcount) { throw AttendanceError.invalid("headcount", "0 to 10000") }
        let lateAfter = lateAfterMinutes * 60_000
        return try await store.transaction { db in
            // Closed first, in one conditional UPDATE: a second confirmation at once matches no
            // row, and a check-in (which locks this row) either committed before, and is read
            // below, or waits and then finds the lecture confirmed — none is acknowledged and lost.
            guard let row = try await db.raw("""
                UPDATE att_lectures SET state = \(bind: LectureState.confirmed.rawValue), confirmed_at = \(bind: now), confirmed_by = \(bind: professor),
                    headcount = \(bind: headcount), checkin_code = NULL
                WHERE id = \(bind: id) AND state = \(bind: LectureState.open.rawValue) RETURNING *
                """).first() else {
                guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
                guard lecture.state != .confirmed else { throw AttendanceError.conflict("this lecture is already confirmed") }
                throw AttendanceError.conflict("this lecture was never opened")
            }
            let lecture = try Self.lecture(row)
            var checked: [String: Int64] = [:], methods: [String: String] = [:]
            for row in try await db.select().columns("student_id", "at", "method").from("att_checkins").where("lecture_id", .equal, SQLBind(id)).all() {
                let student = try row.decode(column: "student_id", as: String.self)
                checked[student] = try row.decode(column: "at", as: Int64.self)
                methods[student] = try row.decode(column: "method", as: String.self)
            }
            var present = 0, late = 0, absent = 0
            for student in try await Self.students(db, lecture.courseID, faceModel) {
                let status: AttendanceStatus
                if let at = checked[student.id] {
                    status = at <= lecture.startsAt + lateAfter ? .present : .late
                } else {
                    status = .absent
                }
                switch status { case .present: present += 1; case .late: late += 1; default: absent += 1 }
                try await db.insert(into: "att_records").columns("lecture_id", "student_id", "status", "method", "decided_at", "decided_by")
                    .values(SQLBind(id), SQLBind(student.id), SQLBind(status.rawValue), SQLBind(methods[student.id] ?? DecisionMethod.notCheckedIn.rawValue),
                            SQLBind(now), SQLBind(professor)).run()
            }
            let verified = present + late
            try await Self.audit(db, AuditEntry(at: now, lectureID: id, actor: professor, action: "lecture.confirm", outcome: "ok",
                                                distance: faceDistance, confirmedBy: professor,
                                                detail: "present \(present), late \(late), absent \(absent), headcount \(headcount.map(String.init) ?? "–")"))
            return Confirmation(lecture: lecture, present: present, late: late, absent: absent, headcountDifference: headcount.map { $0 - verified })
        }
    }

    /// Changes a saved record (the professor's face confirmed by the caller): its status and,
    /// when `remark` is given, its remark (``Remark/check(_:)``; an empty one clears it, nil
    /// leaves it as it was).
    public func edit(lecture id: String, student: String, status: AttendanceStatus, remark: String? = nil, professor: String, faceDistance: Double,
                     at now: Int64 = Clock.milliseconds()) async throws -> AttendanceRecord {
        let newRemark = try remark.flatMap(Remark.check)
        return try await store.transaction { db in
            guard let lecture = try await Self.lecture(db, id) else { throw AttendanceError.notFound("lecture \(id)") }
            guard lecture.state == .confirmed else { throw AttendanceError.conflict("records exist only once the lecture is confirmed") }
            // Read with a no-op UPDATE that locks the record: two edits at once take turns, and
            // each audits the status it really changed.
            guard let old = try await db.raw("""
                UPDATE att_records SET status = status WHERE lecture_id = \(bind: id) AND student_id = \(bind: student) RETURNING status
                """).first() else { throw AttendanceError.notFound("record for student \(student)") }
            let before = try old.decode(column: "status", as: String.self)
            try await db.update("att_records").set("status", to: SQLBind(status.rawValue)).set("method", to: SQLBind(DecisionMethod.professorEdit.rawValue))
                .set("decided_at", to: SQLBind(now)).set("decided_by", to: SQLBind(professor))
                .where("lecture_id", .equal, SQLBind(id)).where("student_id", .equal, SQLBind(student)).run()
            if remark != nil {
                try await db.update("att_records").set("remark", to: SQLBind(newRemark))
                    .where("lecture_id", .equal, SQLBind(id)).where("student_id", .equal, SQLBind(student)).run()
            }
            // The audit says that the remark changed, not what it says (it may be about health).
            try await Self.audit(db, AuditEntry(at: now, lectureID: id, actor: professor, subject: student, action: "record.edit", outcome: "ok",
                                                distance: faceDistance, confirmedBy: professor,
                                                detail: "\(before) → \(status.rawValue)" + (remark == nil ? "" : newRemark == nil ? ", remark cleared" : ", remark set")))
            guard let record = try await Self.records(db, lecture: id).first(where: { $0.studentID == student }) else {
                throw AttendanceError.notFound("record for student \(student)")
            }
            return record
        }
    }

    /// A student's own attendance, per course, with percentages, remarks and their own refused
    /// check-ins (``RefusedAttempt``).
    public func attendance(student: String) async throws -> [CourseAttendance] {
        let courses = try await courses(for: student, role: "student")
        return try await store.read { db in
            var result: [CourseAttendance] = []
            for course in courses {
                var status: [String: AttendanceStatus] = [:], remarks: [String: String] = [:]
                for row in try await db.raw("""
                    SELECT r.lecture_id, r.status, r.remark FROM att_records r JOIN att_lectures l ON l.id = r.lecture_id
                    WHERE l.course_id = \(bind: course.id) AND r.student_id = \(bind: student)
                    """).all() {
                    let lecture = try row.decode(column: "lecture_id", as: String.self)
                    status[lecture] = AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self))
                    remarks[lecture] = try row.decode(column: "remark", as: String?.self)
                }
                let lectures = try await db.select().columns("*").from("att_lectures").where("course_id", .equal, SQLBind(course.id))
                    .orderBy("starts_at", .ascending).all().map(Self.lecture)
                let items = lectures.map { CourseAttendance.StudentLecture(lecture: $0, status: status[$0.id], remark: remarks[$0.id]) }
                let counted = items.compactMap(\.status).filter { $0 != .excused }
                let attended = counted.filter { $0 == .present || $0 == .late }.count
                result.append(CourseAttendance(course: course, lectures: items, confirmed: items.filter { $0.status != nil }.count,
                                               percent: counted.isEmpty ? nil : 100 * Double(attended) / Double(counted.count),
                                               refused: try await Self.refusals(db, student: student, course: course.id)))
            }
            return result
        }
    }

    /// A course's saved records as CSV: one row per lecture and student.
    public func exportCSV(course id: String) async throws -> String {
        try await store.read { db in
            var lines = ["lecture_date,lecture,username,name,status,method,remark"]
            for row in try await db.raw("""
                SELECT l.starts_at, l.title, u.username, u.display_name, r.status, r.method, r.remark
                FROM att_records r JOIN att_lectures l ON l.id = r.lecture_id JOIN users u ON u.id = r.student_id
                WHERE l.course_id = \(bind: id) ORDER BY l.starts_at, u.display_name
                """).all() {
                let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(try row.decode(column: "starts_at", as: Int64.self)) / 1000))
                lines.append([date, try row.decode(column: "title", as: String.self), try row.decode(column: "username", as: String.self),
                              try row.decode(column: "display_name", as: String.self), try row.decode(column: "status", as: String.self),
                              try row.decode(column: "method", as: String.self),
                              try row.decode(column: "remark", as: String?.self) ?? ""].map(CSV.field).joined(separator: ","))
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    // MARK: Faces

    /// Adds one enrolment photo's descriptor of `model` (the register's, unless re-enrolling
    /// for another); the photo is kept only when `photo` is given (the person's consent). The
    /// person's descriptors of other models with no photo kept go with it: they can never be
    /// compared again, and face data is kept no longer than it serves.
    public func addFace(person id: String, descriptor: [Float], model: FaceModel? = nil, yaw: Double, photo: Data?, photoType: String?,
                        actor: String) async throws -> Int {
        let model = model ?? faceModel
        guard descriptor.count == 128, descriptor.allSatisfy(\.isFinite) else { throw AttendanceError.invalid("descriptor", "128 finite numbers") }
        return try await store.transaction { db in
            // The person's row is locked first, so two enrolments at once count in turn and
            // cannot both take the twentieth place.
            guard try await Store.lockUser(db, id),
                  let person = try await Self.person(db, id, model) else { throw AttendanceError.notFound("person \(id)") }
            guard person.faces < 20 else { throw AttendanceError.conflict("at most 20 enrolment photos per person; delete some first") }
            let stale = try await db.raw("SELECT COUNT(*) AS n FROM att_faces WHERE user_id = \(bind: id) AND model <> \(bind: model.rawValue) AND photo IS NULL")
                .first()?.decode(column: "n", as: Int.self) ?? 0
            if stale > 0 {
                try await db.raw("DELETE FROM att_faces WHERE user_id = \(bind: id) AND model <> \(bind: model.rawValue) AND photo IS NULL").run()
            }
            try await db.insert(into: "att_faces").columns("id", "user_id", "descriptor", "model", "yaw", "photo", "photo_type", "created_at")
                .values(SQLBind(RandomID.make()), SQLBind(id), SQLBind(FaceMatcher.encode(descriptor)), SQLBind(model.rawValue), SQLBind(yaw), SQLBind(photo),
                        SQLBind(photo == nil ? nil : photoType), SQLBind(Clock.milliseconds())).run()
            var detail = photo == nil ? "descriptor only" : "descriptor and photo (consent)"
            detail += " (\(model.rawValue))"
            if stale > 0 { detail += "; \(stale) older descriptors of another model removed" }
            try await Self.audit(db, AuditEntry(actor: actor, subject: id, action: "face.enrol", outcome: "ok", detail: detail))
            return person.faces + 1
        }
    }

    /// Everyone's enrolled face (of the register's model), of every course and role: the
    /// kiosk's cohort. Read per check-in (measured: docs/attendance.md, "Reliability").
    public func allTemplates() async throws -> [FaceTemplate] {
        try await store.read { db in
            var byPerson: [String: [[Float]]] = [:]
            for row in try await db.select().columns("user_id", "descriptor").from("att_faces").where("model", .equal, SQLBind(faceModel.rawValue)).all() {
                byPerson[try row.decode(column: "user_id", as: String.self), default: []].append(try FaceMatcher.decode(try row.decode(column: "descriptor", as: Data.self)))
            }
            return byPerson.keys.sorted().map { FaceTemplate(personID: $0, model: faceModel, descriptors: byPerson[$0]!) }
        }
    }

    /// The enrolled faces of `people` (of the register's model; those without any are left out).
    public func templates(_ people: [String]) async throws -> [FaceTemplate] {
        guard !people.isEmpty else { return [] }
        return try await store.read { db in
            var byPerson: [String: [[Float]]] = [:]
            for row in try await db.select().columns("user_id", "descriptor").from("att_faces").where("user_id", .in, people)
                .where("model", .equal, SQLBind(faceModel.rawValue)).all() {
                byPerson[try row.decode(column: "user_id", as: String.self), default: []].append(try FaceMatcher.decode(try row.decode(column: "descriptor", as: Data.self)))
            }
            return people.compactMap { id in byPerson[id].map { FaceTemplate(personID: id, model: faceModel, descriptors: $0) } }
        }
    }

    /// A person's kept photos enrolled with another model than the register's, to enrol
    /// again (``reenrol(face:descriptor:actor:)``).
    public func staleKeptPhotos(person id: String) async throws -> [(id: String, photo: Data)] {
        try await store.read { db in
            try await db.raw("SELECT id, photo FROM att_faces WHERE user_id = \(bind: id) AND model <> \(bind: faceModel.rawValue) AND photo IS NOT NULL ORDER BY created_at")
                .all().map { (try $0.decode(column: "id", as: String.self), try $0.decode(column: "photo", as: Data.self)) }
        }
    }

    /// How many of a person's kept photos are enrolled with another model (counted, not read).
    public func staleKeptPhotoCount(person id: String) async throws -> Int {
        try await store.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM att_faces WHERE user_id = \(bind: id) AND model <> \(bind: faceModel.rawValue) AND photo IS NOT NULL")
                .first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// Replaces a kept photo's descriptor with one of the register's model, computed again from
    /// that photo (no new consent is needed: the photo and its use are the same).
    public func reenrol(person: String, face id: String, descriptor: [Float], actor: String) async throws {
        guard descriptor.count == 128, descriptor.allSatisfy(\.isFinite) else { throw AttendanceError.invalid("descriptor", "128 finite numbers") }
        try await store.transaction { db in
            let updated = try await db.raw("""
                UPDATE att_faces SET descriptor = \(bind: FaceMatcher.encode(descriptor)), model = \(bind: faceModel.rawValue)
                WHERE id = \(bind: id) AND user_id = \(bind: person) AND photo IS NOT NULL RETURNING id
                """).all().count
            guard updated == 1 else { throw AttendanceError.notFound("kept photo \(id)") }
            try await Self.audit(db, AuditEntry(actor: actor, subject: person, action: "face.enrol", outcome: "ok",
                                                detail: "enrolled again from the kept photo (\(faceModel.rawValue))"))
        }
    }

    /// Enrolment photos kept with consent: their ids and types.
    public func photos(person id: String) async throws -> [(id: String, type: String)] {
        try await store.read { db in
            try await db.raw("SELECT id, photo_type FROM att_faces WHERE user_id = \(bind: id) AND photo IS NOT NULL ORDER BY created_at").all().map {
                (try $0.decode(column: "id", as: String.self), try $0.decode(column: "photo_type", as: String.self))
            }
        }
    }

    public func photo(person: String, id: String) async throws -> (data: Data, type: String)? {
        try await store.read { db in
            guard let row = try await db.select().columns("photo", "photo_type").from("att_faces").where("id", .equal, SQLBind(id))
                .where("user_id", .equal, SQLBind(person)).first(), let data = try row.decode(column: "photo", as: Data?.self) else { return nil }
            return (data, try row.decode(column: "photo_type", as: String?.self) ?? "application/octet-stream")
        }
    }

    /// Deletes every descriptor and photo of a person; returns how many rows went.
    @discardableResult
    public func deleteFaces(person id: String, actor: String) async throws -> Int {
        let n = try await store.transaction { db in
            let n = try await db.raw("SELECT COUNT(*) AS n FROM att_faces WHERE user_id = \(bind: id)").first()?.decode(column: "n", as: Int.self) ?? 0
            try await db.delete(from: "att_faces").where("user_id", .equal, SQLBind(id)).run()
            try await Self.audit(db, AuditEntry(actor: actor, subject: id, action: "face.delete", outcome: "ok", detail: "\(n) enrolment photos"))
            return n
        }
        try await store.scrub()  // the deleted photos gone from the log file too
        return n
    }

    // MARK: Face proofs

    /// Records that `user` (signed in with `session`, the session token's hash) just passed a
    /// face check at `distance`; returns the proof token (once; only its hash is stored).
    public func recordFaceProof(user: String, session: String, distance: Double, at now: Int64 = Clock.milliseconds()) async throws -> String {
        let token = RandomID.make()
        try await store.transaction { db in
            try await db.insert(into: "att_face_proofs").columns("id", "user_id", "session_hash", "distance", "created_at")
                .values(SQLBind(Self.frameHash(Array(token.utf8))), SQLBind(user), SQLBind(session), SQLBind(distance), SQLBind(now)).run()
            try await Self.audit(db, AuditEntry(at: now, actor: user, subject: user, action: "face.proof", outcome: "ok", distance: distance))
        }
        return token
    }

    /// Whether this session's user passed a face check during it.
    public func isFaceVerified(user: String, session: String) async throws -> Bool {
        try await store.read { db in
            try await db.raw("SELECT 1 AS x FROM att_face_proofs WHERE session_hash = \(bind: session) AND user_id = \(bind: user)").first() != nil
        }
    }

    /// Spends a proof: it must be `user`'s, made in `session` (the session token's hash, or a
    /// kiosk's ``KioskDevice/proofSession``: a proof serves only where it was made), unused and
    /// at most `maxAge` ms old. Returns the face distance it recorded.
    public func useFaceProof(_ token: String, user: String, session: String, maxAge: Int64 = 120_000,
                             at now: Int64 = Clock.milliseconds()) async throws -> Double {
        let id = Self.frameHash(Array(token.utf8))
        return try await store.transaction { db in
            // Spent by one conditional UPDATE whose RETURNING says whether it happened: on
            // PostgreSQL (read committed) two acts at once may both have read the proof unused,
            // but the second UPDATE re-checks the row after the first commits and matches nothing.
            if let spent = try await db.raw("""
                UPDATE att_face_proofs SET used_at = \(bind: now)
                WHERE id = \(bind: id) AND user_id = \(bind: user) AND session_hash = \(bind: session)
                  AND used_at IS NULL AND created_at >= \(bind: now - maxAge)
                RETURNING distance
                """).first() {
                return try spent.decode(column: "distance", as: Double.self)
            }
            // Not spent: the row only says why.
            guard let row = try await db.select().columns("*").from("att_face_proofs").where("id", .equal, SQLBind(id)).first(),
                  try row.decode(column: "user_id", as: String.self) == user, try row.decode(column: "session_hash", as: String.self) == session else {
                throw AttendanceError.faceNeeded("a face check of your own is needed first")
            }
            guard try row.decode(column: "used_at", as: Int64?.self) == nil else { throw AttendanceError.faceNeeded("this face check was already used; check again") }
            throw AttendanceError.faceNeeded("the face check is older than \(maxAge / 1000) s; check again")
        }
    }

    // MARK: Audit

    static func audit(_ db: any SQLDatabase, _ entry: AuditEntry) async throws {
        try await db.insert(into: "att_audit")
            .columns("id", "at", "lecture_id", "actor", "subject", "action", "outcome", "frame_hash", "distance", "liveness", "confirmed_by", "detail")
            .values(SQLBind(RandomID.make()), SQLBind(entry.at == 0 ? Clock.milliseconds() : entry.at), SQLBind(entry.lectureID), SQLBind(entry.actor),
                    SQLBind(entry.subject), SQLBind(entry.action), SQLBind(entry.outcome), SQLBind(entry.frameHash), SQLBind(entry.distance),
                    SQLBind(entry.liveness), SQLBind(entry.confirmedBy), SQLBind(entry.detail)).run()
    }

    /// Appends an audit row of the caller's (sign-in with the face, administrator hand-over).
    public func audit(_ entry: AuditEntry) async throws {
        try await store.transaction { db in try await Self.audit(db, entry) }
    }

    /// The audit trail, newest first, optionally of one lecture.
    public func auditTrail(lecture: String? = nil, limit: Int = 200) async throws -> [AuditEntry] {
        try await store.read { db in
            var select = db.select().columns("*").from("att_audit")
            if let lecture { select = select.where("lecture_id", .equal, SQLBind(lecture)) }
            return try await select.orderBy("at", .descending).limit(max(1, min(limit, 1000))).all().map { row in
                AuditEntry(id: try row.decode(column: "id", as: String.self), at: try row.decode(column: "at", as: Int64.self),
                           lectureID: try row.decode(column: "lecture_id", as: String?.self), actor: try row.decode(column: "actor", as: String?.self),
                           subject: try row.decode(column: "subject", as: String?.self), action: try row.decode(column: "action", as: String.self),
                           outcome: try row.decode(column: "outcome", as: String.self), frameHash: try row.decode(column: "frame_hash", as: String?.self),
                           distance: try row.decode(column: "distance", as: Double?.self), liveness: try row.decode(column: "liveness", as: String?.self),
                           confirmedBy: try row.decode(column: "confirmed_by", as: String?.self), detail: try row.decode(column: "detail", as: String?.self))
            }
        }
    }

    /// The SHA-256 of a frame, in hex (the audit's frame hash).
    public static func frameHash(_ bytes: some Sequence<UInt8>) -> String {
        SHA256Hex.of(Array(bytes))
    }
}
