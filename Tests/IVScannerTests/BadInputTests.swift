import Foundation
import IVScanner
import SentioImage
import SentioTestSupport
import Testing

/// Bad input to the library is a typed error that says what and where, never a trap (a trap
/// would end this test process).
@Suite("IV scanner: bad input", .serialized)
struct BadInputTests {
    @Test("dates: YYYY-MM-DD of a real day, ordered by day; anything else an error naming the text")
    func dates() throws {
        let d = try GameDate("2018-06-01")
        #expect(d.year == 2018 && d.month == 6 && d.day == 1 && d.description == "2018-06-01")
        #expect(try GameDate("2016-02-29") == GameDate(year: 2016, month: 2, day: 29))
        #expect(try GameDate("2016-12-31") < GameDate("2017-01-01") && GameDate("2017-01-01") < GameDate("2017-01-02"))
        // Compared as days, not as text: "2020-9-1" would sort after "2020-12-01" as a string.
        #expect(try GameDate(year: 2020, month: 9, day: 1) < GameDate("2020-12-01"))
        for text in ["2018-13-01", "2021-02-29", "1900-02-29", "2018-04-31", "2018-00-10", "2018-6-1", "18-06-01", "2018/06/01",
                     "2018-06-01 ", "", "yesterday", "２０１８-０６-０１", "+018-06-01", "0000-01-01", "2018-06", "2018-06-01-02"] {
            #expect(throws: IVError.invalidDate(text), "'\(text)'") { try GameDate(text) }
        }
        #expect(throws: IVError.self) { try GameDate(year: 2018, month: 2, day: 30) }
        #expect(throws: IVError.self) { try GameDate(year: Int.max, month: Int.min, day: 1) }
    }

    @Test("the highest level for a trainer level and date: one rule, its bounds checked")
    func highestLevel() throws {
        let before = try GameDate("2020-11-30"), after = try GameDate("2020-12-01")
        #expect(try LevelRules.highestLevel(trainerLevel: 20, on: before) == 22)
        #expect(try LevelRules.highestLevel(trainerLevel: 39, on: before) == 40)
        #expect(try LevelRules.highestLevel(trainerLevel: 45, on: before) == 40)
        #expect(try LevelRules.highestLevel(trainerLevel: 20, on: after) == 30)
        #expect(try LevelRules.highestLevel(trainerLevel: 35, on: after) == 40)
        #expect(try LevelRules.highestLevel(trainerLevel: 40, on: nil) == 50)
        #expect(try LevelRules.highestLevel(trainerLevel: 80, on: nil) == 50)
        for level in [0, -3, 81, Int.max, Int.min] {
            #expect(throws: IVError.self, "trainer level \(level)") { try LevelRules.highestLevel(trainerLevel: level, on: nil) }
        }
    }

    /// A copy of the bundled tables (Sources/IVScanner/Data, what the bundle is built from) in
    /// a fresh folder, `change` applied to one file's lines.
    static func damaged(_ file: String, _ change: (inout [String]) -> Void) throws -> String {
        let source = try #require(Self.bundledDataFolder(), "Sources/IVScanner/Data")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-gamedata-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder + "/" + name)
        }
        let path = folder + "/" + file
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        change(&lines)
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return folder
    }

    /// Sources/IVScanner/Data beside this file's package (what the bundle is built from).
    static func bundledDataFolder() -> String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = root.appendingPathComponent("Sources/IVScanner/Data").path
        return FileManager.default.fileExists(atPath: data) ? data : nil
    }

    /// The copy of the tables itself loads: the damage is what the errors below are about.
    @Test("a copy of the bundled tables loads; the bundled data and digit templates load")
    func intact() throws {
        let folder = try Self.damaged("species.tsv") { _ in }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = try GameData(directory: folder)
        let shared = try GameData.shared
        #expect(copy.species.count == shared.species.count && copy.levels == shared.levels && copy.history.count == 4)
        #expect(try DigitTops.bundled().read([], among: ["1"]) == nil)
    }

    @Test("a malformed row is an error naming the file, line and column")
    func malformed() throws {
        // Each: the file, the damage, then the line and column the error must name.
        let cases: [(file: String, change: (inout [String]) -> Void, line: Int, column: Int, says: String)] = [
            ("species.tsv", { $0[4] = $0[4].replacingOccurrences(of: "\t198\t", with: "\tabc\t") }, 5, 4, "attack 'abc' is not a whole number"),
            ("species.tsv", { $0[2] = $0[2].components(separatedBy: "\t").prefix(5).joined(separator: "\t") }, 3, 6, "ends after 5 of 10 columns"),
            ("species.tsv", { $0[2] += "\textra" }, 3, 11, "has 11 columns"),
            ("species.tsv", { $0[1] = $0[1].replacingOccurrences(of: "\t0.7", with: "\tnan") }, 2, 9, "height 'nan' is not a number"),
            ("species.tsv", { $0[1] = $0[1].replacingOccurrences(of: "\t118\t", with: "\t-5\t") }, 2, 4, "outside 1–9999"),
            ("species.tsv", { $0[0] = $0[0].replacingOccurrences(of: "attack", with: "atk") }, 1, 4, "the header is"),
            ("species.tsv", { $0 = [$0[0]] }, 1, 1, "no rows"),
            ("levels.tsv", { $0[3] = $0[3].replacingOccurrences(of: "0.1663978700", with: "1e999") }, 4, 2, "cpm '1e999' is not a number"),
            ("levels.tsv", { $0.swapAt(2, 3) }, 4, 1, "levels rise"),
            ("levels.tsv", { $0[1] = $0[1].replacingOccurrences(of: "1.0\t", with: "1.2\t") }, 2, 1, "not a whole or half level"),
            ("names.tsv", { $0[1] = "1\tde" }, 2, 3, "ends after 2 of 3 columns"),
            ("names.tsv", { $0[1] = "x\tde\tBisasam" }, 2, 1, "dex 'x' is not a whole number"),
            ("stats-2016-11-20.tsv", { $0[3] = $0[3].replacingOccurrences(of: "198", with: "19 8") }, 4, 3, "attack '19 8' is not a whole number"),
        ]
        for c in cases {
            let folder = try Self.damaged(c.file, c.change)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let error = try #require(throws: IVError.self, "\(c.file): \(c.says)") { try GameData(directory: folder) }
            guard case let .malformedTable(file, line, column, problem) = error else {
                Issue.record("\(c.file): \(error), not a malformed table")
                continue
            }
            #expect(file == folder + "/" + c.file && line == c.line && column == c.column && problem.contains(c.says), "\(error)")
            #expect(error.description.contains("\(c.file) line \(c.line), column \(c.column)"), "\(error)")
        }
    }

    @Test("a missing, non-UTF-8 or unreadable table is an error naming the file")
    func missing() throws {
        let folder = try Self.damaged("levels.tsv") { _ in }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.removeItem(atPath: folder + "/levels.tsv")
        #expect(throws: IVError.unreadableTable(file: folder + "/levels.tsv", reason: "missing or unreadable")) { try GameData(directory: folder) }
        try Data([0x6C, 0x65, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: folder + "/levels.tsv"))
        #expect(throws: IVError.unreadableTable(file: folder + "/levels.tsv", reason: "not UTF-8 text")) { try GameData(directory: folder) }
        #expect(throws: IVError.self) { try GameData(directory: "/nonexistent/sentio") }
    }

    @Test("the digit templates: a damaged digits.tsv is an error naming line and column")
    func digitTemplates() throws {
        let source = try #require(Self.bundledDataFolder(), "Sources/IVScanner/Data")
        let lines = try String(contentsOfFile: source + "/digits.tsv", encoding: .utf8).components(separatedBy: "\n")
        #expect(try DigitTops(tsv: lines.joined(separator: "\n"), file: "digits.tsv").read([], among: []) == nil)
        var short = lines
        short[3] = short[3].replacingOccurrences(of: "\t43\t", with: "\t44\t")  // the width no longer fits the rows
        #expect(throws: IVError.malformedTable(file: "digits.tsv", line: 4, column: 4, problem: "not 64 rows of 44 '#' or '.' joined by '/'")) {
            try DigitTops(tsv: short.joined(separator: "\n"), file: "digits.tsv")
        }
        let nine = Array(lines.prefix(10))
        #expect(throws: IVError.self) { try DigitTops(tsv: nine.joined(separator: "\n"), file: "digits.tsv") }
        #expect(throws: IVError.self) { try DigitTops(tsv: "", file: "digits.tsv") }
    }

    @Test("the calculator: IVs outside 0–15 and base stats outside the game's range are errors; CP and HP never trap")
    func calculator() throws {
        let calculator = try IVCalculator()
        let pidgey = try calculator.data.species("Pidgey")
        #expect(throws: IVError.self) { try calculator.plan(pidgey, attack: 16, defense: 0, stamina: 0, from: 1) }
        #expect(throws: IVError.self) { try calculator.rank(pidgey, attack: -1, defense: 0, stamina: 0, league: .great) }
        var broken = pidgey
        broken.stamina = -1000
        #expect(throws: IVError.self) { try calculator.combinations(IVQuery(species: broken, cp: 100, hp: 40, stardust: 200)) }
        broken.attack = .max; broken.stamina = .max
        #expect(throws: IVError.self) { try calculator.rank(broken, attack: 0, defense: 0, stamina: 0, league: .master) }
        // The plain formulas are total: nonsense in, the floor or a saturated value out.
        #expect(Stats.cp(broken, attack: 15, defense: 15, stamina: 15, cpm: 0.8) > 10)
        #expect(Stats.cp(pidgey, attack: 0, defense: 0, stamina: 0, cpm: .nan) == 10)
        #expect(Stats.hp(broken, stamina: .max, cpm: .infinity) > 10)
        broken.defense = -500
        #expect(Stats.cp(broken, attack: 0, defense: 0, stamina: 0, cpm: 0.5) == 10)
    }

    @Test("the species' stats on a date: a typed date picks the table; none before the first")
    func statsOnADate() throws {
        let data = try GameData.shared
        let now = try data.species("Bulbasaur"), old = try data.species("Bulbasaur", asOf: GameDate("2016-11-30"))
        #expect(now.defense == 111 && old.defense == 126 && old.stamina == 90)
        #expect(try data.species("Bulbasaur", asOf: GameDate("2018-11-07")).stamina == 90)
        #expect(try data.species("Bulbasaur", asOf: GameDate("2018-11-08")).stamina == 128)
        #expect(try data.species("Bulbasaur", asOf: GameDate("2020-12-30")) == now)
        #expect(data.history.map(\.until.description) == ["2016-12-12", "2017-01-01", "2018-11-08", "2020-12-30"])
        // A species the old tables lack is an error, not a guess.
        #expect(throws: IVError.self) { try data.species("Meltan", asOf: GameDate("2017-06-01")) }
    }

    @Test("the scanner: a trainer level out of range is an error before anything is read")
    func scannerTrainerLevel() throws {
        let scanner = try ScreenScanner()
        let blank = try Image(width: 40, height: 80, format: .rgb8, fill: 255)
        #expect(throws: IVError.invalid("a trainer level is 1 to 80, not 0")) { try scanner.scan(blank, trainerLevel: 0) }
        #expect(throws: IVError.invalid("a trainer level is 1 to 80, not 81")) {
            try scanner.scan(blank, trainerLevel: 81, statsAsOf: GameDate("2018-01-01"))
        }
    }

    @Test("debug crops only through the option: SENTIO_DEBUG_SCAN is not read", .requires(fixture: ScreenTruth.manifest))
    func debugOutput() throws {
        let (fixtures, manifest) = try ScreenTruth.fixtureScreens()
        let file = try #require(manifest.first?["file"], "a screenshot in the manifest")
        let image = try ImageIO.read(fixtures + "/pogo/screens/" + file)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-debug-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The variable the library once read: set, it must change nothing.
        setenv("SENTIO_DEBUG_SCAN", folder, 1)
        defer { unsetenv("SENTIO_DEBUG_SCAN") }
        let plain = try ScreenReader().read(image)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "the reader wrote files without being asked")
        let debugging = try ScreenReader(options: .init(debugDirectory: folder)).read(image)
        #expect(debugging == plain)
        let written = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(written.contains { $0.hasPrefix("raw_") } && written.contains { $0.hasPrefix("field_") } && written.contains { $0.hasPrefix("glyphs_") },
                "\(written.sorted())")
    }
}
