import Attendance
import Foundation
import SentioStore
import SentioStoreTestSupport
import SentioTestSupport
import Testing

@Suite("Timetables, remarks, reports and refusals on SQLite")
struct SqlitePlanningTests {
    @Test("a weekly slot across the spring change; exceptions; making the lectures twice makes them once") func timetable() async throws { try await PlanningChecks.timetable(.sqlite) }
    @Test("a remark with the status: at most 200 characters, shown in the roll, the student's view and the CSV") func remarks() async throws { try await PlanningChecks.remarks(.sqlite) }
    @Test("a report over a date range: counts, percentages, the flag threshold, the CSV") func report() async throws { try await PlanningChecks.report(.sqlite) }
    @Test("a student sees their own refused check-ins in plain words, nobody else's") func refusals() async throws { try await PlanningChecks.refusals(.sqlite) }
}

@Suite("Timetables, remarks, reports and refusals on PostgreSQL", .requires(.postgres))
struct PostgresPlanningTests {
    @Test("a weekly slot across the spring change; exceptions; making the lectures twice makes them once") func timetable() async throws { try await PlanningChecks.timetable(.postgres) }
    @Test("a remark with the status: at most 200 characters, shown in the roll, the student's view and the CSV") func remarks() async throws { try await PlanningChecks.remarks(.postgres) }
    @Test("a report over a date range: counts, percentages, the flag threshold, the CSV") func report() async throws { try await PlanningChecks.report(.postgres) }
    @Test("a student sees their own refused check-ins in plain words, nobody else's") func refusals() async throws { try await PlanningChecks.refusals(.postgres) }
}

@Suite("Timetable arithmetic")
struct TimetableArithmeticTests {
    @Test("dates are strict and real; weekdays are ISO's") func dates() {
        #expect(Timetable.day("1970-01-01") == 0)
        #expect(Timetable.day("2027-03-15") == 20_892)   // 1_805_102_100_000 ms (09:15 UTC that day) ÷ 86_400_000, floored
        for bad in ["2027-02-29", "2027-13-01", "2027-3-15", "27-03-15", "2027-03-15T10:00", "+027-03-15", ""] {
            #expect(Timetable.day(bad) == nil, "\(bad)")
        }
        #expect(Timetable.day("2028-02-29") != nil)   // a leap year
        #expect(Timetable.minute("10:15") == 615 && Timetable.minute("24:00") == nil && Timetable.minute("9:15") == nil)
    }

    @Test("a draft's problems name the field") func drafts() throws {
        let good = TimetableSlot.Draft(weekday: 1, startTime: "10:15", durationMinutes: 90, title: "Lecture", room: "P1",
                                       firstDate: "2027-03-01", lastDate: "2027-06-30", timeZone: "Europe/Ljubljana")
        #expect(throws: Never.self) { try Timetable.check(good) }
        var d = good; d.weekday = 8
        #expect(throws: AttendanceError.invalid("weekday", "1 (Monday) to 7 (Sunday)")) { try Timetable.check(d) }
        d = good; d.startTime = "25:00"
        #expect(throws: AttendanceError.self) { try Timetable.check(d) }
        d = good; d.durationMinutes = 0
        #expect(throws: AttendanceError.self) { try Timetable.check(d) }
        // Abbreviations are refused: they name no place ("EST" is a fixed offset, no summer time).
        d = good; d.timeZone = "CET"
        #expect(throws: AttendanceError.invalid("timeZone", "an IANA time zone like Europe/Ljubljana")) { try Timetable.check(d) }
        d = good; d.timeZone = "Mars/Olympus"
        #expect(throws: AttendanceError.self) { try Timetable.check(d) }
        d = good; d.lastDate = "2027-02-28"
        #expect(throws: AttendanceError.self) { try Timetable.check(d) }
        d = good; d.lastDate = "2028-06-30"   // over 370 days
        #expect(throws: AttendanceError.self) { try Timetable.check(d) }
        // No zone: the default one given (the server's).
        d = good; d.timeZone = nil
        #expect(try Timetable.check(d, defaultZone: TimeZone(identifier: "America/New_York")!).timeZone == "America/New_York")
    }
}

enum PlanningChecks {
    /// The Mondays of 15 March to 5 April 2027 at 10:15 in Ljubljana. Summer time starts on the
    /// last Sunday of March, 28 March 2027 (02:00 CET → 03:00 CEST): before it 10:15 is UTC+1,
    /// 09:15 UTC; after it UTC+2, 08:15 UTC. Unix milliseconds of those instants (Python's
    /// `datetime(2027, 3, 15, 9, 15, tzinfo=timezone.utc).timestamp() * 1000`, checked: the first
    /// two are one week, 604,800,000 ms, apart; the second and third one week less an hour):
    static let mondays: [String: Int64] = [
        "2027-03-15": 1_805_102_100_000,  // 09:15 UTC
        "2027-03-22": 1_805_706_900_000,  // 09:15 UTC
        "2027-03-29": 1_806_308_100_000,  // 08:15 UTC
        "2027-04-05": 1_806_912_900_000,  // 08:15 UTC
    ]

    static let draft = TimetableSlot.Draft(weekday: 1, startTime: "10:15", durationMinutes: 90, title: "Computer vision", room: "P1",
                                           firstDate: "2027-03-15", lastDate: "2027-04-05", timeZone: "Europe/Ljubljana")

    static func scheduled(_ w: RegisterChecks.World) async throws -> [String: Lecture] {
        Dictionary(uniqueKeysWithValues: try await w.register.lectures(course: w.course).compactMap { l in l.slotDate.map { ($0, l) } })
    }

    static func timetable(_ backend: Backend) async throws {
        let w = try await RegisterChecks.world(backend)
        let r = w.register
        let slot = try await r.defineSlot(course: w.course, draft, actor: w.professor)
        #expect(slot.startTime == "10:15" && slot.timeZone == "Europe/Ljubljana" && slot.exceptions.isEmpty)
        // A holiday before the lectures are made: 22 March is not made.
        _ = try await r.addException(slot: slot.id, date: "2027-03-22", actor: w.professor)
        let first = try await r.generateLectures(course: w.course, actor: w.professor)
        #expect(first == TimetableRun(created: 3, existing: 0, skipped: 1))
        var made = try await scheduled(w)
        #expect(Set(made.keys) == ["2027-03-15", "2027-03-29", "2027-04-05"])
        for (date, lecture) in made {
            #expect(lecture.startsAt == mondays[date], "\(date): \(lecture.startsAt)")
            #expect(lecture.endsAt - lecture.startsAt == 90 * 60_000)
            #expect(lecture.state == .scheduled && lecture.title == "Computer vision · P1")
        }
        // The spring change moved the UTC instant by an hour, not the lecture.
        #expect(made["2027-03-29"]!.startsAt - made["2027-03-15"]!.startsAt == 2 * 604_800_000 - 3_600_000)
        // Again: nothing new.
        #expect(try await r.generateLectures(course: w.course, actor: w.professor) == TimetableRun(created: 0, existing: 3, skipped: 1))
        #expect(try await r.lectures(course: w.course).count == 3)
        // An exception removes a lecture never opened; an opened one stays and the exception is refused.
        _ = try await r.addException(slot: slot.id, date: "2027-03-29", actor: w.professor)
        #expect(try await scheduled(w)["2027-03-29"] == nil)
        _ = try await r.open(lecture: made["2027-04-05"]!.id, actor: w.professor)
        await #expect(throws: AttendanceError.conflict("the lecture of 2027-04-05 was already opened; it stays")) {
            try await r.addException(slot: slot.id, date: "2027-04-05", actor: w.professor)
        }
        #expect(try await scheduled(w)["2027-04-05"]?.state == .open)
        // Dates the slot would not take place on are not exceptions.
        await #expect(throws: AttendanceError.invalid("date", "2027-03-23 is not a Monday")) {
            try await r.addException(slot: slot.id, date: "2027-03-23", actor: w.professor)
        }
        await #expect(throws: AttendanceError.self) { try await r.addException(slot: slot.id, date: "2027-05-03", actor: w.professor) }
        // Taking the holiday back: the next run makes 22 March and leaves the open lecture as it is.
        let back = try await r.removeException(slot: slot.id, date: "2027-03-22", actor: w.professor)
        #expect(back.exceptions == ["2027-03-29"])
        #expect(try await r.generateLectures(course: w.course, actor: w.professor) == TimetableRun(created: 1, existing: 2, skipped: 1))
        made = try await scheduled(w)
        #expect(Set(made.keys) == ["2027-03-15", "2027-03-22", "2027-04-05"] && made["2027-03-22"]!.startsAt == mondays["2027-03-22"])
        #expect(made["2027-04-05"]!.state == .open)
        #expect(try await r.slots(course: w.course).map(\.exceptions) == [["2027-03-29"]])
        // Two runs at once make each lecture once (the unique slot-and-date index).
        let other = try await r.defineSlot(course: w.course, TimetableSlot.Draft(weekday: 3, startTime: "08:00", durationMinutes: 45, title: "Lab",
                                                                                firstDate: "2027-03-01", lastDate: "2027-03-31", timeZone: "Europe/Ljubljana"),
                                           actor: w.professor)
        async let a = r.generateLectures(course: w.course, actor: w.professor)
        async let b = r.generateLectures(course: w.course, actor: w.professor)
        let (ra, rb) = try await (a, b)
        // Wednesdays of March 2027: 3, 10, 17, 24, 31 — five, made once between the two runs.
        #expect(ra.created + rb.created == 5)
        #expect(try await r.lectures(course: w.course).count == 3 + 5)
        // Deleting a slot removes its lectures never opened, keeps the opened one.
        #expect(try await r.deleteSlot(slot.id, actor: w.professor) == 2)
        #expect(try await r.lectures(course: w.course).count == 1 + 5)
        #expect(try await r.slots(course: w.course).map(\.id) == [other.id])
        await w.store.close()
    }

    static func remarks(_ backend: Backend) async throws {
        let w = try await RegisterChecks.world(backend)
        let r = w.register
        let start: Int64 = 1_790_000_000_000
        let lecture = try await r.createLecture(course: w.course, title: "Week 1", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        _ = try await r.open(lecture: lecture.id, actor: w.professor)
        _ = try await r.confirm(lecture: lecture.id, professor: w.professor, faceDistance: 0.3, headcount: nil, at: start + 5_400_000)
        // 201 characters: refused, and nothing changes.
        await #expect(throws: AttendanceError.invalid("remark", "at most 200 characters (this one has 201)")) {
            try await r.edit(lecture: lecture.id, student: w.students[0], status: .excused, remark: String(repeating: "a", count: 201),
                             professor: w.professor, faceDistance: 0.3)
        }
        #expect(try await r.roll(lecture: lecture.id).records.first { $0.studentID == w.students[0] }?.status == .absent)
        // 200 as sent is taken, and kept without the spaces around (counted as sent, as the API
        // document's maxLength counts).
        let long = try await r.edit(lecture: lecture.id, student: w.students[1], status: .absent, remark: " " + String(repeating: "é", count: 198) + " ",
                                    professor: w.professor, faceDistance: 0.3)
        #expect(long.remark?.count == 198)
        await #expect(throws: AttendanceError.self) {
            try await r.edit(lecture: lecture.id, student: w.students[0], status: .excused, remark: "two\nlines", professor: w.professor, faceDistance: 0.3)
        }
        let edited = try await r.edit(lecture: lecture.id, student: w.students[0], status: .excused, remark: " Doctor's note ", professor: w.professor, faceDistance: 0.3)
        #expect(edited.status == .excused && edited.remark == "Doctor's note")
        // Without a remark the remark stays; an empty one clears it.
        #expect(try await r.edit(lecture: lecture.id, student: w.students[0], status: .excused, professor: w.professor, faceDistance: 0.3).remark == "Doctor's note")
        #expect(try await r.roll(lecture: lecture.id).records.first { $0.studentID == w.students[0] }?.remark == "Doctor's note")
        let mine = try await r.attendance(student: w.students[0])
        #expect(mine[0].lectures.map(\.remark) == ["Doctor's note"] && mine[0].lectures.map(\.status) == [.excused])
        // A remark a spreadsheet would run is escaped in the CSV; the column is last.
        _ = try await r.edit(lecture: lecture.id, student: w.students[2], status: .late, remark: "=HYPERLINK(\"x\")", professor: w.professor, faceDistance: 0.3)
        let lines = try await r.exportCSV(course: w.course).split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix(",ann,Ann,excused,professor-edit,Doctor's note") })
        #expect(lines.contains { $0.hasSuffix(",cid,Cid,late,professor-edit,\"'=HYPERLINK(\"\"x\"\")\"") })
        _ = try await r.edit(lecture: lecture.id, student: w.students[0], status: .excused, remark: "   ", professor: w.professor, faceDistance: 0.3)
        #expect(try await r.roll(lecture: lecture.id).records.first { $0.studentID == w.students[0] }?.remark == nil)
        // The audit says the remark changed, not what it says.
        let audit = try await r.auditTrail(lecture: lecture.id).filter { $0.action == "record.edit" }
        #expect(audit.contains { $0.detail == "absent → excused, remark set" } && audit.contains { $0.detail == "excused → excused, remark cleared" })
        #expect(!audit.contains { $0.detail?.contains("Doctor") == true })
        await w.store.close()
    }

    /// A hand-built month. CV101 (ann, ben, cid) has four lectures held in March 2027 (L1–L4),
    /// one held in February (L0, outside the range) and one in March never confirmed (L5):
    ///
    /// | | L0 (Feb) | L1 | L2 | L3 | L4 | counted (L1–L4) | share |
    /// |---|---|---|---|---|---|---|---|
    /// | ann | absent | present | late | present | excused | 2 + 1 of 3 | 100 % |
    /// | ben | present | present | absent | absent | late | 1 + 1 of 4 | 50 % |
    /// | cid | absent | absent | present | present | present | 3 of 4 | 75 % |
    ///
    /// ann's excused lecture counts neither way (3 counted, not 4). At the default 75 %, ben is
    /// flagged and cid is not (75 is not under 75); at 80 % both are. Were February counted, cid
    /// would be 3 of 5 = 60 % and flagged at 75: the range matters. ML201 (dee) is another course.
    static func report(_ backend: Backend) async throws {
        let w = try await RegisterChecks.world(backend)
        let r = w.register
        let (ann, ben, cid, dee) = (w.students[0], w.students[1], w.students[2], w.students[3])
        let march1: Int64 = 1_803_859_200_000, day: Int64 = 86_400_000   // 2027-03-01T00:00Z
        let plan: [(Int64, [String: AttendanceStatus])] = [
            (march1 - 7 * day, [ann: .absent, ben: .present, cid: .absent]),
            (march1 + 1 * day, [ann: .present, ben: .present, cid: .absent]),
            (march1 + 8 * day, [ann: .late, ben: .absent, cid: .present]),
            (march1 + 15 * day, [ann: .present, ben: .absent, cid: .present]),
            (march1 + 22 * day, [ann: .excused, ben: .late, cid: .present]),
        ]
        for (n, (at, statuses)) in plan.enumerated() {
            let start = at + 10 * 3_600_000
            let l = try await r.createLecture(course: w.course, title: "L\(n)", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
            _ = try await r.open(lecture: l.id, actor: w.professor)
            for (student, status) in statuses where status == .present || status == .late {
                // Present within 10 minutes of the start, late after.
                _ = try await r.checkIn(lecture: l.id, student: student, method: .kioskVerified, distance: 0.3, liveness: "ok", frameHash: nil,
                                        actor: w.professor, at: start + (status == .present ? 60_000 : 20 * 60_000))
            }
            _ = try await r.confirm(lecture: l.id, professor: w.professor, faceDistance: 0.3, headcount: nil, at: start + 5_400_000)
            for (student, status) in statuses where status == .excused {
                _ = try await r.edit(lecture: l.id, student: student, status: .excused, remark: "ill", professor: w.professor, faceDistance: 0.3)
            }
        }
        _ = try await r.createLecture(course: w.course, title: "L5", startsAt: march1 + 29 * day, endsAt: march1 + 29 * day + 5_400_000, actor: w.professor)
        let ml = try await r.createCourse(code: "ML201", title: "Learning", academicYear: "2026/27", actor: w.admin)
        try await r.enrol(dee, course: ml.id, actor: w.admin)
        let mlLecture = try await r.createLecture(course: ml.id, title: "M1", startsAt: march1 + 2 * day, endsAt: march1 + 2 * day + 3_600_000, actor: w.admin)
        _ = try await r.open(lecture: mlLecture.id, actor: w.admin)
        _ = try await r.confirm(lecture: mlLecture.id, professor: w.admin, faceDistance: 0.3, headcount: nil, at: march1 + 3 * day)

        let april1 = march1 + 31 * day
        let report = try await r.report(courses: [w.course], from: march1, to: april1 - 1)
        #expect(report.threshold == 75 && report.courses.count == 1)
        let cv = try #require(report.courses.first)
        #expect(cv.code == "CV101" && cv.lecturesHeld == 4 && cv.flagged == 1)
        let rows = Dictionary(uniqueKeysWithValues: cv.students.map { ($0.username, $0) })
        #expect(cv.students.map(\.username) == ["ann", "ben", "cid"])
        #expect(rows["ann"].map { [$0.present, $0.late, $0.excused, $0.absent] } == [2, 1, 1, 0] && rows["ann"]?.percent == 100 && rows["ann"]?.flagged == false)
        #expect(rows["ben"].map { [$0.present, $0.late, $0.excused, $0.absent] } == [1, 1, 0, 2] && rows["ben"]?.percent == 50 && rows["ben"]?.flagged == true)
        #expect(rows["cid"].map { [$0.present, $0.late, $0.excused, $0.absent] } == [3, 0, 0, 1] && rows["cid"]?.percent == 75 && rows["cid"]?.flagged == false)
        // At 80 %, cid is under too.
        #expect(try await r.report(courses: [w.course], from: march1, to: april1 - 1, threshold: 80).courses[0].students.filter(\.flagged).map(\.username) == ["ben", "cid"])
        // February included: cid 3 of 5, 60 %.
        let wide = try await r.report(courses: [w.course], from: march1 - 28 * day, to: april1 - 1)
        #expect(wide.courses[0].lecturesHeld == 5 && wide.courses[0].students.first { $0.username == "cid" }?.percent == 60)
        // Both courses: dee absent at the one ML201 lecture, 0 %, flagged; dee is not in CV101's rows.
        let both = try await r.report(courses: [w.course, ml.id, "no-such-course"], from: march1, to: april1 - 1)
        #expect(both.courses.map(\.code) == ["CV101", "ML201"])
        #expect(both.courses[1].students.map(\.username) == ["dee"] && both.courses[1].students[0].percent == 0 && both.courses[1].flagged == 1)
        // An empty range: nothing held, no share, nobody flagged.
        let empty = try await r.report(courses: [w.course], from: april1, to: april1 + 30 * day)
        #expect(empty.courses[0].lecturesHeld == 0 && empty.courses[0].students.allSatisfy { $0.percent == nil && !$0.flagged })
        await #expect(throws: AttendanceError.self) { try await r.report(courses: [w.course], from: march1, to: april1, threshold: 101) }
        await #expect(throws: AttendanceError.self) { try await r.report(courses: [w.course], from: april1, to: march1) }
        // The CSV: a header row, a row per course and student.
        let csv = AttendanceRegister.reportCSV(report).split(separator: "\n")
        #expect(csv == ["course,academic_year,username,name,present,late,excused,absent,lectures_held,percent,flagged",
                        "CV101,2026/27,ann,Ann,2,1,1,0,4,100.0,no", "CV101,2026/27,ben,Ben,1,1,0,2,4,50.0,yes", "CV101,2026/27,cid,Cid,3,0,0,1,4,75.0,no"])
        // The student's own view uses the same rule over all held lectures: cid 3 of 5.
        #expect(try await r.attendance(student: cid)[0].percent == 60)
        await w.store.close()
    }

    static func refusals(_ backend: Backend) async throws {
        let w = try await RegisterChecks.world(backend)
        let r = w.register
        let start: Int64 = 1_790_000_000_000
        let lecture = try await r.createLecture(course: w.course, title: "Week 1", startsAt: start, endsAt: start + 5_400_000, actor: w.professor)
        _ = try await r.open(lecture: lecture.id, actor: w.professor)
        let (ann, ben, cid) = (w.students[0], w.students[1], w.students[2])
        try await r.recordRefusal(lecture: lecture.id, claimed: ann, actor: w.professor, frameHash: "f1", distance: 0.4137, liveness: "blink→open-mouth: failed",
                                  reason: "liveness: blink not done within 6 s")
        try await r.recordRefusal(lecture: lecture.id, claimed: ben, actor: ben, frameHash: "f2", distance: 0.5291, liveness: nil,
                                  reason: "the face does not match (3 tries in 3 s)")
        // An identification (1:N) that named nobody belongs to nobody.
        try await r.recordRefusal(lecture: lecture.id, claimed: nil, actor: w.professor, frameHash: "f3", distance: 0.61, liveness: nil,
                                  reason: "the face does not match (4 tries in 3 s)")
        let annView = try await r.attendance(student: ann)
        #expect(annView[0].refused.map(\.reason) == ["We could not see you blink in time."])
        #expect(annView[0].refused.first?.lectureTitle == "Week 1" && annView[0].refused.first?.lectureID == lecture.id)
        #expect(try await r.attendance(student: ben)[0].refused.map(\.reason) == ["The face does not match the one enrolled."])
        #expect(try await r.attendance(student: cid)[0].refused.isEmpty)
        // No distance, no hash, no audit wording in what the student reads.
        let json = String(decoding: try JSONEncoder().encode(annView), as: UTF8.self)
        for secret in ["0.41", "not done within", "distance", "liveness", "blink→"] { #expect(!json.contains(secret), "\(secret) in \(json)") }
        // Plain words for every reason the kiosk records; nothing unknown is echoed.
        #expect(RefusalReason.plainWords("liveness: turn-left when asked to open-mouth") == "We asked you to open your mouth, and saw something else.")
        #expect(RefusalReason.plainWords("the face after the challenge is not the face checked before it") == "The face at the end was not the face at the start.")
        #expect(RefusalReason.plainWords("distance 0.53 over 0.48") == "The check-in was not accepted.")
        await w.store.close()
    }
}
