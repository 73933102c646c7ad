import Foundation

/// A course in one academic year ("2026/27"), with its professors and enrolled students.
public struct Course: Codable, Sendable, Equatable {
    public var id: String
    public var code: String
    public var title: String
    public var academicYear: String
    public var professors: [Person]
    public var students: Int

    public init(id: String, code: String, title: String, academicYear: String, professors: [Person] = [], students: Int = 0) {
        self.id = id
        self.code = code
        self.title = title
        self.academicYear = academicYear
        self.professors = professors
        self.students = students
    }
}

/// A person as the attendance pages show them: the platform's user, with whether a face is
/// enrolled.
public struct Person: Codable, Sendable, Equatable {
    public var id: String
    public var username: String
    public var displayName: String
    public var role: String
    /// How many enrolment photos (descriptors of the model attendance decides with) the person
    /// has; 0 means no face check is possible.
    public var faces: Int
    /// Enrolment photos of another model (made before the server changed models): never
    /// compared; the person needs enrolling again (from kept photos, the server can do it).
    public var staleFaces: Int

    public init(id: String, username: String, displayName: String, role: String, faces: Int, staleFaces: Int = 0) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.role = role
        self.faces = faces
        self.staleFaces = staleFaces
    }
}

/// A lecture's life: planned, open for check-in, and confirmed by the professor's face (only
/// then are its records saved).
public enum LectureState: String, Codable, Sendable { case scheduled, open, confirmed }

/// One lecture of a course.
public struct Lecture: Codable, Sendable, Equatable {
    public var id: String
    public var courseID: String
    public var title: String
    /// Milliseconds since 1970 (UTC).
    public var startsAt: Int64
    public var endsAt: Int64
    public var state: LectureState
    /// The code shown in the room for check-in from students' own phones (open lectures only).
    public var checkinCode: String?
    /// The number of people the professor counted in the room, compared with the verified count.
    public var headcount: Int?
    public var confirmedAt: Int64?
    public var confirmedBy: String?
    /// The local date (`2027-03-29`) of the timetable slot this lecture was made from; nil for
    /// a single lecture.
    public var slotDate: String?
}

/// A student's attendance at a lecture.
public enum AttendanceStatus: String, Codable, Sendable, CaseIterable { case present, late, absent, excused }

/// How a status was decided.
public enum DecisionMethod: String, Codable, Sendable {
    /// Picked their name at the kiosk, face verified 1:1, liveness passed.
    case kioskVerified = "kiosk-verified"
    /// Identified 1:N among the course's students at the kiosk, liveness passed.
    case kioskIdentified = "kiosk-identified"
    /// Checked in from their own phone with the room's code, face and liveness.
    case ownDevice = "own-device"
    /// Not checked in when the lecture was confirmed.
    case notCheckedIn = "not-checked-in"
    /// Changed by the professor afterwards (face-confirmed).
    case professorEdit = "professor-edit"
}

/// A verified student waiting for the professor's confirmation.
public struct PendingCheckIn: Codable, Sendable, Equatable {
    public var studentID: String
    public var displayName: String
    public var at: Int64
    public var method: DecisionMethod
    public var distance: Double
    public var liveness: String
}

/// A saved attendance record.
public struct AttendanceRecord: Codable, Sendable, Equatable {
    public var lectureID: String
    public var studentID: String
    public var displayName: String
    public var status: AttendanceStatus
    public var method: DecisionMethod
    public var decidedAt: Int64
    public var decidedBy: String?
    /// The professor's note ("doctor's note"), set with the status in a face-confirmed edit.
    public var remark: String?
}

/// What an open lecture looks like to its professor: who checked in, who is missing.
public struct LectureRoll: Codable, Sendable, Equatable {
    public var lecture: Lecture
    public var course: Course
    public var checkedIn: [PendingCheckIn]
    /// Enrolled students not checked in (yet), by name.
    public var missing: [Person]
    /// Saved records (a confirmed lecture).
    public var records: [AttendanceRecord]
}

/// What confirming a lecture did, with the headcount comparison.
public struct Confirmation: Codable, Sendable, Equatable {
    public var lecture: Lecture
    public var present: Int
    public var late: Int
    public var absent: Int
    /// The professor's headcount minus the verified count (nil without a headcount): positive
    /// when people are in the room who did not check in.
    public var headcountDifference: Int?
}

/// A student's attendance in one course, with its share.
public struct CourseAttendance: Codable, Sendable, Equatable {
    public var course: Course
    public var lectures: [StudentLecture]
    /// Confirmed lectures counted.
    public var confirmed: Int
    /// Present or late, of the confirmed lectures, in percent (nil before any is confirmed).
    public var percent: Double?
    /// The student's own refused check-ins at this course's lectures, newest first.
    public var refused: [RefusedAttempt] = []

    public struct StudentLecture: Codable, Sendable, Equatable {
        public var lecture: Lecture
        /// Nil while the lecture is not confirmed.
        public var status: AttendanceStatus?
        /// The professor's remark on the student's record, if any.
        public var remark: String?
    }
}

/// One audit row.
public struct AuditEntry: Codable, Sendable, Equatable {
    public var id: String
    public var at: Int64
    public var lectureID: String?
    public var actor: String?
    public var subject: String?
    public var action: String
    public var outcome: String
    public var frameHash: String?
    public var distance: Double?
    public var liveness: String?
    public var confirmedBy: String?
    public var detail: String?

    public init(id: String = "", at: Int64 = 0, lectureID: String? = nil, actor: String? = nil, subject: String? = nil, action: String,
                outcome: String, frameHash: String? = nil, distance: Double? = nil, liveness: String? = nil, confirmedBy: String? = nil,
                detail: String? = nil) {
        self.id = id
        self.at = at
        self.lectureID = lectureID
        self.actor = actor
        self.subject = subject
        self.action = action
        self.outcome = outcome
        self.frameHash = frameHash
        self.distance = distance
        self.liveness = liveness
        self.confirmedBy = confirmedBy
        self.detail = detail
    }
}
