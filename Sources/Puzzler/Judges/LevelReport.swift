/// What a judge says after each input: the level's phase, how far the player has got, a
/// message for them, and what the page draws.
public struct LevelReport: Sendable, Codable, Equatable {
    public enum Phase: String, Sendable, Codable {
        /// Face levels, first: the player's neutral face is being measured.
        case calibrating
        case playing
        case solved
    }

    public var phase: Phase
    /// 0…1 of the whole level.
    public var progress: Double
    /// For the player; says what is wrong when something is.
    public var message: String
    public var detail: LevelDetail

    public init(phase: Phase = .playing, progress: Double, message: String, detail: LevelDetail = LevelDetail()) {
        self.phase = phase
        self.progress = min(1, max(0, progress))
        self.message = message
        self.detail = detail
    }

    /// The level solved, with what the page draws last.
    public static func solved(_ detail: LevelDetail, message: String = "Solved!") -> LevelReport {
        LevelReport(phase: .solved, progress: 1, message: message, detail: detail)
    }
}

/// What the page draws for a level; each level fills the fields it has (docs/puzzler-api.md).
public struct LevelDetail: Sendable, Codable, Equatable {
    // Face levels.
    public var faces: Int?
    /// The mean of the two eyes' EAR.
    public var ear: Double?
    /// The larger eye's EAR: the one the eyes rule compares with `earThreshold` (both eyes closed).
    public var earMax: Double?
    public var earThreshold: Double?
    public var mar: Double?
    public var smile: Double?
    public var smileThreshold: Double?
    public var heldSeconds: Double?
    public var needSeconds: Double?
    /// Whether the frame counts towards the level (the decision the page's timer follows).
    public var holding: Bool?
    public var cursor: Spot?
    public var targets: [Target]?
    public var next: Int?
    // Colour levels.
    public var lightness: Double?
    public var threshold: Double?
    public var button: Bool?
    public var grey: Int?
    public var swatches: [Swatch]?
    public var current: Int?
    public var window: Window?
    public var deltaE: Double?
    // Recognition.
    public var want: String?
    public var step: Int?
    public var scores: [String: Double]?
    public var seen: String?
    public var top: [Guess]?
    // Sound.
    public var dbfs: Double?
    public var heard: Bool?
    // Motion.
    public var axes: [String: AxisTurn]?
    // Device and touch.
    public var steps: [Step]?
    public var presses: String?
    public var letters: String?

    public init() {}

    public struct Spot: Sendable, Codable, Equatable {
        public var x: Double, y: Double
        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    }
    public struct Target: Sendable, Codable, Equatable {
        public var x: Double, y: Double, r: Double, hit: Bool
    }
    public struct Swatch: Sendable, Codable, Equatable {
        public var name: String, hex: String, done: Bool
    }
    public struct Window: Sendable, Codable, Equatable {
        public var x: Double, y: Double, w: Double, h: Double
    }
    public struct Guess: Sendable, Codable, Equatable {
        public var label: String, score: Double
        public init(label: String, score: Double) { (self.label, self.score) = (label, score) }
    }
    public struct AxisTurn: Sendable, Codable, Equatable {
        public var progress: Double, done: Bool
    }
    public struct Step: Sendable, Codable, Equatable {
        public var label: String, done: Bool
        public init(label: String, done: Bool) { (self.label, self.done) = (label, done) }
    }
}

/// Time a condition has held, with a short grace for flickers: a frame or two where it lapses
/// does not start it over, a longer lapse does.
public struct HoldTimer: Sendable {
    public var need: Double
    public var grace: Double
    public private(set) var since: Double?
    private var lastTrue: Double?

    public init(need: Double, grace: Double = 0.25) {
        self.need = need
        self.grace = grace
    }

    /// Feeds the condition at `time` (seconds); returns the seconds held so far.
    public mutating func update(_ holding: Bool, at time: Double) -> Double {
        if holding {
            if since == nil { since = time }
            lastTrue = time
        } else if let last = lastTrue, time - last > grace {
            since = nil
            lastTrue = nil
        }
        guard let since, let lastTrue else { return 0 }
        return max(0, lastTrue - since)
    }

    /// Seconds held as of the last update.
    public var held: Double {
        guard let since, let lastTrue else { return 0 }
        return max(0, lastTrue - since)
    }

    public mutating func reset() { since = nil; lastTrue = nil }
}
