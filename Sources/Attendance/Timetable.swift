import Foundation

/// A course's weekly lecture: a weekday and a local wall time in an IANA time zone, between a
/// first and a last date, with the dates it does not take place (holidays). Lectures are made
/// from it by ``AttendanceRegister/generateLectures(course:actor:)``; a one-off move is an
/// exception plus a single lecture (``AttendanceRegister/createLecture(course:title:startsAt:endsAt:actor:)``).
public struct TimetableSlot: Codable, Sendable, Equatable {
    public var id: String
    public var courseID: String
    /// ISO weekday: 1 Monday … 7 Sunday.
    public var weekday: Int
    /// Local wall time of the start, `HH:MM` (24-hour).
    public var startTime: String
    public var durationMinutes: Int
    public var title: String
    /// Where it takes place ("P1"); may be empty.
    public var room: String
    /// Local dates, `YYYY-MM-DD`, both included.
    public var firstDate: String
    public var lastDate: String
    /// IANA zone name ("Europe/Ljubljana"): the wall time is read in it, so summer time moves
    /// the UTC instant, not the lecture.
    public var timeZone: String
    /// Dates (`YYYY-MM-DD`) when the slot does not take place, ascending.
    public var exceptions: [String]

    /// A slot as a professor asks for it; ``Timetable/check(_:defaultZone:)`` validates it.
    public struct Draft: Codable, Sendable, Equatable {
        public var weekday: Int
        public var startTime: String
        public var durationMinutes: Int
        public var title: String
        public var room: String?
        public var firstDate: String
        public var lastDate: String
        /// Nil: the server's zone.
        public var timeZone: String?

        public init(weekday: Int, startTime: String, durationMinutes: Int, title: String, room: String? = nil, firstDate: String,
                    lastDate: String, timeZone: String? = nil) {
            self.weekday = weekday
            self.startTime = startTime
            self.durationMinutes = durationMinutes
            self.title = title
            self.room = room
            self.firstDate = firstDate
            self.lastDate = lastDate
            self.timeZone = timeZone
        }
    }
}

/// What making a timetable's lectures did.
public struct TimetableRun: Codable, Sendable, Equatable {
    /// Lectures made now.
    public var created: Int
    /// Dates that already had their lecture (made before, maybe opened or confirmed since).
    public var existing: Int
    /// Dates left out as exceptions.
    public var skipped: Int

    public init(created: Int, existing: Int, skipped: Int) {
        self.created = created
        self.existing = existing
        self.skipped = skipped
    }
}

/// The timetable's calendar arithmetic, pure: dates, weekdays, wall times to UTC instants.
public enum Timetable {
    /// One date a slot takes place, with its UTC instants (Unix milliseconds).
    public struct Occurrence: Sendable, Equatable {
        public var date: String
        public var startsAt: Int64
        public var endsAt: Int64
    }

    /// The longest span between a slot's first and last date: two semesters and the holidays
    /// between. It bounds what one request can make (at most 53 lectures per slot).
    public static let maximumDays = 370

    /// A checked slot: the draft's text trimmed, its time zone resolved.
    public struct Checked: Sendable, Equatable {
        public var weekday: Int
        public var startMinute: Int
        public var durationMinutes: Int
        public var title: String
        public var room: String
        public var firstDate: String
        public var lastDate: String
        public var timeZone: String
    }

    /// Validates a draft: each problem is an ``AttendanceError/invalid(_:_:)`` naming the field.
    public static func check(_ draft: TimetableSlot.Draft, defaultZone: TimeZone = .current) throws -> Checked {
        guard (1...7).contains(draft.weekday) else { throw AttendanceError.invalid("weekday", "1 (Monday) to 7 (Sunday)") }
        guard let startMinute = minute(draft.startTime) else { throw AttendanceError.invalid("startTime", "a time like 10:15 (00:00 to 23:59)") }
        guard (1...720).contains(draft.durationMinutes) else { throw AttendanceError.invalid("durationMinutes", "1 to 720 minutes") }
        let title = try AttendanceRegister.text(draft.title, "title", maximum: 80)
        var room = ""
        if let given = draft.room, !given.trimmingCharacters(in: .whitespaces).isEmpty {
            room = try AttendanceRegister.text(given, "room", maximum: 30)
        }
        guard let first = day(draft.firstDate) else { throw AttendanceError.invalid("firstDate", "a date like 2027-03-01") }
        guard let last = day(draft.lastDate) else { throw AttendanceError.invalid("lastDate", "a date like 2027-06-30") }
        guard last >= first, last - first <= maximumDays else {
            throw AttendanceError.invalid("lastDate", "on or after the first date, within \(maximumDays) days of it")
        }
        let zone: TimeZone
        if let name = draft.timeZone {
            // Only IANA names: an abbreviation ("CET") or an offset would not follow summer time.
            guard name.contains("/") || name == "UTC", let found = TimeZone(identifier: name) else {
                throw AttendanceError.invalid("timeZone", "an IANA time zone like Europe/Ljubljana")
            }
            zone = found
        } else {
            zone = defaultZone
        }
        return Checked(weekday: draft.weekday, startMinute: startMinute, durationMinutes: draft.durationMinutes, title: title, room: room,
                       firstDate: draft.firstDate, lastDate: draft.lastDate, timeZone: zone.identifier)
    }

    /// The dates of `slot` from its first to its last date on its weekday, except `exceptions`,
    /// each with the UTC instants of its local start and end. A start that falls in the hour a
    /// spring change skips (02:30 in Europe) is moved forward by it, as Foundation's calendar does.
    public static func occurrences(_ slot: Checked, except exceptions: Set<String> = []) -> [Occurrence] {
        guard let zone = TimeZone(identifier: slot.timeZone), let first = day(slot.firstDate), let last = day(slot.lastDate) else { return [] }
        var local = Calendar(identifier: .gregorian)
        local.timeZone = zone
        var result: [Occurrence] = []
        for n in first...last where isoWeekday(n) == slot.weekday {
            let (y, m, d) = civil(n)
            let date = String(format: "%04d-%02d-%02d", y, m, d)
            guard !exceptions.contains(date) else { continue }
            let parts = DateComponents(year: y, month: m, day: d, hour: slot.startMinute / 60, minute: slot.startMinute % 60)
            guard let start = local.date(from: parts) else { continue }
            let startsAt = Int64((start.timeIntervalSince1970 * 1000).rounded())
            // The duration is elapsed time: a lecture over the night of a change lasts as long.
            result.append(Occurrence(date: date, startsAt: startsAt, endsAt: startsAt + Int64(slot.durationMinutes) * 60_000))
        }
        return result
    }

    /// `HH:MM` as minutes after midnight.
    public static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60 else { return nil }
        return h * 60 + m
    }

    /// `HH:MM` of minutes after midnight.
    public static func clock(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }

    /// A strict `YYYY-MM-DD` (a real date: no 2027-02-30) as days since 1970-01-01.
    public static func day(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1970...9998).contains(y), (1...12).contains(m), d >= 1 else { return nil }
        let n = days(y, m, d)
        guard civil(n) == (y, m, d) else { return nil }
        return n
    }

    /// ISO weekday (1 Monday … 7 Sunday) of a day number; 1970-01-01 was a Thursday.
    static func isoWeekday(_ day: Int) -> Int { (day + 3) % 7 + 1 }

    // Howard Hinnant's days-from-civil and back: plain integer arithmetic, no time zone, so a
    // date is the same date wherever the server runs.
    static func days(_ y: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y - 1 : y
        let era = y / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month and day of a day number (days since 1970-01-01).
    public static func civil(_ n: Int) -> (Int, Int, Int) {
        let z = n + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
