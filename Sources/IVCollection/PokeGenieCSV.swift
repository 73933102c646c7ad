import Foundation
import IVScanner
import SentioStore

/// Poke Genie's CSV export: its column set and value formats, which several public tools read
/// (docs/iv-app.md lists each column, what Sentio writes in it and what it reads back).
///
/// The formats were read off a real export (2023): IV Avg and levels with one decimal; the IVs
/// empty unless known exactly; Scan Date quoted as "YYYY-MM-DD HH:MM"; Lucky, Favorite 0/1;
/// Shadow/Purified 0 (neither), 1 (shadow) or 2 (purified); per league (G: Great 1500, U: Ultra
/// 2500, L: Little 500) the rank as a percentage "61.61%" = (4096 − rank) / 4095, the rank, the
/// stat product as a percentage of the best "96.29%", the stardust and candy to reach the best
/// level (evolving included), and the species that rank is for.
public enum PokeGenieCSV {
    /// Today's header (Poke Genie renamed "Pokemon" to "Pokemon Number" and "Stat Product" to
    /// "Stat Prod", and added "Original Scan Date", since the 2023 export); import reads both.
    public static let columns = [
        "Index", "Name", "Form", "Pokemon Number", "Gender", "CP", "HP", "Atk IV", "Def IV", "Sta IV", "IV Avg",
        "Level Min", "Level Max", "Quick Move", "Charge Move", "Charge Move 2", "Scan Date", "Original Scan Date",
        "Catch Date", "Weight", "Height", "Lucky", "Shadow/Purified", "Favorite", "Dust",
    ] + ["G", "U", "L"].flatMap { l in
        ["Rank % (\(l))", "Rank # (\(l))", "Stat Prod (\(l))", "Dust Cost (\(l))", "Candy Cost (\(l))", "Name (\(l))", "Form (\(l))", "Sha/Pur (\(l))"]
    } + ["Marked for PvP use"]

    /// The older names of renamed columns, accepted on import.
    static let aliases = ["Pokemon": "Pokemon Number", "Stat Product (G)": "Stat Prod (G)", "Stat Product (U)": "Stat Prod (U)",
                          "Stat Product (L)": "Stat Prod (L)"]

    /// Poke Genie's three leagues, in its column order.
    static let leagues: [(suffix: String, league: League)] = [("G", .great), ("U", .ultra), ("L", .little)]

    // MARK: Export

    /// The collection as Poke Genie's CSV (RFC 4180, "\n" line ends, UTF-8, header first).
    public static func export(_ pokemon: [(pokemon: CollectedPokemon, firstScannedAt: Int64)], data: GameData, calculator: IVCalculator) -> String {
        var lines = [columns.joined(separator: ",")]
        for (index, item) in pokemon.enumerated() {
            let p = item.pokemon
            var row = [String: String]()
            row["Index"] = String(index + 1)
            row["Name"] = p.species
            row["Form"] = p.form == "Normal" ? "" : p.form
            let species = try? data.species(p.species, form: p.form)
            row["Pokemon Number"] = species.map { String($0.dex) } ?? ""
            row["CP"] = p.cp.map(String.init) ?? ""
            row["HP"] = String(p.hp)
            let triples = Set(p.ivs.map { [$0.attack, $0.defense, $0.stamina] })
            if triples.count == 1, let only = triples.first {
                row["Atk IV"] = String(only[0]); row["Def IV"] = String(only[1]); row["Sta IV"] = String(only[2])
            }
            if let summary = summary(p.ivs) {
                row["IV Avg"] = summary.average
                row["Level Min"] = summary.levels[0]
                row["Level Max"] = summary.levels[1]
            }
            row["Scan Date"] = scanDate(p.updatedAt)
            row["Original Scan Date"] = scanDate(item.firstScannedAt)
            row["Lucky"] = p.lucky ? "1" : "0"
            row["Shadow/Purified"] = p.shadow ? "1" : p.purified ? "2" : "0"
            row["Favorite"] = "0"
            let levels = Set(p.ivs.map(\.level))
            // The power-up cost shown, when every level left costs the same (as when the levels
            // came from the stardust read).
            let dusts = Set(data.levels.filter { levels.contains($0.level) }.map {
                calculator.stardust(from: $0, lucky: p.lucky, shadow: p.shadow, purified: p.purified)
            })
            if dusts.count == 1, let dust = dusts.first { row["Dust"] = String(dust) }
            if let species, triples.count == 1, let only = triples.first, levels.count == 1, let level = levels.first {
                for (suffix, league) in leagues {
                    guard let pick = bestForLeague(species, ivs: only, level: level, league: league, pokemon: p, calculator: calculator) else { continue }
                    row["Rank % (\(suffix))"] = percent2((4096 - Double(pick.rank.rank)) / 4095 * 100)
                    row["Rank # (\(suffix))"] = String(pick.rank.rank)
                    row["Stat Prod (\(suffix))"] = percent2(pick.rank.percentOfBest)
                    row["Dust Cost (\(suffix))"] = String(pick.dust)
                    row["Candy Cost (\(suffix))"] = String(pick.candy)
                    row["Name (\(suffix))"] = pick.species.name
                    row["Form (\(suffix))"] = pick.species.form == "Normal" ? "" : pick.species.form
                    row["Sha/Pur (\(suffix))"] = row["Shadow/Purified"]
                }
            }
            row["Marked for PvP use"] = "0"
            lines.append(columns.map { quoted(row[$0] ?? "", always: $0 == "Scan Date" || $0 == "Original Scan Date") }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The member of the evolution line Poke Genie would rank in `league`: among the Pokémon
    /// and its evolutions whose CP now (at `level`) is within the cap and that can reach the cap
    /// (15/15/15 at the level cap is above it), the best-ranked; nil when none qualifies. With
    /// the stardust and candy (evolution candy included; XL candy not) from `level` to its
    /// best level.
    static func bestForLeague(_ s: Species, ivs: [Int], level: Double, league: League, pokemon p: CollectedPokemon,
                              calculator: IVCalculator) -> (species: Species, rank: LeagueRank, dust: Int, candy: Int)? {
        guard let cap = league.cap, let cpm = calculator.data.cpMultiplier(level: level),
              let top = calculator.data.cpMultiplier(level: 50) else { return nil }
        var best: (species: Species, rank: LeagueRank, dust: Int, candy: Int)?
        // The candy to evolve into each member, along its own path from `s` (a branched line,
        // Wurmple's, has two paths): its parent's, plus what the parent's Evolve button costs.
        let line = calculator.data.evolutionLine(of: s)
        var candyTo: [Int] = []
        for member in line {
            candyTo.append(member.parent.map { candyTo[$0] + line[$0].species.evolveCandy } ?? 0)
        }
        for (member, evolveCandy) in zip(line.map(\.species), candyTo) {
            guard Stats.cp(member, attack: ivs[0], defense: ivs[1], stamina: ivs[2], cpm: cpm) <= cap,
                  Stats.cp(member, attack: 15, defense: 15, stamina: 15, cpm: top) > cap,
                  let rank = try? calculator.rank(member, attack: ivs[0], defense: ivs[1], stamina: ivs[2], league: league),
                  let plan = try? calculator.plan(member, attack: ivs[0], defense: ivs[1], stamina: ivs[2], from: level,
                                                  to: max(level, rank.level), lucky: p.lucky, shadow: p.shadow, purified: p.purified),
                  let last = plan.last else { continue }
            if best == nil || rank.rank < best!.rank.rank {
                best = (member, rank, last.stardust, last.candy + evolveCandy)
            }
        }
        return best
    }

    static func decimal1(_ x: Double) -> String { String(format: "%.1f", x) }

    /// The IV Avg and Level Min/Max an export writes for these combinations.
    static func summary(_ ivs: [ScanReport.IV]) -> (average: String, levels: [String])? {
        guard !ivs.isEmpty else { return nil }
        let average = ivs.map { Double($0.attack + $0.defense + $0.stamina) / 45 * 100 }.reduce(0, +) / Double(ivs.count)
        return (decimal1(average), [decimal1(ivs.map(\.level).min()!), decimal1(ivs.map(\.level).max()!)])
    }

    /// "61.61%", and "100%" for exactly 100 as Poke Genie writes it.
    static func percent2(_ x: Double) -> String {
        let text = String(format: "%.2f", x)
        return text == "100.00" ? "100%" : text + "%"
    }

    /// "YYYY-MM-DD HH:MM" in UTC (Poke Genie writes the phone's local time; a server has none
    /// of the player's, so Sentio writes UTC and reads the time back as UTC).
    static func scanDate(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static func parseScanDate(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces)).map { Clock.milliseconds($0) }
    }

    static func quoted(_ field: String, always: Bool = false) -> String {
        guard always || field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Import

    /// One row of an export, as an entry to save (the IVs, when the row has them, pinned by
    /// the appraisal's bars) with its scan dates.
    public struct Row: Sendable, Equatable {
        public var line: Int
        public var entry: IVEntry
        public var scannedAt: Int64?
        public var firstScannedAt: Int64?
        /// The row's IV Avg and Level Min/Max as written: they tell which base stats the row was
        /// computed with (an old screenshot's), which the CSV does not say otherwise.
        public var ivAverage: String = ""
        public var levelRange: [String] = []
    }

    /// The rows of a Poke Genie CSV (today's columns or the 2023 ones), or the first problem:
    /// a missing column, a line that does not parse, a value out of range. Rows whose Name is
    /// not a species the game data knows are errors too, so nothing is imported half.
    public static func parse(_ text: String, maxRows: Int = 10_000) throws(CollectionError) -> [Row] {
        let records = try records(text)
        guard let header = records.first else { throw .badCSV(line: 1, problem: "the file is empty") }
        let names = header.map { aliases[$0] ?? $0 }
        var at: [String: Int] = [:]
        for (i, name) in names.enumerated() where at[name] == nil { at[name] = i }
        for required in ["Name", "CP", "HP"] where at[required] == nil {
            throw .badCSV(line: 1, problem: "no '\(required)' column: not a Poke Genie export")
        }
        guard records.count - 1 <= maxRows else { throw .badCSV(line: maxRows + 2, problem: "more than \(maxRows) rows") }
        var rows: [Row] = []
        for (offset, record) in records.dropFirst().enumerated() {
            let line = offset + 2
            if record.allSatisfy({ $0.isEmpty }) { continue }
            func field(_ name: String) -> String { at[name].flatMap { $0 < record.count ? record[$0].trimmingCharacters(in: .whitespaces) : nil } ?? "" }
            func int(_ name: String, _ range: ClosedRange<Int>) throws(CollectionError) -> Int? {
                let text = field(name)
                if text.isEmpty { return nil }
                guard let value = Int(text), range.contains(value) else { throw .badCSV(line: line, problem: "\(name) '\(text)' is not a whole number \(range.lowerBound)–\(range.upperBound)") }
                return value
            }
            let name = field("Name")
            guard !name.isEmpty else { throw .badCSV(line: line, problem: "Name is empty") }
            guard let hp = try int("HP", 10 ... 10_000) else { throw .badCSV(line: line, problem: "HP is empty") }
            var entry = IVEntry(species: name, form: field("Form").isEmpty ? nil : field("Form"), cp: try int("CP", 10 ... 100_000), hp: hp)
            let ivs = [try int("Atk IV", 0 ... 15), try int("Def IV", 0 ... 15), try int("Sta IV", 0 ... 15)]
            if ivs.allSatisfy({ $0 != nil }) {
                let (a, d, s) = (ivs[0]!, ivs[1]!, ivs[2]!)
                entry.appraisal = AppraisalInput(kind: .stars, stars: Appraisal.stars(total: a + d + s), bars: [a, d, s])
            }
            let minLevel = Double(field("Level Min")), maxLevel = Double(field("Level Max"))
            if let minLevel, minLevel == maxLevel {
                guard (1 ... 55).contains(minLevel), (minLevel * 2).rounded() == minLevel * 2 else {
                    throw .badCSV(line: line, problem: "Level Min '\(field("Level Min"))' is not a whole or half level 1–55")
                }
                entry.level = minLevel
            } else if let dust = try int("Dust", 0 ... 100_000), dust > 0 {
                entry.stardust = dust
            }
            entry.lucky = field("Lucky") == "1"
            switch field("Shadow/Purified") {
            case "1": entry.shadow = true
            case "2": entry.purified = true; entry.obtained = .purified
            default: break
            }
            if entry.lucky { entry.obtained = .luckyTrade }
            rows.append(Row(line: line, entry: entry, scannedAt: parseScanDate(field("Scan Date")),
                            firstScannedAt: parseScanDate(field("Original Scan Date")), ivAverage: field("IV Avg"),
                            levelRange: [field("Level Min"), field("Level Max")]))
        }
        return rows
    }

    /// RFC 4180 records: fields separated by commas, quoted with doubled quotes inside, lines
    /// ended by LF or CRLF; a byte-order mark at the start is skipped.
    static func records(_ text: String) throws(CollectionError) -> [[String]] {
        var records: [[String]] = [], record: [String] = [], field = "", quoted = false, line = 1, quoteLine = 1
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" { field.unicodeScalars.append("\""); i += 1 } else { quoted = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
            } else {
                switch c {
                case "\"":
                    guard field.isEmpty else { throw .badCSV(line: line, problem: "a quote inside an unquoted field") }
                    quoted = true
                    quoteLine = line
                case ",": record.append(field); field = ""
                case "\r": break
                case "\n": record.append(field); records.append(record); record = []; field = ""; line += 1
                default: field.unicodeScalars.append(c)
                }
            }
            i += 1
        }
        if quoted { throw .badCSV(line: quoteLine, problem: "a quoted field is not closed") }
        if !field.isEmpty || !record.isEmpty { record.append(field); records.append(record) }
        return records
    }
}
