import Foundation
import SQLKit
import SentioStore

/// A class list to import into a course: `username,display name` rows (the display name may be
/// left out; a header row whose first field is "username" is skipped).
///
/// Checked whole before anything is written: every problem names its line. Names are
/// normalised as accounts store them (trimmed, lower-cased), so "Alice" in the list is the
/// account "alice" that exists, and a name listed twice is one row.
public struct StudentImport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The line in the CSV (from 1), for messages.
        public var line: Int
        public var username: String
        public var displayName: String
    }

    public var rows: [Row]
    /// The most rows one import takes.
    public static let maxRows = 2000

    /// Parses and checks `text`; the error names the first bad line.
    public init(csv text: String) throws {
        var parsed: [[String]]
        do { parsed = try CSV.parse(text) } catch { throw AttendanceError.invalid("CSV", "\(error)") }
        var first = 1
        if parsed.first?.first?.trimmingCharacters(in: .whitespaces).lowercased() == "username" {
            parsed.removeFirst()
            first = 2
        }
        guard !parsed.isEmpty else { throw AttendanceError.invalid("CSV", "no rows: one student a line, `username,display name`") }
        guard parsed.count <= Self.maxRows else { throw AttendanceError.invalid("CSV", "at most \(Self.maxRows) students per import") }
        var seen = Set<String>()
        rows = []
        for (offset, fields) in parsed.enumerated() {
            let line = first + offset
            let username = Accounts.normalized(fields[0])
            if let problem = Accounts.usernameProblem(username) { throw AttendanceError.invalid("line \(line)", "\(problem) (\(fields[0]))") }
            let name = fields.count > 1 ? fields[1].trimmingCharacters(in: .whitespacesAndNewlines) : ""
            let displayName = name.isEmpty ? username : name
            guard displayName.count <= 100 else { throw AttendanceError.invalid("line \(line)", "a display name has at most 100 characters") }
            guard seen.insert(username).inserted else { continue }
            rows.append(Row(line: line, username: username, displayName: displayName))
        }
    }
}

/// An account the import made, with its first password (shown once, never stored in clear).
public struct CreatedStudent: Codable, Sendable, Equatable {
    public var username: String
    public var displayName: String
    public var password: String
}

/// What an import did: how many of the list are enrolled now, and the accounts it made.
public struct ImportResult: Codable, Sendable, Equatable {
    public var enrolled: Int
    public var created: [CreatedStudent]
}

extension AttendanceRegister {
    /// The names of `list` with no account yet (they need a first password).
    public func newUsernames(_ list: StudentImport) async throws -> Set<String> {
        try await store.read { db in
            var new = Set<String>()
            for row in list.rows where try await Accounts.user(db, named: row.username) == nil { new.insert(row.username) }
            return new
        }
    }

    /// Imports `list` into `course` in one transaction: existing students are enrolled, names
    /// without an account become students with the first password of `passwords` (its hash
    /// stored, the password to be changed at the first sign-in). All or nothing: a name that
    /// belongs to a professor, say, fails the whole import with its line, and nothing is kept.
    public func importStudents(_ list: StudentImport, course: String, passwords: [String: (password: String, hash: String)],
                               actor: String) async throws -> ImportResult {
        try await store.transaction { db in
            guard try await db.select().column("id").from("att_courses").where("id", .equal, SQLBind(course)).first() != nil else {
                throw AttendanceError.notFound("course \(course)")
            }
            var created: [CreatedStudent] = []
            for row in list.rows {
                let id: String
                if let user = try await Accounts.user(db, named: row.username) {
                    guard user.role == .student else {
                        throw AttendanceError.invalid("line \(row.line)", "\(user.username) is a \(user.role.rawValue), not a student")
                    }
                    id = user.id
                } else {
                    guard let first = passwords[row.username] else {
                        throw AttendanceError.conflict("line \(row.line): \(row.username) had no account when the import began; import again")
                    }
                    id = try await Accounts.insert(db, username: row.username, displayName: row.displayName, role: .student,
                                                   passwordHash: first.hash, actor: actor, mustChangePassword: true).id
                    created.append(CreatedStudent(username: row.username, displayName: row.displayName, password: first.password))
                }
                if try await db.raw("""
                    INSERT INTO att_enrolments (course_id, user_id) VALUES (\(bind: course), \(bind: id))
                    ON CONFLICT (course_id, user_id) DO NOTHING RETURNING user_id
                    """).first() != nil {
                    try await Self.audit(db, AuditEntry(actor: actor, subject: id, action: "course.enrol", outcome: "ok", detail: course))
                }
            }
            return ImportResult(enrolled: list.rows.count, created: created)
        }
    }
}
