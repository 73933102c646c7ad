import Foundation
import SentioAudio
import SentioImage
import SentioMotion
import SentioNeural
import SentioVision

/// Why a level could not take an input.
public enum PuzzlerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The level is played with another sense (`what` says which input it takes).
    case wrongInput(level: LevelID, takes: String)
    /// The input itself is unusable (`what` says where and why).
    case badInput(String)
    /// Something the level needs is missing on this server (a model not trained, …).
    case unavailable(String)
    case unknownLevel(String)
    case locked(LevelID)
    case notEnoughPoints(have: Int, need: Int)
    case noHintsLeft(LevelID)
    /// Another purchase of the same hint (another tab, a double click) got there first.
    case hintTaken(LevelID)
    case unknownRound
    case unknownCode

    public var description: String {
        switch self {
        case .wrongInput(let level, let takes): "the \(level.rawValue) level takes \(takes)"
        case .badInput(let what): what
        case .unavailable(let what): what
        case .unknownLevel(let id): "no level \(id); the levels are \(LevelID.allCases.map(\.rawValue).joined(separator: ", "))"
        case .locked(let level): "the \(level.rawValue) level is still locked: solve a neighbouring star first"
        case .notEnoughPoints(let have, let need): "a hint costs \(need) points and you have \(have): catch meteors on the map to earn more"
        case .noHintsLeft(let level): "all three hints of \(level.rawValue) are already yours"
        case .hintTaken(let level): "that hint of \(level.rawValue) was just bought elsewhere (another tab?): reload to read it"
        case .unknownRound: "no such meteor round (or it was another player's, or it has ended)"
        case .unknownCode: "no player has that resume code"
        }
    }
}

/// One player's play of one level: the perception its sense needs and its judge. Inputs in,
/// a ``LevelReport`` out. Not thread-safe: one per connection, used from one thread at a time.
public final class LevelPlayer {
    public let level: Level
    private let store: ModelStore
    private var judge: Judge
    private var faces: FaceTracker?
    private var hands: HandTracker?
    private var classifier: ImageClassifier?
    private var drawings: SentioNeural.DrawingJudge?
    private var listening: ListeningSession?
    private var lastLevel: Double?
    /// Once solved, a level stays solved until it is reset: later inputs get this report.
    private var solvedReport: LevelReport?

    enum Judge {
        case face(FaceJudge), dark(DarkJudge), colours(ColourMatchJudge), fruit(FruitJudge), hand(HandSignJudge)
        case drawing(DrawingLevelJudge), loud(LoudJudge), keyword(KeywordJudge), motion(MotionJudge), device(DeviceJudge), morse(MorseJudge)
    }

    /// The level's models are loaded from `store` here (shared by every player through the
    /// store's cache); the audio's sample rate is fixed per connection.
    public init(level id: LevelID, store: ModelStore, sampleRate: Int = 48000) throws {
        level = Catalogue.level(id)
        self.store = store
        judge = try Self.judge(for: id)
        switch level.sense {
        case .face:
            // Two faces may be found, so the level can say there are two. While one is tracked,
            // detection looks for a second every 10 frames (⅔ s at 15 frames/s), not every 5:
            // each such frame costs a detection and a second mesh of the tracked face.
            faces = FaceTracker(landmarker: try FaceLandmarker(store: store, pool: .serial), maxFaces: 2, detectionInterval: 10)
        case .hands:
            hands = HandTracker(landmarker: try HandLandmarker(maxHands: 2, store: store, pool: .serial))
        case .objects:
            classifier = try ImageClassifier(store: store)
        case .drawing:
            drawings = try Self.drawingJudge(store: store)
        case .sound:
            var configuration = ListeningSession.Configuration()
            if id != .keyword { configuration.keywords = nil }
            do {
                listening = try ListeningSession(sampleRate: sampleRate, configuration: configuration)
            } catch {
                throw PuzzlerError.badInput("sound: \(error)")
            }
        case .colour, .motion, .device, .touch:
            break
        }
    }

    static func judge(for id: LevelID) throws -> Judge {
        switch id {
        case .eyes: .face(FaceJudge(goal: .eyesClosed))
        case .smile: .face(FaceJudge(goal: .smile))
        case .mouth: .face(FaceJudge(goal: .mouthOpen))
        case .nose: .face(FaceJudge(goal: .noseTargets))
        case .dark: .dark(DarkJudge())
        case .colours: .colours(ColourMatchJudge())
        case .fruit: .fruit(FruitJudge())
        case .hand: .hand(HandSignJudge())
        case .drawing: .drawing(DrawingLevelJudge())
        case .loud: .loud(LoudJudge())
        case .keyword: .keyword(KeywordJudge())
        case .turns: .motion(MotionJudge())
        case .theme, .plugs, .offline, .volume: .device(DeviceJudge(level: id))
        case .sos: .morse(MorseJudge())
        }
    }

    /// The drawing judge trained by `make drawing-judge` (`drawings.tflite` in the model store,
    /// its class names one per line in `drawings.classes` beside it).
    static func drawingJudge(store: ModelStore) throws -> SentioNeural.DrawingJudge {
        let classesPath = store.directory + "/drawings.classes"
        guard (try? store.path(of: "drawings")) != nil, let text = try? String(contentsOfFile: classesPath, encoding: .utf8) else {
            throw PuzzlerError.unavailable("the drawing judge is not trained on this server: run `make drawing-judge` (about two minutes)")
        }
        let classes = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        return try SentioNeural.DrawingJudge(model: try store.model("drawings"), classes: classes)
    }

    /// What this level's page sends, for error messages.
    public var takes: String {
        switch level.sense {
        case .face, .colour, .objects, .hands: "camera frames (binary JPEG, PNG or WebP)"
        case .sound: "audio (binary float32 PCM)"
        case .motion: "motion samples ({\"type\": \"motion\", \"samples\": [...]})"
        case .device: "device events ({\"type\": \"event\", ...})"
        case .touch: "presses ({\"type\": \"press\", \"ms\": ...})"
        case .drawing: "a drawing ({\"type\": \"drawing\", \"strokes\": [...]})"
        }
    }

    private func wrong() -> PuzzlerError { .wrongInput(level: level.id, takes: takes) }

    /// A camera frame at `time` seconds.
    public func frame(_ image: Image, time: Double) throws -> LevelReport {
        try latch(judgedFrame(image, time: time))
    }

    private func judgedFrame(_ image: Image, time: Double) throws -> LevelReport {
        guard level.sense.usesCamera else { throw wrong() }
        // The face levels need the lightness only to explain a missing face: measured lazily.
        lazy var colour = ColourSample(image)
        switch judge {
        case .face(var j):
            let meshes = try faces!.track(image)
            let signals = meshes.map { FaceSignals($0, imageWidth: image.width, imageHeight: image.height) }
            let report = j.judge(faces: signals, lightness: signals.count == 1 ? nil : colour.lightness, at: time)
            judge = .face(j)
            return report
        case .dark(var j):
            let report = j.judge(colour, at: time)
            judge = .dark(j)
            return report
        case .colours(var j):
            let report = j.judge(colour, at: time)
            judge = .colours(j)
            return report
        case .fruit(var j):
            let report = j.judge(scores: try fruitScores(image), lightness: colour.lightness, at: time)
            judge = .fruit(j)
            return report
        case .hand(var j):
            let shapes = try hands!.track(image).map { HandShape($0) }
            let report = j.judge(shapes: shapes, lightness: colour.lightness, at: time)
            judge = .hand(j)
            return report
        default:
            throw wrong()
        }
    }

    /// The best probability of each wanted fruit over the classifier's six views (the whole
    /// frame, its centre square and four squares at the centre square's corners).
    private func fruitScores(_ image: Image) throws -> [String: Double] {
        let classifier = classifier!
        let indices = try FruitJudge.wanted.map { try classifier.index(of: $0) }
        var best = Array(repeating: 0.0, count: indices.count)
        var views = [image]
        for rect in ImageClassifier.tiles(width: image.width, height: image.height) { views.append(try image.cropped(to: rect)) }
        for view in views {
            let p = try classifier.probabilities(view)
            for (k, i) in indices.enumerated() { best[k] = max(best[k], p[i]) }
        }
        return Dictionary(uniqueKeysWithValues: zip(FruitJudge.wanted, best))
    }

    /// A chunk of mono audio at the connection's sample rate, `time` seconds into the stream.
    public func audio(_ samples: [Float]) throws -> LevelReport {
        try latch(judgedAudio(samples))
    }

    private func judgedAudio(_ samples: [Float]) throws -> LevelReport {
        guard let listening else { throw wrong() }
        guard samples.allSatisfy(\.isFinite) else { throw PuzzlerError.badInput("audio: a sample is not a finite number") }
        let observation: HearingObservation
        do { observation = try listening.process(AudioChunk(samples: samples)) } catch { throw PuzzlerError.badInput("audio: \(error)") }
        switch judge {
        case .loud(var j):
            let report = j.judge(windows: observation.loudness.map { ($0.start, $0.level) })
            judge = .loud(j)
            return report
        case .keyword(let j):
            if let level = observation.loudness.last?.level { lastLevel = level }
            return j.judge(heard: !observation.hits.isEmpty, level: lastLevel)
        default:
            throw wrong()
        }
    }

    /// Motion samples (already normalised from the browser's events).
    public func motion(_ samples: [IMUSample]) throws -> LevelReport {
        try latch(judgedMotion(samples))
    }

    private func judgedMotion(_ samples: [IMUSample]) throws -> LevelReport {
        guard case .motion(var j) = judge else { throw wrong() }
        let report = j.judge(samples: samples)
        judge = .motion(j)
        return report
    }

    /// A device signal from the page.
    public func event(_ event: DeviceEvent) throws -> LevelReport {
        try latch(judgedEvent(event))
    }

    private func judgedEvent(_ event: DeviceEvent) throws -> LevelReport {
        guard case .device(var j) = judge else { throw wrong() }
        let report = j.judge(event)
        judge = .device(j)
        return report
    }

    /// A press on the SOS level.
    public func press(ms: Double, gapMs: Double?) throws -> LevelReport {
        try latch(judgedPress(ms: ms, gapMs: gapMs))
    }

    private func judgedPress(ms: Double, gapMs: Double?) throws -> LevelReport {
        guard case .morse(var j) = judge else { throw wrong() }
        guard ms.isFinite, ms >= 0, ms < 60_000 else { throw PuzzlerError.badInput("press: ms must be 0…60000") }
        let report = j.judge(pressMs: ms, gapMs: gapMs.flatMap { $0.isFinite ? $0 : nil })
        judge = .morse(j)
        return report
    }

    /// A drawing: strokes of points in any coordinates (only their shape matters).
    public func drawing(_ strokes: [[[Double]]]) throws -> LevelReport {
        try latch(judgedDrawing(strokes))
    }

    private func judgedDrawing(_ strokes: [[[Double]]]) throws -> LevelReport {
        guard case .drawing(let j) = judge, let drawings else { throw wrong() }
        let points = strokes.reduce(0) { $0 + $1.count }
        guard points <= 20_000 else { throw PuzzlerError.badInput("drawing: at most 20000 points") }
        guard strokes.allSatisfy({ $0.allSatisfy { $0.count == 2 && $0[0].isFinite && $0[1].isFinite } }) else {
            throw PuzzlerError.badInput("drawing: every point is [x, y] with finite numbers")
        }
        let nonEmpty = strokes.filter { !$0.isEmpty }
        guard !nonEmpty.isEmpty else { return j.judge(guesses: [], strokes: 0) }
        // Quick, Draw!'s form: each stroke as [[x…], [y…]].
        let verdict = try drawings.judge(strokes: nonEmpty.map { [$0.map { $0[0] }, $0.map { $0[1] }] })
        return j.judge(guesses: verdict.classes.map { .init(label: $0.label, score: ($0.score * 1000).rounded() / 1000) }, strokes: nonEmpty.count)
    }

    /// The dark level's button.
    public func pressButton() throws -> LevelReport {
        try latch(judgedButton())
    }

    private func judgedButton() throws -> LevelReport {
        guard case .dark(var j) = judge else { throw wrong() }
        let report = j.press()
        judge = .dark(j)
        return report
    }

    /// The report, remembered when it is the solve; the remembered solve once there is one.
    private func latch(_ report: @autoclosure () throws -> LevelReport) rethrows -> LevelReport {
        if let solvedReport { return solvedReport }
        let report = try report()
        if report.phase == .solved { solvedReport = report }
        return report
    }

    /// Face levels: measure the neutral face again (and start over).
    public func recalibrate() throws {
        guard case .face(var j) = judge else { throw wrong() }
        j.recalibrate()
        judge = .face(j)
    }

    /// Starts the level over.
    public func reset() throws {
        judge = try Self.judge(for: level.id)
        solvedReport = nil
        faces?.reset()
        hands?.reset()
    }
}
