import Foundation
import SentioStore
import SQLKit

/// Attendance over a date range, per course and per student, with the students under a
/// threshold flagged.
///
/// **The rule.** A lecture counts when it was held — confirmed — and its start lies in
/// [`from`, `to`] (a lecture confirmed late still belongs to the day it was held). A student's
/// share is (present + late) ÷ (present + late + absent) of their records at those lectures:
/// an excused absence counts neither for nor against them, and a lecture held before they
/// were enrolled (no record) is not held against them either. No counted lecture: no share
/// (nil), and no flag. The student view's share (``CourseAttendance/percent``) is the same rule.
public struct AttendanceReport: Codable, Sendable, Equatable {
    /// The range, Unix milliseconds, both ends included.
    public var from: Int64
    public var to: Int64
    /// Students whose share is under this many percent are flagged.
    public var threshold: Double
    public var courses: [CourseReport]

    /// One course's lectures held in the range and its students' counts.
    public struct CourseReport: Codable, Sendable, Equatable {
        public var courseID: String
        public var code: String
        public var title: String
        public var academicYear: String
        /// Confirmed lectures in the range.
        public var lecturesHeld: Int
        /// Enrolled students, and anyone with a record in the range, by name.
        public var students: [StudentReport]
        /// How many of them are flagged.
        public var flagged: Int
    }

    public struct StudentReport: Codable, Sendable, Equatable {
        public var studentID: String
        public var username: String
        public var displayName: String
        public var present: Int
        public var late: Int
        public var excused: Int
        public var absent: Int
        /// (present + late) ÷ (present + late + absent) × 100; nil when that is 0 ÷ 0.
        public var percent: Double?
        /// The share is under the report's threshold.
        public var flagged: Bool
    }

    /// The share by the rule above, in percent.
    public static func percent(present: Int, late: Int, absent: Int) -> Double? {
        let counted = present + late + absent
        return counted == 0 ? nil : 100 * Double(present + late) / Double(counted)
    }
}

extension AttendanceRegister {
    /// The default threshold of a report: a student under 75 % is flagged.
    public static let defaultThreshold = 75.0

    /// The report of `courses` (ids; the caller decided which the asker may see) for lectures
    /// held with a start in [`from`, `to`] (Unix milliseconds). Unknown course ids are left out.
    public func report(courses: [String], from: Int64, to: Int64, threshold: Double = AttendanceRegister.defaultThreshold) async throws -> AttendanceReport {
        guard threshold.isFinite, (0...100).contains(threshold) else { throw AttendanceError.invalid("threshold", "a percentage from 0 to 100") }
        guard from <= to else { throw AttendanceError.invalid("to", "on or after the start of the range") }
        return try await store.read { db in
            var reports: [AttendanceReport.CourseReport] = []
            for id in courses {
                guard let row = try await db.select().columns("*").from("att_courses").where("id", .equal, SQLBind(id)).first() else { continue }
                reports.append(try await Self.courseReport(db, row, from: from, to: to, threshold: threshold, faceModel: faceModel))
            }
            reports.sort { ($1.academicYear, $0.code) < ($0.academicYear, $1.code) }
            return AttendanceReport(from: from, to: to, threshold: threshold, courses: reports)
        }
    }

    static func courseReport(_ db: any SQLDatabase, _ row: any SQLRow, from: Int64, to: Int64, threshold: Double, faceModel: FaceModel) async throws -> AttendanceReport.CourseReport {
        let id = try row.decode(column: "id", as: String.self)
        let confirmed = LectureState.confirmed.rawValue
        let held = try await db.raw("""
            SELECT COUNT(*) AS n FROM att_lectures WHERE course_id = \(bind: id) AND state = \(bind: confirmed)
              AND starts_at >= \(bind: from) AND starts_at <= \(bind: to)
            """).first()?.decode(column: "n", as: Int.self) ?? 0
        // Counts per student and status, in one pass over the records of the lectures held.
        var counts: [String: [AttendanceStatus: Int]] = [:]
        var people: [String: (username: String, name: String)] = [:]
        for row in try await db.raw("""
            SELECT r.student_id, u.username, u.display_name, r.status, COUNT(*) AS n
            FROM att_records r JOIN att_lectures l ON l.id = r.lecture_id JOIN users u ON u.id = r.student_id
            WHERE l.course_id = \(bind: id) AND l.state = \(bind: confirmed) AND l.starts_at >= \(bind: from) AND l.starts_at <= \(bind: to)
            GROUP BY r.student_id, u.username, u.display_name, r.status
            """).all() {
            let student = try row.decode(column: "student_id", as: String.self)
            people[student] = (try row.decode(column: "username", as: String.self), try row.decode(column: "display_name", as: String.self))
            if let status = AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self)) {
                counts[student, default: [:]][status, default: 0] += try row.decode(column: "n", as: Int.self)
            }
        }
        for person in try await Self.students(db, id, faceModel) { people[person.id] = (person.username, person.displayName) }
        let students = people.map { id, person in
            let c = counts[id] ?? [:]
            let (present, late, excused, absent) = (c[.present] ?? 0, c[.late] ?? 0, c[.excused] ?? 0, c[.absent] ?? 0)
            let percent = AttendanceReport.percent(present: present, late: late, absent: absent)
            return AttendanceReport.StudentReport(studentID: id, username: person.username, displayName: person.name, present: present, late: late,
                                                  excused: excused, absent: absent, percent: percent, flagged: percent.map { $0 < threshold } ?? false)
        }.sorted { ($0.displayName, $0.username) < ($1.displayName, $1.username) }
        return AttendanceReport.CourseReport(courseID: id, code: try row.decode(column: "code", as: String.self), title: try row.decode(column: "title", as: String.self),
                                             academicYear: try row.decode(column: "academic_year", as: String.self), lecturesHeld: held,
                                             students: students, flagged: students.filter(\.flagged).count)
    }

    /// A report as CSV: a header row, then one row per course and student; cells that a
    /// spreadsheet would run as a formula are escaped (``CSV/field(_:)``).
    public static func reportCSV(_ report: AttendanceReport) -> String {
        var lines = ["course,academic_year,username,name,present,late,excused,absent,lectures_held,percent,flagged"]
        for course in report.courses {
            for s in course.students {
                lines.append([course.code, course.academicYear, s.username, s.displayName, String(s.present), String(s.late), String(s.excused),
                              String(s.absent), String(course.lecturesHeld), s.percent.map { String(format: "%.1f", $0) } ?? "",
                              s.flagged ? "yes" : "no"].map(CSV.field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
