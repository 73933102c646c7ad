import Foundation
import IVScanner
import SentioImage
import SentioTestSupport
import SentioText
import Testing

/// Floors at what the reader reads today on the 47 real screenshots, and the level arc: where
/// the trainer level is known, the dot against where the true level puts it (no constant of
/// the arc's geometry is fitted: an exact half circle from level 1 to trainer level + 2).
@Suite("Screen reader", .serialized)
struct ScreenReaderTests {
    @Test("a reading stops at its deadline: at once when it has passed, and within one field of it while Tesseract reads (issue 34)",
          .requires(fixture: ScreenTruth.manifest))
    func deadline() throws {
        let (fixtures, manifest) = try ScreenTruth.fixtureScreens()
        let screen = try ImageIO.read(fixtures + "/pogo/screens/" + manifest[0]["file"]!)
        let reader = try ScreenReader()
        let clock = ContinuousClock()
        let whole = try clock.measure { _ = try reader.read(screen) }
        reader.deadline = .now - .seconds(1)
        #expect(throws: TextError.deadlinePassed) { try reader.read(screen) }
        // A deadline in the middle of the reading: it ends soon after, not when the reading would.
        reader.deadline = .now + whole / 4
        var stopped = false
        let cut = clock.measure {
            do { _ = try reader.read(screen) } catch TextError.deadlinePassed { stopped = true } catch {}
        }
        #expect(stopped, "a reading of \(whole) with a deadline at a quarter of it was not stopped")
        #expect(cut < whole / 4 + .milliseconds(200), "stopped after \(cut) (the whole reading: \(whole))")
        reader.deadline = nil
        _ = try reader.read(screen)
    }

    @Test("reads the fields it can on the real screenshots; refuses what is not a detail screen",
          .requires(fixture: ScreenTruth.manifest, "reference/images/astronaut.png"))
    func screenshots() throws {
        let (fixtures, manifest) = try ScreenTruth.fixtureScreens()
        let reader = try ScreenReader()
        var counts = (screens: 0, hp: 0, cp: 0, dust: 0, name: 0, candy: 0, candyWrong: 0)
        // The level from the arc, for the screenshots whose trainer level is known: alone (the
        // nearest half level) and among the levels the manifest's CP, HP and stardust allow.
        var levels = (known: 0, alone: 0, among: 0)
        // How far the dot is from its level's place, as a share of the way to the midpoint
        // between it and the nearer neighbouring half level (1 would be a coin toss).
        var worstShare = 0.0
        for row in manifest {
            counts.screens += 1
            guard let reading = try? reader.read(ImageIO.read(fixtures + "/pogo/screens/" + row["file"]!)) else { continue }
            if let trainer = Int(row["trainer_level"]!), let truth = Double(row["level_label"]!) {
                levels.known += 1
                // The arc's end is trainer level + 2 for all of them (2016–2018).
                let candidates = row["consistent_levels"]!.split(separator: " ").compactMap { Double($0) }
                let day = try GameDate("2017-06-01")
                let alone = try reading.arc?.level(trainerLevel: trainer, asOf: day)
                let among = try reading.arc?.level(trainerLevel: trainer, asOf: day, among: candidates)
                if let arc = reading.arc, let at = try LevelArc.fraction(level: truth, trainerLevel: trainer, asOf: day) {
                    let gaps = try [truth - 0.5, truth + 0.5].compactMap { try LevelArc.fraction(level: $0, trainerLevel: trainer, asOf: day) }.map { abs($0 - at) }
                    worstShare = max(worstShare, abs(arc.fraction - at) / (gaps.min()! / 2))
                }
                if alone == truth { levels.alone += 1 }
                if among == truth { levels.among += 1 }
                if alone != truth { print("level arc: \(row["file"]!): dot at \(reading.arc?.fraction ?? -1), level \(alone ?? -1) alone, \(among ?? -1) among \(candidates), truth \(truth)") }
            }
            if reading.hpMax == Int(row["hp_max"]!) { counts.hp += 1 }
            if reading.cp == Int(row["cp"]!) { counts.cp += 1 }
            if reading.stardust == Int(row["stardust_cost"]!) { counts.dust += 1 }
            if reading.name?.lowercased() == row["species"]!.lowercased() { counts.name += 1 }
            if let candy = reading.candyCost { if candy == Int(row["candy_cost"]!) { counts.candy += 1 } else { counts.candyWrong += 1 } }
        }
        print("screen reader: of \(counts.screens) screenshots, max HP \(counts.hp), CP \(counts.cp), stardust \(counts.dust), name \(counts.name), "
            + "candy cost \(counts.candy) read right (\(counts.candyWrong) wrong)")
        #expect(counts.candy >= 46 && counts.candyWrong == 0)
        #expect(counts.screens == 47)
        #expect(counts.hp >= 46 && counts.name >= 37 && counts.cp >= 46 && counts.dust >= 46)
        print("level arc: of \(levels.known) screenshots with a known trainer level, the exact level alone \(levels.alone), among the consistent levels \(levels.among); "
            + "the dot at most \(Int((worstShare * 100).rounded()))% of the way from its level's place to the midpoint with a neighbour")
        #expect(levels.known == 12 && levels.alone == 12 && levels.among == 12)
        #expect(worstShare < 0.3)
        // A photo is not a detail screen: a clear error, no fields made up.
        let photo = try ImageIO.read(try Requirement.fixture("reference/images/astronaut.png").path())
        #expect(throws: IVError.self) { try reader.read(photo) }
    }

    @Test("the height under the HP, in four layouts and three languages", .requires(fixture: "pogo/screens"))
    func height() throws {
        let fixtures = try Fixtures.required("pogo/screens")
        let reader = try ScreenReader()
        // Read off each screenshot by eye: iPhone 2016 in French ("2.36 m", after the type and
        // the weight), Android 2016 ("0.87 m"), Nexus 6P in Chinese ("0.73m"), Android 2017.
        let shown = ["chrisnoisel_iphone6_23_22.5.png": 2.36, "bschlenk_bulbasaur.png": 0.87,
                     "goiv_nexus6P_bulbasaur_cn.png": 0.73, "chrisnoisel_android_28_23.png": 1.73]
        for (file, metres) in shown {
            let image = try ImageIO.read(fixtures + "/pogo/screens/" + file)
            let hpText = try #require(try reader.read(image).fields["hp"]).box
            #expect(try reader.height(image, hpText: hpText)?.metres == metres, "\(file)")
        }
    }
}

/// Pictures that are not detail screens, or are detail-screen-like only in part, never crash the
/// reader: an `IVError` or a reading with what could be read.
@Suite("Screen reader on odd pictures")
struct ScreenReaderRobustnessTests {
    @Test("tiny, flat, striped and random pictures")
    func oddPictures() throws {
        let reader = try ScreenReader()
        var random = SeededRandom(seed: 66)
        var pictures: [Image] = [try Image(width: 1, height: 1, format: .rgb8), try Image(width: 3, height: 4000, format: .rgb8, fill: 255),
                                 try Image(width: 2000, height: 5, format: .gray8, fill: 128)]
        // A white card with an HP-bar-like green stripe and nothing else: the bar is found, but
        // with neither CP nor HP beside it the picture is refused, nothing made up.
        var card = try Image(width: 720, height: 1280, format: .rgb8, fill: 255)
        for y in 600 ..< 608 { for x in 200 ..< 520 { card[x, y, 0] = 110; card[x, y, 1] = 230; card[x, y, 2] = 160 } }
        #expect(throws: IVError.invalid("not a Pokémon detail screen (neither CP nor HP beside the HP bar)")) { try reader.read(card) }
        pictures.append(card)
        for _ in 0 ..< 3 {
            var noise = try Image(width: 360, height: 640, format: .rgb8)
            for y in 0 ..< 640 { for x in 0 ..< 360 { for k in 0 ..< 3 { noise[x, y, k] = UInt8(truncatingIfNeeded: random.next()) } } }
            pictures.append(noise)
        }
        for picture in pictures {
            do {
                let reading = try reader.read(picture)
                #expect(reading.cp == nil && reading.stardust == nil, "made-up fields on a \(picture.width)×\(picture.height) picture")
            } catch {
                #expect(error is IVError)
            }
        }
    }
}

@Suite("Grayscale opening")
struct OpeningTests {
    /// The van Herk–Gil-Werman passes against the definition: the maximum over each pixel's
    /// square window of the minima over theirs (windows cut at the borders).
    @Test("equals min-then-max over square windows on random images")
    func matchesDefinition() throws {
        var random = SeededRandom(seed: 5)
        for (w, h, size) in [(17, 9, 5), (40, 23, 7), (3, 30, 9), (1, 1, 5), (33, 33, 12)] {
            var image = try Image(width: w, height: h, format: .gray8)
            for y in 0 ..< h { for x in 0 ..< w { image[x, y, 0] = UInt8(truncatingIfNeeded: random.next()) } }
            let half = size / 2
            func window(_ v: [UInt8], _ x: Int, _ y: Int, _ pick: (UInt8, UInt8) -> UInt8, _ start: UInt8) -> UInt8 {
                var m = start
                for yy in max(0, y - half) ... min(h - 1, y + half) { for xx in max(0, x - half) ... min(w - 1, x + half) { m = pick(m, v[yy * w + xx]) } }
                return m
            }
            let pixels = (0 ..< w * h).map { image[$0 % w, $0 / w, 0] }
            let eroded = (0 ..< w * h).map { window(pixels, $0 % w, $0 / w, min, 255) }
            let opened = (0 ..< w * h).map { window(eroded, $0 % w, $0 / w, max, 0) }
            #expect(ScreenReader.opening(image, size: size) == opened, "\(w)×\(h), size \(size)")
        }
    }
}

@Suite("Glyph necks")
struct GlyphNeckTests {
    /// A binarized field (ink 0 on 255) with the given black rectangles.
    static func field(_ rects: [(x: ClosedRange<Int>, y: ClosedRange<Int>)]) throws -> Image {
        var image = try Image(width: 120, height: 60, format: .gray8, fill: 255)
        for r in rects { for y in r.y { for x in r.x { image[x, y, 0] = 0 } } }
        return image
    }

    /// A 0-like ring 28 tall (strokes 4 wide) with a line 1 pixel thick running 30 columns
    /// to a blob 5 tall: 1 ≤ 28/14 = 2, so the line's columns are a neck with the ring's
    /// uprights (28 ≥ a third of 28) on its left and the blob beyond it; the cut at the neck's
    /// start leaves the ring as it was and the line with the blob as a glyph of its own.
    @Test("a thin line touching a digit is cut off; the digit's own thin ends are not")
    func cut() throws {
        let ring: [(x: ClosedRange<Int>, y: ClosedRange<Int>)] = [(10 ... 13, 10 ... 37), (26 ... 29, 10 ... 37), (10 ... 29, 10 ... 13), (10 ... 29, 34 ... 37)]
        var glyphs = ScreenReader.Glyphs(try Self.field(ring + [(30 ... 59, 20 ... 20), (60 ... 62, 18 ... 22)]))
        #expect(glyphs.boxes.count == 1)
        glyphs.cutNecks(minHeight: 20)
        #expect(glyphs.boxes.count == 2)
        #expect(glyphs.boxes.first.map { [$0.x0, $0.y0, $0.x1, $0.y1] } == [10, 10, 29, 37])
        #expect(glyphs.boxes.last.map { [$0.x0, $0.y0, $0.x1, $0.y1] } == [30, 18, 62, 22])
        // A 7 whose bar ends in a tip 1 pixel thick: thin columns with no ink beyond them are
        // no neck. And a glyph shorter than minHeight is never cut.
        var seven = ScreenReader.Glyphs(try Self.field([(5 ... 9, 11 ... 11), (10 ... 40, 10 ... 13), (37 ... 40, 10 ... 40)]))
        seven.cutNecks(minHeight: 20)
        #expect(seven.boxes.count == 1)
        var short = ScreenReader.Glyphs(try Self.field(ring.map { (x: $0.x, y: $0.y.lowerBound / 2 ... $0.y.upperBound / 2) } + [(30 ... 59, 10 ... 10), (60 ... 62, 8 ... 12)]))
        short.cutNecks(minHeight: 20)
        #expect(short.boxes.count == 1)
    }
}
