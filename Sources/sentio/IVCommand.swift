import ArgumentParser
import Foundation
import IVScanner
import SentioImage

struct IVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iv",
        abstract: "Pokémon GO individual values: calculator, power-up planner, league rank.",
        subcommands: [Scan.self, Calc.self, Plan.self, Rank.self])

    struct PokemonOptions: ParsableArguments {
        @Option(help: "Species name (any case).") var species: String
        @Option(help: "Form (default Normal).") var form: String?
        @Option(help: "Use the base stats in force on this date (YYYY-MM-DD), for old screenshots.") var statsAsOf: String?

        /// `--stats-as-of` as a date (an error naming the option and the text when it is none).
        func date() throws -> GameDate? { try IVCommand.date(statsAsOf) }

        func resolve() throws -> Species { try GameData.shared.species(species, form: form, asOf: try date()) }
    }

    /// `--stats-as-of`'s text as a date; the library's error, prefixed with the option.
    static func date(_ text: String?) throws -> GameDate? {
        do { return try text.map { try GameDate($0) } } catch { throw ValidationError("--stats-as-of: \(error)") }
    }

    /// The highest level `--trainer-level` allows on `date`: the library's rule (the scanner's
    /// arc end), its error prefixed with the option.
    static func highestLevel(trainerLevel: Int, on date: GameDate?) throws -> Double {
        do { return try LevelRules.highestLevel(trainerLevel: trainerLevel, on: date) } catch { throw ValidationError("--trainer-level: \(error)") }
    }

    static func ivs(_ text: String) throws -> (Int, Int, Int) {
        let parts = text.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 3, parts.allSatisfy({ (0 ... 15).contains($0) }) else {
            throw ValidationError("--ivs takes attack/defense/stamina, each 0–15, e.g. 15/14/13, not '\(text)'")
        }
        return (parts[0], parts[1], parts[2])
    }

    struct Calc: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every level and IV combination a detail screen allows.")
        @OptionGroup var pokemon: PokemonOptions
        @Option(help: "CP shown.") var cp: Int
        @Option(help: "Maximum HP shown.") var hp: Int
        @Option(help: "Power-up stardust shown.") var stardust: Int?
        @Option(help: "The level, when known.") var level: Double?
        @Flag(help: "Lucky (stardust halved).") var lucky = false
        @Flag(help: "Shadow (costs ×1.2).") var shadow = false
        @Flag(help: "Purified (costs ×0.9, IVs at least 2).") var purified = false
        @Option(help: "How it was obtained: wild, weather, hatched, raid, research, trade, lucky-trade, purified.") var obtained = "wild"
        @Option(help: "Appraisal: stars:N (0–4), stars:N:A/D/S with the bars, or leader:OVERALL:BEST[:attack,defense,stamina] (bands 1–4).")
        var appraisal: String?
        @Option(help: "Trainer level: no level above the highest it allows on the --stats-as-of date (the scanner's arc end).") var trainerLevel: Int?
        @Flag(help: "Print JSON: species, form, cp, hp, levels, ivs [{level, attack, defense, stamina, percent}], range.") var json = false

        struct Result: Encodable {
            let species: String, form: String, cp: Int, hp: Int, levels: [Double]
            let ivs: [IV]
            let percentRange: [Double]
            typealias IV = ScanReport.IV
        }

        func run() throws {
            guard stardust != nil || level != nil else { throw ValidationError("give --stardust or --level") }
            guard let how = Obtained(rawValue: obtained) else { throw ValidationError("--obtained: one of \(Obtained.allCases.map(\.rawValue).joined(separator: ", "))") }
            var q = IVQuery(species: try pokemon.resolve(), cp: cp, hp: hp, stardust: stardust, level: level)
            q.lucky = lucky; q.shadow = shadow; q.purified = purified; q.obtained = how
            // The scanner's rule, not a second copy of it.
            if let trainerLevel { q.maxLevel = try IVCommand.highestLevel(trainerLevel: trainerLevel, on: try pokemon.date()) }
            if let appraisal { q.appraisal = try Self.parse(appraisal) }
            let found = try IVCalculator().combinations(q)
            let percents = found.map(\.percent)
            let result = Result(species: q.species.name, form: q.species.form, cp: cp, hp: hp, levels: Set(found.map(\.level)).sorted(),
                                ivs: found.map(Calc.Result.IV.init),
                                percentRange: percents.isEmpty ? [] : [percents.min()!, percents.max()!].map { ($0 * 10).rounded() / 10 })
            if json { return try JSONOutput.print(result) }
            guard !found.isEmpty else {
                throw ValidationError("no level and IVs give CP \(cp) and HP \(hp) for \(q.species.name) (check the readings and the stats date)")
            }
            print("\(q.species.name) CP \(cp) HP \(hp): \(found.count) combination\(found.count == 1 ? "" : "s"), levels "
                + result.levels.map { String($0) }.joined(separator: ", ") + String(format: ", IV %.1f%%–%.1f%%", result.percentRange[0], result.percentRange[1]))
            for c in found.prefix(30) { print(String(format: "  level %4.1f  %2d/%2d/%2d  %5.1f%%", c.level, c.attack, c.defense, c.stamina, c.percent)) }
            if found.count > 30 { print("  … \(found.count - 30) more (--json lists all)") }
        }

        static func parse(_ text: String) throws -> Appraisal {
            let parts = text.split(separator: ":").map(String.init)
            if parts.first == "stars", parts.count >= 2, let n = Int(parts[1]), (0 ... 4).contains(n) {
                return .stars(n, bars: parts.count == 3 ? try IVCommand.ivs(parts[2]) : nil)
            }
            if parts.first == "leader", parts.count >= 3, let o = Int(parts[1]), let b = Int(parts[2]), (1 ... 4).contains(o), (1 ... 4).contains(b) {
                let stats = parts.count > 3 ? Set(parts[3].split(separator: ",").map(String.init)) : []
                guard stats.isSubset(of: ["attack", "defense", "stamina"]) else { throw ValidationError("best stats are attack, defense, stamina") }
                return .leader(overall: o, best: b, bestStats: stats)
            }
            throw ValidationError("--appraisal is stars:N[:A/D/S] or leader:OVERALL:BEST[:stats], not '\(text)'")
        }
    }

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Read a detail screenshot (work in progress: name, CP, HP, stardust, level arc) and compute the IVs.")
        @Argument(help: "A screenshot (PNG or JPEG).") var image: String
        @Option(help: "Trainer level: with the level arc it fixes the Pokémon's level.") var trainerLevel: Int?
        @Option(help: "Use the base stats (and level rules) in force on this date (YYYY-MM-DD).") var statsAsOf: String?
        @Flag(help: "Print JSON.") var json = false
        @Option(help: "Scan N times in one process and print median/min/max ms.") var bench: Int?
        @Option(help: "Write the screenshot with the fields' boxes, the arc and its dot drawn.") var annotate: String?
        @Option(help: "Write every field as cut, binarized and as the glyphs kept into this folder (created if needed), for tuning.") var debugDir: String?

        /// Each field's box (green when read into a value), the fitted arc and the dot.
        func draw(_ screen: Image, _ scan: ScreenScan, to path: String) throws {
            var canvas = screen.convertedForDrawing()
            let thickness = max(2, screen.width / 300)
            for (_, field) in scan.reading.fields { canvas.drawRectangle(field.box, color: .green, thickness: thickness) }
            if let arc = scan.reading.arc {
                let points = (0 ... 180).map { k in arc.point(at: Double(k) * .pi / 180) }
                canvas.drawPolyline(points, color: .cyan, thickness: Double(thickness))
                let dot = arc.point(at: arc.fraction * .pi)
                canvas.drawPoint(Point(dot.x, dot.y), radius: Double(4 * thickness), color: .red)
            }
            try ImageIO.write(canvas, to: path)
        }

        func run() throws {
            let date = try IVCommand.date(statsAsOf)
            // The library's rule checks the trainer level (before the screenshot is read).
            if let trainerLevel { _ = try IVCommand.highestLevel(trainerLevel: trainerLevel, on: date) }
            let screen = try ImageIO.read(image)
            if let debugDir {
                do { try FileManager.default.createDirectory(atPath: debugDir, withIntermediateDirectories: true) } catch {
                    throw ValidationError("--debug-dir: cannot create \(debugDir): \(error.localizedDescription)")
                }
            }
            let scanner = try ScreenScanner(options: .init(debugDirectory: debugDir))
            func scan() throws -> ScreenScan { try scanner.scan(screen, trainerLevel: trainerLevel, statsAsOf: date) }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                return try Bench.report(bench) { _ = try scan() }
            }
            let result = try scan(), found = result.combinations
            if let annotate { try draw(screen, result, to: annotate) }
            let out = ScanReport(result)
            if json { return try JSONOutput.print(out) }
            let levels = out.levels.map { String($0) }.joined(separator: ", ")
            print("\(out.species ?? "?") CP \(out.cp.map(String.init) ?? "?") HP \(out.hp.map(String.init) ?? "?")/\(out.hpMax.map(String.init) ?? "?") stardust \(out.stardustCost.map(String.init) ?? "?"): \(found.count) IV combinations" + (levels.isEmpty ? out.level.map { ", level \($0)" } ?? "" : ", level \(levels)"))
        }
    }

    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "CP, HP and cumulative costs at each level up to a target.")
        @OptionGroup var pokemon: PokemonOptions
        @Option(help: "Current level.") var level: Double
        @Option(help: "IVs as attack/defense/stamina.") var ivs: String
        @Option(help: "Target level.") var to: Double = 50
        @Flag(help: "Lucky.") var lucky = false
        @Flag(help: "Shadow.") var shadow = false
        @Flag(help: "Purified.") var purified = false
        @Flag(help: "Print JSON: [{level, cp, hp, stardust, candy, xlCandy}].") var json = false

        struct Step: Encodable { let level: Double, cp: Int, hp: Int, stardust: Int, candy: Int, xlCandy: Int }

        func run() throws {
            let (a, d, s) = try IVCommand.ivs(ivs)
            let steps = try IVCalculator().plan(try pokemon.resolve(), attack: a, defense: d, stamina: s, from: level, to: to,
                                                lucky: lucky, shadow: shadow, purified: purified)
            if json { return try JSONOutput.print(steps.map { Step(level: $0.level, cp: $0.cp, hp: $0.hp, stardust: $0.stardust, candy: $0.candy, xlCandy: $0.xlCandy) }) }
            for step in steps {
                print(String(format: "level %4.1f  CP %5d  HP %4d  stardust %7d  candy %4d  XL %4d", step.level, step.cp, step.hp, step.stardust, step.candy, step.xlCandy))
            }
        }
    }

    struct Rank: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "League rank by stat product among all 4,096 IV combinations.")
        @OptionGroup var pokemon: PokemonOptions
        @Option(help: "IVs as attack/defense/stamina.") var ivs: String
        @Option(help: "League: great, ultra or master (default: all three).") var league: String?
        @Option(help: "Highest level (50; 51 with best buddy).") var maxLevel: Double = 50
        @Flag(help: "Print JSON: [{league, rank, level, cp, statProduct, percentOfBest}].") var json = false

        struct Row: Encodable { let league: String, rank: Int, level: Double, cp: Int, statProduct: Double, percentOfBest: Double }

        func run() throws {
            let (a, d, s) = try IVCommand.ivs(ivs)
            let leagues = try league.map { name in
                guard let l = League(rawValue: name) else { throw ValidationError("--league is great, ultra, master or little") }
                return [l]
            } ?? [League.great, .ultra, .master]
            let species = try pokemon.resolve()
            let rows = try leagues.map { l in
                let r = try IVCalculator().rank(species, attack: a, defense: d, stamina: s, league: l, maxLevel: maxLevel)
                return Row(league: l.rawValue, rank: r.rank, level: r.level, cp: r.cp, statProduct: (r.statProduct * 10).rounded() / 10,
                           percentOfBest: (r.percentOfBest * 100).rounded() / 100)
            }
            if json { return try JSONOutput.print(rows) }
            for r in rows {
                print(String(format: "%@ league: rank %d of 4096, level %.1f, CP %d, %.2f%% of the best stat product", r.league as NSString, r.rank, r.level, r.cp, r.percentOfBest))
            }
        }
    }
}
