import Foundation
import SentioStore
import SQLKit

/// Timetables in the store: a course's weekly slots, their exception dates, and the lectures
/// made from them. Who may do this (the course's professors, the administrator) is the caller's
/// rule, as for every register act.
extension AttendanceRegister {
    /// Adds a weekly slot to a course (no lectures yet: ``generateLectures(course:actor:)``
    /// makes them). `defaultZone` serves when the draft names none.
    public func defineSlot(course: String, _ draft: TimetableSlot.Draft, actor: String, defaultZone: TimeZone = .current) async throws -> TimetableSlot {
        let checked = try Timetable.check(draft, defaultZone: defaultZone)
        let id = RandomID.make()
        try await store.transaction { db in
            guard try await db.select().column("id").from("att_courses").where("id", .equal, SQLBind(course)).first() != nil else {
                throw AttendanceError.notFound("course \(course)")
            }
            try await db.insert(into: "att_slots")
                .columns("id", "course_id", "weekday", "start_minute", "duration_minutes", "title", "room", "first_date", "last_date", "time_zone", "created_at")
                .values(SQLBind(id), SQLBind(course), SQLBind(checked.weekday), SQLBind(checked.startMinute), SQLBind(checked.durationMinutes),
                        SQLBind(checked.title), SQLBind(checked.room), SQLBind(checked.firstDate), SQLBind(checked.lastDate), SQLBind(checked.timeZone),
                        SQLBind(Clock.milliseconds())).run()
            try await Self.audit(db, AuditEntry(actor: actor, subject: course, action: "timetable.slot", outcome: "ok",
                                                detail: "\(checked.title): weekday \(checked.weekday) \(Timetable.clock(checked.startMinute)) \(checked.timeZone), \(checked.firstDate) to \(checked.lastDate)"))
        }
        return Self.slot(id: id, course: course, checked, exceptions: [])
    }

    /// A course's slots, by weekday and time, each with its exceptions.
    public func slots(course: String) async throws -> [TimetableSlot] {
        try await store.read { db in try await Self.slots(db, course: course) }
    }

    /// One slot, or nil.
    public func slot(_ id: String) async throws -> TimetableSlot? {
        try await store.read { db in
            guard let row = try await db.select().columns("*").from("att_slots").where("id", .equal, SQLBind(id)).first() else { return nil }
            return try await Self.slot(db, row)
        }
    }

    /// Deletes a slot with its lectures that were never opened; opened and confirmed ones stay
    /// as single lectures (their records are history). Returns how many lectures went.
    @discardableResult
    public func deleteSlot(_ id: String, actor: String) async throws -> Int {
        try await store.transaction { db in
            guard let row = try await db.select().columns("course_id").from("att_slots").where("id", .equal, SQLBind(id)).first() else {
                throw AttendanceError.notFound("timetable slot \(id)")
            }
            let gone = try await db.raw("""
                DELETE FROM att_lectures WHERE slot_id = \(bind: id) AND state = \(bind: LectureState.scheduled.rawValue) RETURNING id
                """).all().count
            // The rest lose their slot by the foreign key (SET NULL) — said here too, for a
            // database whose foreign keys are off.
            try await db.update("att_lectures").set("slot_id", to: SQLLiteral.null).where("slot_id", .equal, SQLBind(id)).run()
            try await db.delete(from: "att_slots").where("id", .equal, SQLBind(id)).run()
            try await Self.audit(db, AuditEntry(actor: actor, subject: try row.decode(column: "course_id", as: String.self), action: "timetable.delete",
                                                outcome: "ok", detail: "slot \(id), \(gone) scheduled lectures removed"))
            return gone
        }
    }

    /// Marks a date when the slot does not take place. The lecture of that date, if made and
    /// never opened, goes; an opened or confirmed one is refused (409): it happened, or is
    /// happening. A date off the slot's weekday or outside its dates is 422.
    public func addException(slot id: String, date: String, actor: String) async throws -> TimetableSlot {
        try await store.transaction { db in
            let slot = try await Self.lockedSlot(db, id)
            try Self.checkDate(date, of: slot)
            if let row = try await db.select().columns("state").from("att_lectures").where("slot_id", .equal, SQLBind(id))
                .where("slot_date", .equal, SQLBind(date)).first(),
               try row.decode(column: "state", as: String.self) != LectureState.scheduled.rawValue {
                throw AttendanceError.conflict("the lecture of \(date) was already opened; it stays")
            }
            try await db.delete(from: "att_lectures").where("slot_id", .equal, SQLBind(id)).where("slot_date", .equal, SQLBind(date))
                .where("state", .equal, SQLBind(LectureState.scheduled.rawValue)).run()
            try await db.raw("INSERT INTO att_slot_exceptions (slot_id, date) VALUES (\(bind: id), \(bind: date)) ON CONFLICT (slot_id, date) DO NOTHING").run()
            try await Self.audit(db, AuditEntry(actor: actor, subject: slot.courseID, action: "timetable.exception", outcome: "ok", detail: "\(slot.title): no lecture on \(date)"))
            return try await Self.slot(db, id)
        }
    }

    /// Takes an exception back; the date's lecture comes with the next ``generateLectures(course:actor:)``.
    public func removeException(slot id: String, date: String, actor: String) async throws -> TimetableSlot {
        try await store.transaction { db in
            let slot = try await Self.lockedSlot(db, id)
            guard try await db.raw("DELETE FROM att_slot_exceptions WHERE slot_id = \(bind: id) AND date = \(bind: date) RETURNING date").first() != nil else {
                throw AttendanceError.notFound("exception \(date) of this slot")
            }
            try await Self.audit(db, AuditEntry(actor: actor, subject: slot.courseID, action: "timetable.exception", outcome: "ok", detail: "\(slot.title): lecture on \(date) again"))
            return try await Self.slot(db, id)
        }
    }

    /// Makes the `scheduled` lectures of every slot of the course, one per date, except the
    /// exceptions. Idempotent: a date that has its lecture (made before, and perhaps opened or
    /// confirmed since) gets no second one — the unique (slot, date) index decides, so two runs
    /// at once make each lecture once.
    public func generateLectures(course: String, actor: String) async throws -> TimetableRun {
        try await store.transaction { db in
            var run = TimetableRun(created: 0, existing: 0, skipped: 0)
            // In one order, so two runs at once lock the slots in turn rather than each other.
            for row in try await db.select().column("id").from("att_slots").where("course_id", .equal, SQLBind(course)).orderBy("id").all() {
                // Locked as an exception does, so a date made an exception meanwhile is not made.
                let slot = try await Self.lockedSlot(db, try row.decode(column: "id", as: String.self))
                guard let checked = Self.checked(slot) else { continue }
                let all = Timetable.occurrences(checked)
                let dates = Timetable.occurrences(checked, except: Set(slot.exceptions))
                run.skipped += all.count - dates.count
                let title = slot.room.isEmpty ? slot.title : "\(slot.title) · \(slot.room)"
                for date in dates {
                    let made = try await db.raw("""
                        INSERT INTO att_lectures (id, course_id, title, starts_at, ends_at, state, slot_id, slot_date)
                        VALUES (\(bind: RandomID.make()), \(bind: course), \(bind: title), \(bind: date.startsAt), \(bind: date.endsAt),
                                \(bind: LectureState.scheduled.rawValue), \(bind: slot.id), \(bind: date.date))
                        ON CONFLICT (slot_id, slot_date) DO NOTHING RETURNING id
                        """).first() != nil
                    if made { run.created += 1 } else { run.existing += 1 }
                }
            }
            try await Self.audit(db, AuditEntry(actor: actor, subject: course, action: "timetable.generate", outcome: "ok",
                                                detail: "created \(run.created), existing \(run.existing), exceptions \(run.skipped)"))
            return run
        }
    }

    // MARK: Rows

    static func lockedSlot(_ db: any SQLDatabase, _ id: String) async throws -> TimetableSlot {
        // A no-op UPDATE locks the slot's row (PostgreSQL) until the transaction ends.
        guard let row = try await db.raw("UPDATE att_slots SET id = id WHERE id = \(bind: id) RETURNING *").first() else {
            throw AttendanceError.notFound("timetable slot \(id)")
        }
        return try await slot(db, row)
    }

    static func slot(_ db: any SQLDatabase, _ id: String) async throws -> TimetableSlot {
        guard let row = try await db.select().columns("*").from("att_slots").where("id", .equal, SQLBind(id)).first() else {
            throw AttendanceError.notFound("timetable slot \(id)")
        }
        return try await slot(db, row)
    }

    static func slots(_ db: any SQLDatabase, course: String) async throws -> [TimetableSlot] {
        var slots: [TimetableSlot] = []
        for row in try await db.raw("SELECT * FROM att_slots WHERE course_id = \(bind: course) ORDER BY weekday, start_minute, created_at").all() {
            slots.append(try await slot(db, row))
        }
        return slots
    }

    static func slot(_ db: any SQLDatabase, _ row: any SQLRow) async throws -> TimetableSlot {
        let id = try row.decode(column: "id", as: String.self)
        let exceptions = try await db.raw("SELECT date FROM att_slot_exceptions WHERE slot_id = \(bind: id) ORDER BY date").all()
            .map { try $0.decode(column: "date", as: String.self) }
        let checked = Timetable.Checked(weekday: try row.decode(column: "weekday", as: Int.self), startMinute: try row.decode(column: "start_minute", as: Int.self),
                                        durationMinutes: try row.decode(column: "duration_minutes", as: Int.self),
                                        title: try row.decode(column: "title", as: String.self), room: try row.decode(column: "room", as: String.self),
                                        firstDate: try row.decode(column: "first_date", as: String.self),
                                        lastDate: try row.decode(column: "last_date", as: String.self), timeZone: try row.decode(column: "time_zone", as: String.self))
        return slot(id: id, course: try row.decode(column: "course_id", as: String.self), checked, exceptions: exceptions)
    }

    static func slot(id: String, course: String, _ c: Timetable.Checked, exceptions: [String]) -> TimetableSlot {
        TimetableSlot(id: id, courseID: course, weekday: c.weekday, startTime: Timetable.clock(c.startMinute), durationMinutes: c.durationMinutes,
                      title: c.title, room: c.room, firstDate: c.firstDate, lastDate: c.lastDate, timeZone: c.timeZone, exceptions: exceptions)
    }

    static func checked(_ slot: TimetableSlot) -> Timetable.Checked? {
        guard let minute = Timetable.minute(slot.startTime) else { return nil }
        return Timetable.Checked(weekday: slot.weekday, startMinute: minute, durationMinutes: slot.durationMinutes, title: slot.title, room: slot.room,
                                 firstDate: slot.firstDate, lastDate: slot.lastDate, timeZone: slot.timeZone)
    }

    /// An exception date must be one the slot would take place on.
    static func checkDate(_ date: String, of slot: TimetableSlot) throws {
        guard let day = Timetable.day(date) else { throw AttendanceError.invalid("date", "a date like 2027-04-05") }
        guard let first = Timetable.day(slot.firstDate), let last = Timetable.day(slot.lastDate), (first...last).contains(day) else {
            throw AttendanceError.invalid("date", "\(date) is outside the slot's dates (\(slot.firstDate) to \(slot.lastDate))")
        }
        guard Timetable.isoWeekday(day) == slot.weekday else {
            throw AttendanceError.invalid("date", "\(date) is not a \(Timetable.weekdayNames[slot.weekday - 1])")
        }
    }
}

extension Timetable {
    /// ISO weekday names, Monday first.
    public static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
}
