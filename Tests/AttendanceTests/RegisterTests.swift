import Attendance
import Foundation
import SentioStore
import SentioStoreTestSupport
import SentioTestSupport
import SQLKit
import Testing

@Suite("Attendance register on SQLite")
struct SqliteRegisterTests {
    @Test("a lecture's life: open, check-ins, refusals, confirmation with the headcount, records, edits") func lecture() async throws { try await RegisterChecks.lecture(.sqlite) }
    @Test("a student sees their own attendance with percentages; CSV export") func student() async throws { try await RegisterChecks.student(.sqlite) }
    @Test("faces: enrolment with and without the photo; deleting removes every descriptor and photo") func faces() async throws { try await RegisterChecks.faces(.sqlite) }
    @Test("face models: dlib's enrolments are left aside under SFace, kept photos enrolled again") func faceModels() async throws { try await RegisterChecks.faceModels(.sqlite) }
    @Test("courses: unique per year, roles checked when assigning and enrolling") func courses() async throws { try await RegisterChecks.courses(.sqlite) }
    @Test("requests at once: a face proof is spent once; opens give one code; check-ins racing the confirmation are kept or refused; confirmations at once, one record each") func together() async throws { try await RegisterChecks.together(.sqlite) }
    @Test("kiosk devices: live until ended or expired; the type-ahead needs two letters and lists only the missing") func kiosks() async throws { try await RegisterChecks.kiosks(.sqlite) }
}

@Suite("Attendance register on PostgreSQL", .requires(.postgres))
struct PostgresRegisterTests {
    @Test("a lecture's life: open, check-ins, refusals, confirmation with the headcount, records, edits") func lecture() async throws { try await RegisterChecks.lecture(.postgres) }
    @Test("a student sees their own attendance with percentages; CSV export") func student() async throws { try await RegisterChecks.student(.postgres) }
    @Test("faces: enrolment with and without the photo; deleting removes every descriptor and photo") func faces() async throws { try await RegisterChecks.faces(.postgres) }
    @Test("face models: dlib's enrolments are left aside under SFace, kept photos enrolled again") func faceModels() async throws { try await RegisterChecks.faceModels(.postgres) }
    @Test("courses: unique per year, roles checked when assigning and enrolling") func courses() async throws { try await RegisterChecks.courses(.postgres) }
    @Test("requests at once: a face proof is spent once; opens give one code; check-ins racing the confirmation are kept or refused; confirmations at once, one record each") func together() async throws { try await RegisterChecks.together(.postgres) }
    @Test("kiosk devices: live until ended or expired; the type-ahead needs two letters and lists only the missing") func kiosks() async throws { try await RegisterChecks.kiosks(.postgres) }
}

enum RegisterChecks {
    struct World {
        let register: AttendanceRegister
        let store: Store
        let admin: String, professor: String, other: String
        let students: [String]
        let course: String
    }

    static func world(_ backend: Backend) async throws -> World {
        let store = try await Store.open(try await TestDatabase.fresh(backend))
        try await AttendanceRegister.prepare(store)
        let accounts = Accounts(store: store)
        func user(_ name: String, _ role: Role) async throws -> String {
            try await accounts.create(username: name, displayName: name.capitalized, role: role, passwordHash: "x", actor: nil).id
        }
        let admin = try await user("admin", .admin), professor = try await user("prof", .professor), other = try await user("other", .professor)
        var students: [String] = []
        for name in ["ann", "ben", "cid", "dee"] { students.append(try await user(name, .student)) }
        // dlib: its mean is the plain mean, which the faces check works out by hand.
        let register = AttendanceRegister(store: store, faceModel: .dlib)
        let course = try await register.createCourse(code: "CV101", title: "Computer vision", academicYear: "2026/27", actor: admin)
        try await register.assignProfessor(professor, course: course.id, actor: admin)
        for s in students.prefix(3) { try await register.enrol(s, course: course.id, actor: admin) }
        return World(register: register, store: store, admin: admin, professor: professor, other: other, students: students, course: course.id)
    }

    static func kiosks(_ backend: Backend) async throws {
        let w = try await world(backend)
        let r = w.register
        let start: Int64 = 1_790_000_000_000
        let lecture = try await r.createLecture(course: w.course, title: "Week 1", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        _ = try await r.open(lecture: lecture.id, actor: w.professor)
        let device = try await r.startKiosk(lecture: lecture.id, operatorID: w.professor, tokenHash: "k1", at: start)
        #expect(try await r.kiosk(tokenHash: "k1", at: start + 1) == device)
        #expect(try await r.kiosk(tokenHash: "k2", at: start + 1) == nil)
        // Twelve hours later it has expired.
        #expect(try await r.kiosk(tokenHash: "k1", at: start + AttendanceRegister.kioskHours * 3_600_000) == nil)
        // Ended once; a second end changes nothing.
        #expect(try await r.endKiosk(device, actor: w.professor, at: start + 2))
        #expect(try await !r.endKiosk(device, actor: w.professor, at: start + 3))
        #expect(try await r.kiosk(tokenHash: "k1", at: start + 4) == nil)
        // The professor ends every kiosk of the lecture from another device.
        _ = try await r.startKiosk(lecture: lecture.id, operatorID: w.professor, tokenHash: "k3", at: start)
        _ = try await r.startKiosk(lecture: lecture.id, operatorID: w.admin, tokenHash: "k4", at: start)
        #expect(try await r.endKiosks(lecture: lecture.id, actor: w.professor, at: start + 5) == 2)
        #expect(try await r.kiosk(tokenHash: "k4", at: start + 6) == nil)
        #expect(try await r.auditTrail(lecture: lecture.id).filter { $0.action.hasPrefix("kiosk.") }.count == 5)
        // The type-ahead: two letters at least, only students still missing, case-insensitive.
        let people = try await r.roll(lecture: lecture.id).missing
        #expect(people.count == 3)
        #expect(try await r.missingStudents(lecture: lecture.id, matching: "a").isEmpty)
        #expect(try await r.missingStudents(lecture: lecture.id, matching: "AN").map(\.username) == ["ann"])
        _ = try await r.checkIn(lecture: lecture.id, student: w.students[0], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil,
                                actor: w.professor, at: start + 60_000)
        #expect(try await r.missingStudents(lecture: lecture.id, matching: "an").isEmpty)
        // A confirmed lecture takes no kiosk.
        _ = try await r.confirm(lecture: lecture.id, professor: w.professor, faceDistance: 0.3, headcount: nil, at: start + 120_000)
        await #expect(throws: AttendanceError.self) {
            try await r.startKiosk(lecture: lecture.id, operatorID: w.professor, tokenHash: "k5", at: start + 130_000)
        }
        await w.store.close()
    }

    static func lecture(_ backend: Backend) async throws {
        let w = try await world(backend)
        let start: Int64 = 1_790_000_000_000
        let lecture = try await w.register.createLecture(course: w.course, title: "Week 1", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        // Times at Int64's ends are refused, not subtracted (the API fuzzer's Int64.min start
        // trapped on overflow and stopped the server); so is a lecture over 12 hours.
        for (from, to) in [(Int64.min, Int64(0)), (Int64(0), Int64.max), (Int64.max - 1, Int64.max), (start, start + 12 * 3_600_000 + 1)] {
            await #expect(throws: AttendanceError.self) {
                try await w.register.createLecture(course: w.course, title: "Edge", startsAt: from, endsAt: to, actor: w.professor)
            }
        }
        // Not open yet.
        await #expect(throws: AttendanceError.self) {
            try await w.register.checkIn(lecture: lecture.id, student: w.students[0], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil, actor: w.professor)
        }
        let opened = try await w.register.open(lecture: lecture.id, actor: w.professor)
        #expect(opened.state == .open && opened.checkinCode?.count == 8)
        _ = try await w.register.checkIn(lecture: lecture.id, student: w.students[0], method: .kioskVerified, distance: 0.31, liveness: "blink→open-mouth: passed",
                                         frameHash: "ab", actor: w.professor, at: start + 60_000)
        _ = try await w.register.checkIn(lecture: lecture.id, student: w.students[1], method: .kioskIdentified, distance: 0.35, liveness: "ok",
                                         frameHash: "cd", actor: w.professor, at: start + 20 * 60_000)
        // Twice, not enrolled, a wrong code from a phone: refused with the reason.
        do {
            _ = try await w.register.checkIn(lecture: lecture.id, student: w.students[0], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil, actor: w.professor)
            Issue.record("a double check-in was taken")
        } catch let error as AttendanceError { #expect("\(error)".contains("already checked in")) }
        do {
            _ = try await w.register.checkIn(lecture: lecture.id, student: w.students[3], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil, actor: w.professor)
            Issue.record("a student not enrolled was taken")
        } catch let error as AttendanceError { #expect("\(error)".contains("not enrolled")) }
        await #expect(throws: AttendanceError.invalid("code", "not this lecture's code")) {
            try await w.register.checkIn(lecture: lecture.id, student: w.students[2], method: .ownDevice, distance: 0.3, liveness: "ok", frameHash: nil,
                                         actor: w.students[2], code: "000000x", at: start)
        }
        let roll = try await w.register.roll(lecture: lecture.id)
        #expect(roll.checkedIn.map(\.studentID) == [w.students[0], w.students[1]])
        #expect(roll.missing.map(\.id) == [w.students[2]])
        #expect(roll.records.isEmpty)

        let confirmation = try await w.register.confirm(lecture: lecture.id, professor: w.professor, faceDistance: 0.28, headcount: 3, at: start + 5_000_000)
        #expect(confirmation.present == 1 && confirmation.late == 1 && confirmation.absent == 1 && confirmation.headcountDifference == 1)
        await #expect(throws: AttendanceError.conflict("this lecture is already confirmed")) {
            try await w.register.confirm(lecture: lecture.id, professor: w.professor, faceDistance: 0.28, headcount: nil)
        }
        await #expect(throws: AttendanceError.conflict("this lecture is already confirmed")) {
            try await w.register.checkIn(lecture: lecture.id, student: w.students[2], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil, actor: w.professor)
        }
        let records = try await w.register.roll(lecture: lecture.id).records
        #expect(Dictionary(uniqueKeysWithValues: records.map { ($0.studentID, $0.status) }) == [w.students[0]: .present, w.students[1]: .late, w.students[2]: .absent])
        let edited = try await w.register.edit(lecture: lecture.id, student: w.students[2], status: .excused, professor: w.professor, faceDistance: 0.3)
        #expect(edited.status == .excused && edited.method == .professorEdit)
        let audit = try await w.register.auditTrail(lecture: lecture.id)
        #expect(audit.contains { $0.action == "checkin" && $0.frameHash == "ab" && $0.distance == 0.31 && $0.liveness == "blink→open-mouth: passed" })
        #expect(audit.contains { $0.action == "lecture.confirm" && $0.confirmedBy == w.professor })
        #expect(audit.contains { $0.action == "record.edit" && $0.detail == "absent → excused" })
        #expect(try await w.register.isProfessor(w.professor, course: w.course))
        #expect(try await !w.register.isProfessor(w.other, course: w.course))
        await w.store.close()
    }

    static func student(_ backend: Backend) async throws {
        let w = try await world(backend)
        let start: Int64 = 1_790_000_000_000
        for week in 0..<4 {
            let l = try await w.register.createLecture(course: w.course, title: "Week \(week + 1)", startsAt: start + Int64(week) * 604_800_000,
                                                       endsAt: start + Int64(week) * 604_800_000 + 5_400_000, actor: w.professor)
            guard week < 3 else { continue }  // the fourth is not held yet
            _ = try await w.register.open(lecture: l.id, actor: w.professor)
            if week != 1 {
                _ = try await w.register.checkIn(lecture: l.id, student: w.students[0], method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil,
                                                 actor: w.professor, at: l.startsAt)
            }
            _ = try await w.register.confirm(lecture: l.id, professor: w.professor, faceDistance: 0.3, headcount: nil, at: l.endsAt)
        }
        let mine = try await w.register.attendance(student: w.students[0])
        #expect(mine.count == 1)
        // Present in weeks 1 and 3 of 3 confirmed lectures: 66.7 %.
        #expect(mine[0].confirmed == 3 && abs((mine[0].percent ?? 0) - 200.0 / 3) < 1e-9)
        #expect(mine[0].lectures.map(\.status) == [.present, .absent, .present, nil])
        let csv = try await w.register.exportCSV(course: w.course)
        let lines = csv.split(separator: "\n")
        #expect(lines.first == "lecture_date,lecture,username,name,status,method,remark")
        #expect(lines.count == 1 + 3 * 3)
        #expect(lines.contains { $0.hasSuffix(",ann,Ann,present,kiosk-verified,") })
        await w.store.close()
    }

    static func faces(_ backend: Backend) async throws {
        let w = try await world(backend)
        let d: [Float] = (0..<128).map { Float($0) / 128 }
        _ = try await w.register.addFace(person: w.students[0], descriptor: d, yaw: 0, photo: nil, photoType: nil, actor: w.admin)
        _ = try await w.register.addFace(person: w.students[0], descriptor: d.map { $0 + 0.1 }, yaw: 15, photo: Data([0xFF, 0xD8, 1, 2]), photoType: "image/jpeg", actor: w.admin)
        await #expect(throws: AttendanceError.self) {
            try await w.register.addFace(person: w.students[0], descriptor: [1, 2], yaw: 0, photo: nil, photoType: nil, actor: w.admin)
        }
        let templates = try await w.register.templates([w.students[0], w.students[1]])
        #expect(templates.count == 1 && templates[0].descriptors.count == 2)
        #expect(abs(Double(templates[0].mean![10]) - (10.0 / 128 + 0.05)) < 1e-6)
        let photos = try await w.register.photos(person: w.students[0])
        #expect(photos.count == 1)
        #expect(try await w.register.photo(person: w.students[1], id: photos[0].id) == nil)
        #expect(try await w.register.deleteFaces(person: w.students[0], actor: w.students[0]) == 2)
        // Checked in the database itself: no row, no descriptor, no photo left.
        let left = try await w.store.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM att_faces WHERE user_id = \(bind: w.students[0])").first()?.decode(column: "n", as: Int.self)
        }
        #expect(left == 0)
        #expect(try await w.register.person(w.students[0])?.faces == 0)
        await w.store.close()
    }

    /// The server moves from dlib to SFace: dlib's enrolments are never compared with SFace's;
    /// a kept photo can be enrolled again; a descriptor with no photo goes when the person
    /// enrols with the new model.
    static func faceModels(_ backend: Backend) async throws {
        let w = try await world(backend)
        let dlib = w.register
        let d: [Float] = (0..<128).map { Float($0) / 128 }
        _ = try await dlib.addFace(person: w.students[0], descriptor: d, yaw: 0, photo: nil, photoType: nil, actor: w.admin)
        _ = try await dlib.addFace(person: w.students[1], descriptor: d, yaw: 0, photo: Data([0xFF, 0xD8, 1]), photoType: "image/jpeg", actor: w.admin)
        let sface = AttendanceRegister(store: w.store, faceModel: .sface)
        #expect(try await sface.allTemplates().isEmpty)
        #expect(try await sface.templates([w.students[0], w.students[1]]).isEmpty)
        let ann = try #require(try await sface.person(w.students[0]))
        #expect(ann.faces == 0 && ann.staleFaces == 1)
        #expect(try await sface.students(course: w.course).map(\.staleFaces) == [1, 1, 0])
        // Ann enrols with SFace: her dlib descriptor (no photo) goes.
        let unit: [Float] = (0..<128).map { $0 == 0 ? 1 : 0 }
        #expect(try await sface.addFace(person: w.students[0], descriptor: unit, yaw: 0, photo: nil, photoType: nil, actor: w.admin) == 1)
        #expect(try await sface.person(w.students[0])?.staleFaces == 0)
        #expect(try await dlib.templates([w.students[0]]).isEmpty)
        // Ben's kept photo: enrolled again, descriptor and model replaced.
        let kept = try await sface.staleKeptPhotos(person: w.students[1])
        #expect(kept.count == 1 && kept[0].photo == Data([0xFF, 0xD8, 1]))
        #expect(try await sface.staleKeptPhotoCount(person: w.students[1]) == 1)
        try await sface.reenrol(person: w.students[1], face: kept[0].id, descriptor: unit, actor: w.admin)
        #expect(try await sface.staleKeptPhotos(person: w.students[1]).isEmpty)
        await #expect(throws: AttendanceError.self) { try await sface.reenrol(person: w.students[0], face: kept[0].id, descriptor: unit, actor: w.admin) }
        let both = try await sface.templates([w.students[0], w.students[1]])
        #expect(both.map(\.model) == [.sface, .sface] && both.map(\.descriptors.count) == [1, 1])
        // SFace's mean is scaled back to length 1: the mean of two orthogonal unit vectors is
        // (½, ½), of length 1/√2, and so (1/√2, 1/√2) after scaling.
        let two = FaceTemplate(personID: "x", model: .sface, descriptors: [unit, (0..<128).map { $0 == 1 ? 1 : 0 }])
        #expect(abs(Double(two.mean![0]) - 0.5.squareRoot()) < 1e-6 && abs(Double(two.mean![1]) - 0.5.squareRoot()) < 1e-6)
        // One model's template is never measured against another's policy.
        #expect(throws: AttendanceError.self) { try FaceMatcher.verify(unit, against: FaceTemplate(personID: "y", model: .dlib, descriptors: [d]), policy: .sface) }
        await w.store.close()
    }

    /// Two requests fired at once (`async let`): on PostgreSQL (read committed) they really
    /// interleave, and each must end as if they had come one after the other.
    static func together(_ backend: Backend) async throws {
        let w = try await world(backend)
        try await TestDatabase.warm(w.store)
        let r = w.register
        let start: Int64 = 1_790_000_000_000

        // One face proof cannot authorise two acts.
        let token = try await r.recordFaceProof(user: w.professor, session: "s", distance: 0.3, at: start)
        func spend() async -> Result<Double, any Error> { await outcome { try await r.useFaceProof(token, user: w.professor, session: "s", at: start + 1_000) } }
        async let a = spend(), b = spend(), c = spend()
        let spends = [await a, await b, await c]
        #expect(spends.filter { (try? $0.get()) == 0.3 }.count == 1)
        #expect(spends.filter { if case .failure(AttendanceError.faceNeeded(let why)) = $0 { why.contains("already used") } else { false } }.count == 2)
        await #expect(throws: AttendanceError.faceNeeded("the face check is older than 120 s; check again")) {
            try await r.useFaceProof(try await r.recordFaceProof(user: w.professor, session: "s", distance: 0.3, at: start), user: w.professor, session: "s",
                                     at: start + 121_000)
        }
        // A proof serves only in the session (or at the kiosk) where it was made.
        await #expect(throws: AttendanceError.faceNeeded("a face check of your own is needed first")) {
            try await r.useFaceProof(try await r.recordFaceProof(user: w.professor, session: "s", distance: 0.3, at: start), user: w.professor, session: "t",
                                     at: start + 1_000)
        }

        // Two opens at once: one code, the one stored, opened once.
        let lecture = try await r.createLecture(course: w.course, title: "Week 1", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        async let o1 = r.open(lecture: lecture.id, actor: w.professor)
        async let o2 = r.open(lecture: lecture.id, actor: w.professor)
        let codes = [try await o1.checkinCode, try await o2.checkinCode]
        let stored = try await r.lecture(lecture.id)?.checkinCode
        #expect(codes[0] != nil && codes[0] == codes[1] && codes[0] == stored)
        #expect(try await r.auditTrail(lecture: lecture.id).filter { $0.action == "lecture.open" }.count == 1)

        // Check-ins racing the confirmation: each is either refused (the lecture is confirmed)
        // or acknowledged and then in the records — never acknowledged and recorded absent.
        func checkIn(_ student: String) async -> Result<PendingCheckIn, any Error> {
            await outcome { try await r.checkIn(lecture: lecture.id, student: student, method: .kioskVerified, distance: 0.3, liveness: "ok",
                                               frameHash: nil, actor: w.professor, at: start + 60_000) }
        }
        async let c0 = checkIn(w.students[0]), c1 = checkIn(w.students[1]), c2 = checkIn(w.students[2])
        async let confirmed = outcome { try await r.confirm(lecture: lecture.id, professor: w.professor, faceDistance: 0.3, headcount: nil, at: start + 120_000) }
        let checkIns = [await c0, await c1, await c2]
        let confirmation = try await confirmed.get()
        let records = Dictionary(uniqueKeysWithValues: try await r.roll(lecture: lecture.id).records.map { ($0.studentID, $0.status) })
        for (student, result) in zip(w.students, checkIns) {
            switch result {
            case .success: #expect(records[student] == .present, "an acknowledged check-in was recorded \(records[student].map { "\($0)" } ?? "nowhere")")
            case .failure(let error):
                #expect(error as? AttendanceError == .conflict("this lecture is already confirmed"))
                #expect(records[student] == .absent)
            }
        }
        #expect(confirmation.present == checkIns.filter { (try? $0.get()) != nil }.count)

        // Three confirmations at once: one confirms, the others are told so (not a 500 on the
        // records' key); one record per student.
        let second = try await r.createLecture(course: w.course, title: "Week 2", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        _ = try await r.open(lecture: second.id, actor: w.professor)
        func confirm() async -> Result<Attendance.Confirmation, any Error> {
            await outcome { try await r.confirm(lecture: second.id, professor: w.professor, faceDistance: 0.3, headcount: nil) }
        }
        async let k1 = confirm(), k2 = confirm(), k3 = confirm()
        let confirms = [await k1, await k2, await k3]
        #expect(confirms.filter { (try? $0.get()) != nil }.count == 1)
        #expect(confirms.filter { if case .failure(AttendanceError.conflict("this lecture is already confirmed")) = $0 { true } else { false } }.count == 2)
        #expect(try await r.roll(lecture: second.id).records.count == 3)
        // A confirmed lecture is not opened again.
        await #expect(throws: AttendanceError.conflict("this lecture is already confirmed")) { try await r.open(lecture: second.id, actor: w.professor) }

        // Enrolments of one student at once: enrolled once, audited once.
        func enrol() async -> Result<Void, any Error> { await outcome { try await r.enrol(w.students[3], course: w.course, actor: w.admin) } }
        async let e1 = enrol(), e2 = enrol(), e3 = enrol()
        for result in [await e1, await e2, await e3] { #expect((try? result.get()) != nil, "\(result)") }
        #expect(try await r.auditTrail().filter { $0.action == "course.enrol" && $0.subject == w.students[3] }.count == 1)
        await w.store.close()
    }

    static func courses(_ backend: Backend) async throws {
        let w = try await world(backend)
        await #expect(throws: AttendanceError.conflict("a course CV101 already exists in 2026/27")) {
            try await w.register.createCourse(code: "CV101", title: "Again", academicYear: "2026/27", actor: w.admin)
        }
        _ = try await w.register.createCourse(code: "CV101", title: "Next year", academicYear: "2027/28", actor: w.admin)
        await #expect(throws: AttendanceError.invalid("academicYear", "a year like 2026/27")) {
            try await w.register.createCourse(code: "X", title: "Y", academicYear: "2026/28", actor: w.admin)
        }
        await #expect(throws: AttendanceError.self) { try await w.register.enrol(w.professor, course: w.course, actor: w.admin) }
        await #expect(throws: AttendanceError.self) { try await w.register.assignProfessor(w.students[0], course: w.course, actor: w.admin) }
        // The API fuzzer's finds: "+123/24" read as a year, an unknown person answered as if the
        // course were missing, a title of control characters kept.
        #expect(!AttendanceRegister.validYear("+123/24") && !AttendanceRegister.validYear("2026/+7") && AttendanceRegister.validYear("2099/00"))
        await #expect(throws: AttendanceError.invalid("user", "no person 'nobody'")) {
            try await w.register.enrol("nobody", course: w.course, actor: w.admin)
        }
        await #expect(throws: AttendanceError.invalid("title", "no control characters (tabs, line breaks)")) {
            try await w.register.createCourse(code: "X1", title: "a\u{1C}b", academicYear: "2026/27", actor: w.admin)
        }
        await #expect(throws: AttendanceError.invalid("code", "1 to 20 characters, not only spaces")) {
            try await w.register.createCourse(code: " \u{3000} ", title: "Spaces", academicYear: "2026/27", actor: w.admin)
        }
        let padded = try await w.register.createCourse(code: "  CV102 ", title: String(repeating: "é", count: 120), academicYear: "2026/27", actor: w.admin)
        #expect(padded.code == "CV102")
        await #expect(throws: AttendanceError.invalid("title", "at most 120 characters")) {
            // 120 characters but 121 scalars (e + combining acute at the end): the document's
            // maxLength counts scalars, and so does the register.
            try await w.register.createCourse(code: "X2", title: String(repeating: "é", count: 119) + "e\u{301}", academicYear: "2026/27", actor: w.admin)
        }
        #expect(try await w.register.courses(for: w.admin, role: "admin").count == 3)
        #expect(try await w.register.courses(for: w.professor, role: "professor").map(\.code) == ["CV101"])
        #expect(try await w.register.courses(for: w.other, role: "professor").isEmpty)
        #expect(try await w.register.courses(for: w.students[0], role: "student", year: "2026/27").first?.students == 3)
        await w.store.close()
    }
}
