import SentioStore

/// The attendance application's tables (people are the platform's `users`).
///
/// - `att_courses`, with their professors (`att_course_professors`) and enrolled students
///   (`att_enrolments`);
/// - `att_lectures`: a course's lecture at a date and time; `state` goes scheduled → open →
///   confirmed; `checkin_code` is the code shown in the room for students' own phones;
/// - `att_checkins`: a student verified during an open lecture, pending until the professor
///   confirms (kept in the store at once, so a restart loses no verified student);
/// - `att_records`: the saved attendance, one row per lecture and enrolled student, written
///   when the professor confirms and changed only by a face-confirmed edit;
/// - `att_faces`: a person's enrolment: one descriptor per accepted photo, the photo itself
///   only when the person agreed to keep it (`photo` NULL otherwise);
/// - `att_audit`: one row per decision: who, which lecture, the frame's SHA-256, the face
///   distance, the liveness result, who confirmed;
/// - `att_face_proofs`: a signed-in user's face checked against their own enrolment: it marks
///   the session face-verified (professors sign in with password and face) and, used once
///   within two minutes, authorises one act that needs the face (confirming a lecture, editing
///   a record, handing over the administrator role). Stored as the token's SHA-256;
/// - `att_kiosks` (version 2): browsers a professor turned into a lecture's kiosk. The device
///   holds a token (stored as its SHA-256) that does only that lecture's check-ins; it ends when
///   the professor leaves it (password and face), ends it from another device, or it expires;
/// - `att_faces.model` (version 3): the descriptor's model (`FaceModel`), so that one model's
///   enrolments are never compared with another's;
/// - `att_slots` and `att_slot_exceptions` (version 4): a course's weekly timetable, each slot a
///   weekday, a local wall time and an IANA time zone (a lecture at 10:15 stays at 10:15 across
///   summer time), with the dates it does not take place. Lectures made from a slot carry
///   `slot_id` and their local `slot_date`, unique together, so making them again adds none
///   twice; `att_records.remark` (version 4) is the professor's note on a record.
public enum AttendanceSchema {
    public static let schema = AppSchema(app: "attendance", migrations: [
        Migration(version: 1, name: "attendance") { kind in
            let blob = kind == .sqlite ? "BLOB" : "BYTEA"
            let real = kind == .sqlite ? "REAL" : "DOUBLE PRECISION"
            return [
                """
                CREATE TABLE att_courses (
                    id TEXT PRIMARY KEY,
                    code TEXT NOT NULL,
                    title TEXT NOT NULL,
                    academic_year TEXT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
                "CREATE UNIQUE INDEX att_courses_by_code ON att_courses(code, academic_year)",
                """
                CREATE TABLE att_course_professors (
                    course_id TEXT NOT NULL REFERENCES att_courses(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    PRIMARY KEY (course_id, user_id))
                """,
                """
                CREATE TABLE att_enrolments (
                    course_id TEXT NOT NULL REFERENCES att_courses(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    PRIMARY KEY (course_id, user_id))
                """,
                """
                CREATE TABLE att_lectures (
                    id TEXT PRIMARY KEY,
                    course_id TEXT NOT NULL REFERENCES att_courses(id) ON DELETE CASCADE,
                    title TEXT NOT NULL,
                    starts_at BIGINT NOT NULL,
                    ends_at BIGINT NOT NULL,
                    state TEXT NOT NULL,
                    checkin_code TEXT,
                    headcount INTEGER,
                    opened_at BIGINT,
                    confirmed_at BIGINT,
                    confirmed_by TEXT REFERENCES users(id) ON DELETE SET NULL)
                """,
                "CREATE INDEX att_lectures_by_course ON att_lectures(course_id, starts_at)",
                """
                CREATE TABLE att_checkins (
                    lecture_id TEXT NOT NULL REFERENCES att_lectures(id) ON DELETE CASCADE,
                    student_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    at BIGINT NOT NULL,
                    method TEXT NOT NULL,
                    distance \(real) NOT NULL,
                    liveness TEXT NOT NULL,
                    PRIMARY KEY (lecture_id, student_id))
                """,
                """
                CREATE TABLE att_records (
                    lecture_id TEXT NOT NULL REFERENCES att_lectures(id) ON DELETE CASCADE,
                    student_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    status TEXT NOT NULL,
                    method TEXT NOT NULL,
                    decided_at BIGINT NOT NULL,
                    decided_by TEXT,
                    PRIMARY KEY (lecture_id, student_id))
                """,
                "CREATE INDEX att_records_by_student ON att_records(student_id)",
                """
                CREATE TABLE att_faces (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    descriptor \(blob) NOT NULL,
                    yaw \(real) NOT NULL,
                    photo \(blob),
                    photo_type TEXT,
                    created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX att_faces_by_user ON att_faces(user_id)",
                """
                CREATE TABLE att_audit (
                    id TEXT PRIMARY KEY,
                    at BIGINT NOT NULL,
                    lecture_id TEXT,
                    actor TEXT,
                    subject TEXT,
                    action TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    frame_hash TEXT,
                    distance \(real),
                    liveness TEXT,
                    confirmed_by TEXT,
                    detail TEXT)
                """,
                "CREATE INDEX att_audit_by_lecture ON att_audit(lecture_id, at)",
                """
                CREATE TABLE att_face_proofs (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    session_hash TEXT NOT NULL,
                    distance \(real) NOT NULL,
                    created_at BIGINT NOT NULL,
                    used_at BIGINT)
                """,
                "CREATE INDEX att_face_proofs_by_session ON att_face_proofs(session_hash)",
            ]
        },
        Migration(version: 2, name: "kiosk devices") { _ in
            [
                """
                CREATE TABLE att_kiosks (
                    id TEXT PRIMARY KEY,
                    lecture_id TEXT NOT NULL REFERENCES att_lectures(id) ON DELETE CASCADE,
                    operator_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    ended_at BIGINT)
                """,
                "CREATE INDEX att_kiosks_by_lecture ON att_kiosks(lecture_id)",
            ]
        },
        Migration(version: 3, name: "face models") { _ in
            // Every descriptor so far is dlib's: the only model there was.
            ["ALTER TABLE att_faces ADD COLUMN model TEXT NOT NULL DEFAULT 'dlib'"]
        },
        Migration(version: 4, name: "timetables and remarks") { _ in
            [
                """
                CREATE TABLE att_slots (
                    id TEXT PRIMARY KEY,
                    course_id TEXT NOT NULL REFERENCES att_courses(id) ON DELETE CASCADE,
                    weekday INTEGER NOT NULL,
                    start_minute INTEGER NOT NULL,
                    duration_minutes INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    room TEXT NOT NULL,
                    first_date TEXT NOT NULL,
                    last_date TEXT NOT NULL,
                    time_zone TEXT NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
                "CREATE INDEX att_slots_by_course ON att_slots(course_id)",
                """
                CREATE TABLE att_slot_exceptions (
                    slot_id TEXT NOT NULL REFERENCES att_slots(id) ON DELETE CASCADE,
                    date TEXT NOT NULL,
                    PRIMARY KEY (slot_id, date))
                """,
                // Both databases add a nullable column with a reference in place. A deleted slot
                // leaves its lectures (they may hold records) as single lectures.
                "ALTER TABLE att_lectures ADD COLUMN slot_id TEXT REFERENCES att_slots(id) ON DELETE SET NULL",
                "ALTER TABLE att_lectures ADD COLUMN slot_date TEXT",
                // NULLs are distinct in a unique index on both: single lectures never collide.
                "CREATE UNIQUE INDEX att_lectures_by_slot ON att_lectures(slot_id, slot_date)",
                "ALTER TABLE att_records ADD COLUMN remark TEXT",
                // A student reads their own refused check-ins by subject.
                "CREATE INDEX att_audit_by_subject ON att_audit(subject, at)",
            ]
        },
    ])
}
