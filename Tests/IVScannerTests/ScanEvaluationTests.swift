import Foundation
import IVScanner
import SentioImage
import SentioTestSupport
import Testing

/// The whole scan on the 47 real screenshots, against their manifest: species (after matching
/// the name to what the numbers fit), the exact level where the trainer level is known, and
/// whether the true IV combination is among the results. The issue's bars are printed with the
/// figures; the expectations guard today's floors (the species bar is not reached yet).
@Suite("Scan evaluation", .serialized)
struct ScanEvaluationTests {
    /// The base-stat era the manifest gives each screenshot, as a date inside it (what a user
    /// knows: when the screenshot was taken).
    static let eraDates = ["S16": "2016-11-01", "S1612": "2016-12-20", "S18": "2018-06-01", "CUR": "2026-11-01"]

    @Test("species, exact level and IVs on the real screenshots")
    func screenshots() throws {
        guard let fixtures = Fixtures.directory(repository: Fixtures.repository(from: #filePath, levels: 3)),
              let table = try? String(contentsOfFile: fixtures + "/pogo/screens/manifest.tsv", encoding: .utf8) else { return print("skip: no fixtures") }
        let scanner = try ScreenScanner()
        var rows = table.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        func col(_ name: String) -> Int { header.firstIndex(of: name)! }
        var n = 0, species = 0, withTrainer = 0, exactLevel = 0, ivs = 0
        var times: [Double] = []
        let clock = ContinuousClock()
        for row in rows where row.count == header.count {
            n += 1
            let image = try ImageIO.read(fixtures + "/pogo/screens/" + row[0])
            let trainer = Int(row[col("trainer_level")])
            let start = clock.now
            let scan = try scanner.scan(image, trainerLevel: trainer, statsAsOf: Self.eraDates[row[col("stats_era_used")]])
            let elapsed = clock.now - start
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) * 1e-15)
            let r = scan.reading
            let speciesRight = scan.species?.name.lowercased() == row[col("species")].lowercased()
            if speciesRight { species += 1 }
            var levelRight = true
            if trainer != nil, let truth = Double(row[col("level_label")]) {
                withTrainer += 1
                levelRight = scan.level == truth
                if levelRight { exactLevel += 1 }
            }
            // The manifest's readings allow exactly its consistent levels, and every one of its
            // combinations; the true one is among them (and is the labelled one when given).
            let readRight = speciesRight && r.cp == Int(row[col("cp")]) && r.hpMax == Int(row[col("hp_max")]) && r.stardust == Int(row[col("stardust_cost")])
            var truthAmong = readRight && levelRight && !scan.combinations.isEmpty
            let label = row[col("ivs_label")].split(separator: "/").compactMap { Int($0) }
            if truthAmong, label.count == 3 {
                truthAmong = scan.combinations.contains { $0.attack == label[0] && $0.defense == label[1] && $0.stamina == label[2] }
            }
            if truthAmong { ivs += 1 } else { print("scan: \(row[0]): species \(scan.species?.name ?? "–") (read '\(r.name ?? "")'), level \(scan.level.map { String($0) } ?? "–"), \(scan.combinations.count) combinations") }
        }
        times.sort()
        let pct = { (k: Int) in String(format: "%.0f%%", 100 * Double(k) / Double(max(1, n))) }
        print("scan: \(n) screenshots; species \(species) (\(pct(species)), bar 95%); exact level \(exactLevel) of \(withTrainer) with a trainer level (bar 90%); "
            + "true IVs among the results \(ivs) (\(pct(ivs)), bar 95%); median \(String(format: "%.0f", times[times.count / 2])) ms, slowest \(String(format: "%.0f", times.last!)) ms")
        #expect(n == 47 && withTrainer == 12)
        #expect(exactLevel * 10 >= withTrainer * 9)
        #expect(species >= 45 && ivs >= 45)
    }
}
