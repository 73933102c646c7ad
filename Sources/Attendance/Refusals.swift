import SentioStore
import SQLKit

/// A check-in refused in a student's name, as that student sees it: when, at which lecture,
/// and why in plain words. The audit's exact reason, the face distance and the frame's hash
/// stay in the audit trail (the professor's); a student sees only attempts made in their own
/// name (the kiosk's chosen name, or their own phone).
public struct RefusedAttempt: Codable, Sendable, Equatable {
    /// Milliseconds since 1970 (UTC).
    public var at: Int64
    public var lectureID: String
    public var lectureTitle: String
    public var lectureStartsAt: Int64
    /// "We could not see you blink in time.", "The face does not match the one enrolled.", …
    public var reason: String
}

extension AttendanceRegister {
    /// The most refusals a student's view lists per course, newest first.
    public static let refusalsShown = 50

    /// `student`'s refused check-ins at `course`'s lectures, newest first. 1:N attempts that
    /// named nobody are nobody's, and so are not shown to anyone.
    static func refusals(_ db: any SQLDatabase, student: String, course: String) async throws -> [RefusedAttempt] {
        try await db.raw("""
            SELECT a.at, a.detail, l.id, l.title, l.starts_at FROM att_audit a JOIN att_lectures l ON l.id = a.lecture_id
            WHERE a.subject = \(bind: student) AND a.action = 'checkin' AND a.outcome = 'refused' AND l.course_id = \(bind: course)
            ORDER BY a.at DESC LIMIT \(unsafeRaw: String(Self.refusalsShown))
            """).all().map { row in
            RefusedAttempt(at: try row.decode(column: "at", as: Int64.self), lectureID: try row.decode(column: "id", as: String.self),
                           lectureTitle: try row.decode(column: "title", as: String.self), lectureStartsAt: try row.decode(column: "starts_at", as: Int64.self),
                           reason: RefusalReason.plainWords(try row.decode(column: "detail", as: String?.self) ?? ""))
        }
    }
}

/// The audit's exact refusal reasons ("liveness: blink not done within 6 s") in the words the
/// kiosk shows the person in front of the camera (checkin.js `plainWords` says the same).
public enum RefusalReason {
    static let verbs = ["blink": "blink", "open-mouth": "open your mouth", "turn-left": "turn your head to your left",
                        "turn-right": "turn your head to your right"]

    /// Plain words for an audit reason. An unknown reason becomes a general sentence rather
    /// than the audit's text, which may hold numbers a student should not read as a score.
    public static func plainWords(_ reason: String) -> String {
        let words = reason.split(separator: " ").map(String.init)
        if reason.hasPrefix("liveness: "), words.count >= 5, words[2] == "not", words[3] == "done" {
            return "We could not see you \(verbs[words[1]] ?? words[1]) in time."
        }
        if reason.hasPrefix("liveness: "), words.count >= 6, words[2] == "when", words[3] == "asked" {
            return "We asked you to \(verbs[words[5]] ?? words[5]), and saw something else."
        }
        if reason.hasPrefix("liveness: no steady face") { return "We could not see your face steady and looking straight at the camera." }
        if reason.hasPrefix("liveness: the face left") { return "Your face left the camera." }
        if reason.hasPrefix("liveness: another face") { return "Another face came into view: one person at a time." }
        if reason.contains("face after the challenge") { return "The face at the end was not the face at the start." }
        if reason.contains("does not match") { return "The face does not match the one enrolled." }
        if reason.contains("took longer than") { return "That took too long." }
        return "The check-in was not accepted."
    }
}
