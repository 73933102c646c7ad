import Foundation
import IVScanner
import SentioImage
import SentioTestSupport
import Testing

/// A screenshot as players have it rather than as the phone saved it (issue 38): sent through
/// a messenger, taken on another phone, cropped. Each variant is made from a real screenshot
/// here, in memory, by the same steps a messenger or a phone takes: scaled with area averaging
/// (down) or bilinear (up), and re-encoded by libjpeg-turbo at the stated quality.
enum ScreenVariant: String, CaseIterable, CustomStringConvertible {
    /// The phone's own screenshot, unchanged (the baseline).
    case native
    /// Long side 1280 px, JPEG quality 75: what WhatsApp and Telegram send by default.
    case messenger
    /// Long side 1024 px, JPEG quality 60: the smallest and roughest the issue names.
    case small
    /// 1.5 times larger (a denser screen), kept as PNG.
    case dense
    /// Long side 3200 px, JPEG quality 85 (a tablet's or a new phone's large screenshot).
    case large
    /// The status bar cut off (the top 4 %), then as a messenger sends it.
    case cropped
    /// Black bands above and below to 19.5:9 (a notch's and a gesture bar's), long side 1600,
    /// JPEG quality 80.
    case notch

    var description: String { rawValue }

    func apply(_ image: Image) throws -> Image {
        switch self {
        case .native: image
        case .messenger: try Self.jpeg(Self.longSide(image, 1280), quality: 75)
        case .small: try Self.jpeg(Self.longSide(image, 1024), quality: 60)
        case .dense: try image.resized(to: Size(width: image.width * 3 / 2, height: image.height * 3 / 2), method: .bilinear)
        case .large: try Self.jpeg(Self.longSide(image, 3200), quality: 85)
        case .cropped:
            try Self.jpeg(Self.longSide(image.cropped(to: PixelRect(x: 0, y: image.height / 25, width: image.width, height: image.height - image.height / 25)), 1280), quality: 75)
        case .notch: try Self.jpeg(Self.longSide(Self.padded(image, aspect: 19.5 / 9), 1600), quality: 80)
        }
    }

    static func longSide(_ image: Image, _ side: Int) throws -> Image {
        let scale = Double(side) / Double(max(image.width, image.height))
        let size = Size(width: Int((Double(image.width) * scale).rounded()), height: Int((Double(image.height) * scale).rounded()))
        return try image.resized(to: size, method: scale < 1 ? .area : .bilinear)
    }

    static func jpeg(_ image: Image, quality: Int) throws -> Image {
        try ImageIO.decode(ImageIO.encode(image.converted(to: .rgb8), as: .jpeg, quality: quality))
    }

    /// `image` with black bands above (two thirds) and below (one third) to `aspect`
    /// (height over width); unchanged when it is that tall already.
    static func padded(_ image: Image, aspect: Double) throws -> Image {
        let rgb = image.converted(to: .rgb8)
        let height = Int(Double(rgb.width) * aspect)
        guard height > rgb.height else { return rgb }
        var out = try Image(width: rgb.width, height: height, format: .rgb8, fill: 0)
        let top = (height - rgb.height) * 2 / 3
        for y in 0 ..< rgb.height {
            for x in 0 ..< rgb.width { for c in 0 ..< 3 { out[x, top + y, c] = rgb[x, y, c] } }
        }
        return out
    }
}

/// Right and wrong readings over a set: "wrong" is read but not the truth (a confident wrong
/// answer), distinct from not read at all.
struct VariantTally: CustomStringConvertible {
    var n = 0, cp = 0, cpWrong = 0, hpMax = 0, hpMaxWrong = 0, species = 0, speciesWrong = 0
    /// Scans shown as read (sure) with the CP, max HP or species wrong: the issue's "never
    /// green-and-wrong".
    var sureWrong = 0
    var misses: [String] = []

    mutating func add(_ file: String, truth: ScreenTruth, scan: ScreenScan?) {
        n += 1
        let r = scan?.reading
        if r?.cp == truth.cp { cp += 1 } else if r?.cp != nil { cpWrong += 1 }
        if r?.hpMax == truth.hpMax { hpMax += 1 } else if r?.hpMax != nil { hpMaxWrong += 1 }
        let read = scan?.species?.name.lowercased()
        if read == truth.species.lowercased() { species += 1 } else if read != nil { speciesWrong += 1 }
        // Read but not the truth (a field left unread is not wrong: the card asks for it).
        let readWrong = (r?.cp).map { $0 != truth.cp } ?? false || (r?.hpMax).map { $0 != truth.hpMax } ?? false
            || read.map { $0 != truth.species.lowercased() } ?? false
        if readWrong && scan?.isSure == true { sureWrong += 1 }
        if r?.cp != truth.cp || r?.hpMax != truth.hpMax || read != truth.species.lowercased() {
            misses.append("\(file): CP \(r?.cp.map(String.init) ?? "–")/\(truth.cp), HP \(r?.hpMax.map(String.init) ?? "–")/\(truth.hpMax), "
                + "species \(read ?? "–")/\(truth.species) (name '\(r?.name ?? "")')" + (readWrong && scan?.isSure == true ? ", shown as sure" : ""))
        }
    }

    var description: String {
        "CP \(ScanTally.percent(cp, n)) wrong \(cpWrong), max HP \(ScanTally.percent(hpMax, n)) wrong \(hpMaxWrong), "
            + "species \(ScanTally.percent(species, n)) wrong \(speciesWrong); sure and wrong \(sureWrong)"
    }
}

@Suite("Screenshots as players have them", .serialized)
struct TransformedScreensTests {
    /// Scans every screenshot of `rows` in every variant; the tallies by variant.
    static func tallies(_ rows: [(image: Image, file: String, truth: ScreenTruth)]) throws -> [ScreenVariant: VariantTally] {
        let scanner = try ScreenScanner()
        var tallies: [ScreenVariant: VariantTally] = [:]
        for row in rows {
            let date = try GameDate(row.truth.statsAsOf)
            for variant in ScreenVariant.allCases {
                let image = try variant.apply(row.image)
                tallies[variant, default: VariantTally()].add(row.file, truth: row.truth,
                                                              scan: try? scanner.scan(image, trainerLevel: row.truth.trainerLevel, statsAsOf: date))
            }
        }
        for variant in ScreenVariant.allCases {
            let tally = tallies[variant]!
            print("transformed \(variant): \(tally)")
            for miss in tally.misses { print("  \(variant) \(miss)") }
        }
        return tallies
    }

    @Test("the fixture screenshots, compressed, rescaled and cropped as players send them", .requires(fixture: ScreenTruth.manifest))
    func fixtures() throws {
        let (fixtures, manifest) = try ScreenTruth.fixtureScreens()
        let rows = try manifest.map { row in
            let truth = ScreenTruth(row: row, levelColumn: "level_label") { ScanEvaluationTests.eraDates[$0["stats_era_used"]!]! }
            return (image: try ImageIO.read(fixtures + "/pogo/screens/" + truth.file), file: truth.file, truth: truth)
        }
        let tallies = try Self.tallies(rows)
        // Before light text was read with hysteresis on lossy copies (the reader tuned to the
        // phone's own pixels): messenger CP 7/47, species 6/47; small CP 2/47, species 0/47;
        // cropped CP 8/47; notch CP 5/47 (issue 38's finding 1).
        for (variant, t) in tallies {
            #expect(t.n == 47, "\(variant)")
            // Green and wrong: one CP misread by a digit that the numbers still fit, in the 1.5×
            // and the 3200-px copies (goiv_g950_game_mode_pidgey_de 220 for 226,
            // chrisnoisel_android_28_28 957 for 951); none elsewhere.
            #expect(t.sureWrong <= ([.dense, .large].contains(variant) ? 1 : 0), "\(variant): \(t)")
            switch variant {
            case .small, .dense:
                // Below the issue's bars still (issue 38 open): floors at today's figures.
                // small (576×1024, JPEG 60): the HP text and the name blur; dense (1.5×): the CP's
                // glyph sizes fall outside the line the reader looks for on some screens.
                let floor = variant == .small ? (cp: 45, hp: 42, species: 39) : (cp: 43, hp: 47, species: 43)
                #expect(t.cp >= floor.cp && t.hpMax >= floor.hp && t.species >= floor.species, "\(variant): \(t)")
                #expect(t.cpWrong <= 3 && t.hpMaxWrong == 0 && t.speciesWrong == 0, "\(variant): \(t)")
            default:
                // The issue's bars: right on 95 % or more, wrong on 3 % or less.
                #expect(t.cp * 100 >= t.n * 95 && t.hpMax * 100 >= t.n * 95 && t.species * 100 >= t.n * 95, "\(variant): \(t)")
                #expect(t.cpWrong * 100 <= t.n * 3 && t.hpMaxWrong * 100 <= t.n * 3 && t.speciesWrong * 100 <= t.n * 3, "\(variant): \(t)")
            }
        }
    }

    @Test("screenshots not used to build the reader, transformed the same way",
          .requires(ScanEvaluationTests.unseenScreens("unseen-screens.tsv")))
    func unseen() throws {
        let (manifest, directory) = try ScanEvaluationTests.unseen("unseen-screens.tsv")
        let rows = try manifest.map { row in
            let truth = ScreenTruth(row: row, levelColumn: "level") { $0["date"]! }
            return (image: try ImageIO.read(directory + "/" + truth.file), file: truth.file, truth: truth)
        }
        // Some of these hide a field under another app's box or a banner (ScanEvaluationTests).
        // Below the issue's bars on several variants (issue 38 open): floors at today's figures
        // (CP, max HP, species right; CP read wrong). Before hysteresis on lossy copies the
        // messenger variant read CP 53/69 and species 48/69.
        let tallies = try Self.tallies(rows)
        let floors: [ScreenVariant: (cp: Int, hp: Int, species: Int, cpWrong: Int)] = [
            .native: (67, 68, 68, 0), .messenger: (63, 66, 55, 3), .small: (43, 59, 32, 11), .dense: (62, 67, 61, 4),
            .large: (61, 67, 61, 6), .cropped: (59, 66, 52, 5), .notch: (64, 67, 63, 2)]
        for (variant, t) in tallies {
            let floor = floors[variant]!
            #expect(t.n == 69 && t.cp >= floor.cp && t.hpMax >= floor.hp && t.species >= floor.species, "\(variant): \(t)")
            #expect(t.cpWrong <= floor.cpWrong && t.hpMaxWrong <= 1 && t.speciesWrong <= 1, "\(variant): \(t)")
            #expect(t.sureWrong == 0, "\(variant): \(t)")
        }
    }
}

@Suite("Never confidently wrong")
struct ScanDoubtTests {
    /// bschlenk's Snorlax (2016): without a date today's stats apply, and the 2016 tables give
    /// other IVs for the same readings: the scan says the date decides (the days whose tables
    /// differ) rather than answering as if sure. With the day of its era it is sure.
    @Test("an unknown date that changes the answer is a doubt, not a green card", .requires(fixture: ScreenTruth.manifest))
    func date() throws {
        let (fixtures, _) = try ScreenTruth.fixtureScreens()
        let image = try ImageIO.read(fixtures + "/pogo/screens/bschlenk_snorlax.png")
        let scanner = try ScreenScanner()
        let undated = try scanner.scan(image)
        #expect(undated.species?.name == "Snorlax" && !undated.isSure)
        #expect(undated.doubts.map(\.kind) == [.date] && undated.doubts[0].choices.contains("2016-07-06"))
        let dated = try scanner.scan(image, statsAsOf: GameDate(ScanEvaluationTests.eraDates["S16"]!))
        #expect(dated.isSure && dated.doubts.isEmpty)
    }

    /// GoOnTap's Poliwag (2016-10-25), not in the fixtures: without a date no Poliwag fits its
    /// CP, HP and stardust with today's stats, and the Evolve cost and height fit Duskull — a
    /// name read clearly and a candy of the Poliwag family say otherwise: amber, with both.
    @Test("a name read clearly that the numbers do not fit is a doubt with both species to choose",
          .requires(ScanEvaluationTests.unseenScreens("unseen-screens.tsv")))
    func name() throws {
        let (_, directory) = try ScanEvaluationTests.unseen("unseen-screens.tsv")
        let scan = try ScreenScanner().scan(ImageIO.read(directory + "/goontap/Screenshot_20161025-140009.png"))
        #expect(!scan.isSure)
        #expect(scan.doubts.contains { $0.kind == .name && $0.choices.contains("Poliwag") })
        #expect(scan.doubts.contains { $0.kind == .candy && $0.choices.contains("Poliwag") })
    }
}
