import Foundation
import Puzzler
import SentioAudio
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Levels played by ``LevelPlayer`` — Sentio's real perception — on fixture photos and clips:
/// the right input solves, the wrong one does not.
@Suite("Puzzler levels on fixture photos and sounds", .requires(fixture: "faces/identity", "senses"), .requires(model: "face_landmark", "efficientnet_lite0"))
struct PhotoTests {
    static func photo(_ relative: String) throws -> Image {
        try ImageIO.read(try Fixtures.required(relative) + "/" + relative)
    }

    /// Feeds `frames` (image, count) at 10 per second; the first solving time, if any.
    static func play(_ player: LevelPlayer, _ frames: [(Image, Int)], from start: Double = 0) throws -> (solvedAt: Double?, last: LevelReport?) {
        var t = start, last: LevelReport?
        for (image, count) in frames {
            for _ in 0..<count {
                last = try player.frame(image, time: t)
                if last?.phase == .solved { return (t, last) }
                t += 0.1
            }
        }
        return (nil, last)
    }

    // Yale subject 10: neutral ("normal"), eyes closed ("sleepy"), mouth open ("surprised"). Chosen
    // by measuring every Yale and stock-emotions photo (tests/browser/PUZZLER_INPUTS.md): subject
    // 01's "sleepy" eyes are only half closed (EAR 0.196, over her calibrated threshold 0.19).
    static let yale = "faces/identity/Yale_subject10/yale_subject10_"

    @Test("eyes: Yale 10 neutral then sleepy solves in about 6.4 s; neutral for 20 s never does")
    func eyes() throws {
        let neutral = try Self.photo(Self.yale + "normal.png"), sleepy = try Self.photo(Self.yale + "sleepy.png")
        let solving = try Self.play(try LevelPlayer(level: .eyes, store: ModelStore()), [(neutral, 20), (sleepy, 80)])
        let at = try #require(solving.solvedAt, "never solved")
        // Closed from t = 2.0: 15 frames (1.4 s) to start, 5 s to hold.
        #expect(abs(at - 8.4) < 0.15, "solved at \(at)")
        let open = try Self.play(try LevelPlayer(level: .eyes, store: ModelStore()), [(neutral, 200)])
        #expect(open.solvedAt == nil)
        #expect(open.last?.phase == .playing)
    }

    @Test("mouth and smile: the surprised photo opens the mouth; the open mouth is no closed-mouth smile")
    func mouth() throws {
        let neutral = try Self.photo(Self.yale + "normal.png"), surprised = try Self.photo(Self.yale + "surprised.png")
        #expect(try Self.play(try LevelPlayer(level: .mouth, store: ModelStore()), [(neutral, 15), (surprised, 60)]).solvedAt != nil)
        #expect(try Self.play(try LevelPlayer(level: .smile, store: ModelStore()), [(neutral, 15), (surprised, 60)]).solvedAt == nil)
        #expect(try Self.play(try LevelPlayer(level: .mouth, store: ModelStore()), [(neutral, 75)]).solvedAt == nil)
        // Yale 02 (no "normal" photo: "noglasses" is her neutral face) smiles with her lips closed in "happy".
        let plain = try Self.photo("faces/identity/Yale_subject02/yale_subject02_noglasses.png")
        let happy = try Self.photo("faces/identity/Yale_subject02/yale_subject02_happy.png")
        #expect(try Self.play(try LevelPlayer(level: .smile, store: ModelStore()), [(plain, 15), (happy, 60)]).solvedAt != nil)
        #expect(try Self.play(try LevelPlayer(level: .smile, store: ModelStore()), [(plain, 75)]).solvedAt == nil)
        // Her smile is no eyes-closed: the calibrated rule keeps them apart (the fixed 0.24 did not).
        #expect(try Self.play(try LevelPlayer(level: .eyes, store: ModelStore()), [(plain, 15), (happy, 60)]).solvedAt == nil)
    }

    @Test("two faces side by side: the level says so and its timer stays at zero")
    func twoFaces() throws {
        let a = try Self.photo(Self.yale + "sleepy.png")
        var pair = try Image(width: a.width * 2, height: a.height, format: a.format)
        for y in 0..<a.height { for x in 0..<a.width { for c in 0..<a.channels { pair[x, y, c] = a[x, y, c]; pair[x + a.width, y, c] = a[x, y, c] } } }
        let player = try LevelPlayer(level: .eyes, store: ModelStore())
        let result = try Self.play(player, [(try Self.photo(Self.yale + "normal.png"), 15), (pair, 60)])
        #expect(result.solvedAt == nil)
        #expect(result.last?.detail.faces == 2)
        #expect(result.last?.message.contains("2 faces") == true)
    }

    static func images(_ folder: String) throws -> [Image] {
        let dir = try Fixtures.required("senses/" + folder) + "/senses/" + folder
        return try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") }.sorted().prefix(3).map { try ImageIO.read(dir + "/" + $0) }
    }

    @Test("fruit: a banana then an orange solve; apples never do")
    func fruit() throws {
        let banana = try Self.images("banana")[0], orange = try Self.images("orange")[0]
        #expect(try Self.play(try LevelPlayer(level: .fruit, store: ModelStore()), [(banana, 12), (orange, 12)]).solvedAt != nil)
        #expect(try Self.play(try LevelPlayer(level: .fruit, store: ModelStore()), [(orange, 12), (banana, 12)]).solvedAt == nil)
        for apple in try Self.images("apple") {
            let player = try LevelPlayer(level: .fruit, store: ModelStore())
            #expect(try Self.play(player, [(banana, 12), (apple, 20)]).solvedAt == nil)
        }
    }

    @Test("hand: the V sign photo solves; an open palm does not", .requires(fixture: "faces/hands"), .requires(model: "hand_landmark_full"))
    func hand() throws {
        let victory = try Self.photo("faces/hands/mprs_victory.jpg")
        #expect(try Self.play(try LevelPlayer(level: .hand, store: ModelStore()), [(victory, 15)]).solvedAt != nil)
        // Every photo hands.tsv calls an open palm, four fingers or pointing up: none is a V.
        let root = try Fixtures.required("faces/hands.tsv")
        let others = try Fixtures.labelledHands(in: root).filter { ["open_palm", "pointing_up"].contains($0.label) || $0.label.hasPrefix("four") }
        #expect(others.count >= 10)
        for photo in others {
            let result = try Self.play(try LevelPlayer(level: .hand, store: ModelStore()), [(try ImageIO.read(photo.path), 20)])
            #expect(result.solvedAt == nil, "\(photo.file) solved the V-sign level")
        }
    }

    @Test("colour: the dark level's button shows only on a black frame")
    func dark() throws {
        let player = try LevelPlayer(level: .dark, store: ModelStore())
        let face = try Self.photo(Self.yale + "normal.png")
        #expect(try player.frame(face, time: 0).detail.button == false)
        #expect(try player.pressButton().phase == .playing)
        let black = try Image(width: 320, height: 240, format: .rgb8, fill: 4)
        #expect(try player.frame(black, time: 1).detail.button == true)
        #expect(try player.pressButton().phase == .solved)
    }

    static func wav(_ name: String, rate: Int = 48000, gain: Float = 1, padSeconds: Double = 0.5) throws -> [Float] {
        let dir = try Fixtures.required("senses/speech") + "/senses/speech"
        let (audio, _) = try WAVFile.read(dir + "/" + name)
        let resampled = try Resampler.resample(audio.samples, from: audio.sampleRate, to: rate)
        let pad = [Float](repeating: 0, count: Int(Double(rate) * padSeconds))
        return pad + resampled.map { max(-1, min(1, $0 * gain)) } + pad
    }

    static func stream(_ player: LevelPlayer, _ samples: [Float], rate: Int = 48000) throws -> LevelReport? {
        var last: LevelReport?
        for start in stride(from: 0, to: samples.count, by: rate / 10) {
            last = try player.audio(Array(samples[start..<min(samples.count, start + rate / 10)]))
            if last?.phase == .solved { return last }
        }
        return last
    }

    @Test("keyword: a clip saying \"black hole\" solves; a clip saying \"house\" does not")
    func keyword() throws {
        #expect(try Self.stream(try LevelPlayer(level: .keyword, store: ModelStore()), try Self.wav("festival_kal_diphone_black_hole.wav"))?.phase == .solved)
        #expect(try Self.stream(try LevelPlayer(level: .keyword, store: ModelStore()), try Self.wav("sc__house_6272b231_nohash_1.wav"))?.phase == .playing)
    }

    @Test("loud: 3 s of loud noise solves; a quiet room (−50 dBFS noise) does not")
    func loud() throws {
        // Uniform noise in ±a has RMS a/√3: a = 0.5 is −10.8 dBFS, a = 0.0055 is −50 dBFS.
        var generator = SeededGenerator(seed: 7)
        func noise(_ a: Float, seconds: Double) -> [Float] { (0..<Int(48000 * seconds)).map { _ in Float.random(in: -a...a, using: &generator) } }
        #expect(try Self.stream(try LevelPlayer(level: .loud, store: ModelStore()), noise(0.5, seconds: 3))?.phase == .solved)
        let quiet = try Self.stream(try LevelPlayer(level: .loud, store: ModelStore()), noise(0.0055, seconds: 5))
        #expect(quiet?.phase == .playing)
        #expect(abs((quiet?.detail.dbfs ?? 0) + 50) < 1)
    }

    @Test("drawing: the fixtures' apple drawings solve; circles do not", .requires(fixture: "senses/quickdraw"), .requires(model: "drawings"))
    func drawing() throws {
        let dir = try Fixtures.required("senses/quickdraw") + "/senses/quickdraw"
        func drawings(_ prefix: String) throws -> [[[[Double]]]] {
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasPrefix(prefix + "__") && $0.hasSuffix(".ndjson") })
            return try String(contentsOfFile: dir + "/" + file, encoding: .utf8).split(separator: "\n").map { line in
                struct Row: Decodable { var drawing: [[[Double]]] }
                // Quick, Draw!'s [[x…], [y…]] per stroke, turned into points as a page sends them.
                return try JSONDecoder().decode(Row.self, from: Data(line.utf8)).drawing.map { zip($0[0], $0[1]).map { [$0, $1] } }
            }
        }
        let apples = try drawings("apple"), circles = try drawings("circle")
        var solved = 0
        for strokes in apples { if try LevelPlayer(level: .drawing, store: ModelStore()).drawing(strokes).phase == .solved { solved += 1 } }
        var wrong = 0
        for strokes in circles { if try LevelPlayer(level: .drawing, store: ModelStore()).drawing(strokes).phase == .solved { wrong += 1 } }
        print("drawing level: \(solved)/\(apples.count) apple drawings solve, \(wrong)/\(circles.count) circles do")
        // Measured 13 of 17 (the judge learned apples from 2,000 bitmaps but these are strokes,
        // drawn 10 px wide: docs/training.md). The bar: at least 12.
        #expect(solved >= 12)
        #expect(wrong == 0)
    }
}
