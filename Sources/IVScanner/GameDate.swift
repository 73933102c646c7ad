/// A calendar day, as the game's rule changes and a screenshot's date are given: the base
/// stats and level rules in force on it. Ordered by day; written and parsed as YYYY-MM-DD.
public struct GameDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    /// 1–12.
    public let month: Int
    /// 1 to the month's last day.
    public let day: Int

    /// The day `year`-`month`-`day` (years 1–9999); an error for a day the calendar lacks
    /// (2021-02-29).
    public init(year: Int, month: Int, day: Int) throws {
        guard (1 ... 9999).contains(year), (1 ... 12).contains(month),
              (1 ... GameDate.days(inMonth: month, of: year)).contains(day) else {
            throw IVError.invalidDate("\(year)-\(month)-\(day)")
        }
        self.year = year; self.month = month; self.day = day
    }

    /// Parses YYYY-MM-DD (four, two and two digits): an error naming the text for anything
    /// else, or for a day the calendar lacks.
    public init(_ text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              let date = try? GameDate(year: y, month: m, day: d) else { throw IVError.invalidDate(text) }
        self = date
    }

    /// The game's first day (2016-07-06): the earliest a screenshot can be from.
    public static let launch = GameDate(known: 2016, 7, 6)

    /// A day known to exist (the rule changes this module names).
    init(known year: Int, _ month: Int, _ day: Int) {
        self.year = year; self.month = month; self.day = day
    }

    public static func < (a: GameDate, b: GameDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// YYYY-MM-DD.
    public var description: String {
        func padded(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
