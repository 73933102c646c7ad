/// The loud level: the microphone's level at or over −20 dBFS for two seconds (blowing into it
/// works: wind noise on a phone's microphone reads −10 to 0 dBFS; a quiet room −60 to −45).
public struct LoudJudge: Sendable {
    public var threshold = -20.0
    public var needSeconds = 2.0
    private var hold = HoldTimer(need: 2, grace: 0.25)
    private var lastLevel: Double?

    public init() {}

    /// `windows`: the loudness of each 100 ms window that ended in this chunk, (start seconds, dBFS).
    public mutating func judge(windows: [(start: Double, level: Double)]) -> LevelReport {
        var held = hold.held
        for window in windows {
            // A window counts at its end: 100 ms of loudness.
            held = hold.update(window.level >= threshold, at: window.start + 0.1)
            lastLevel = window.level
        }
        var detail = LevelDetail()
        detail.dbfs = lastLevel.map { ($0 * 10).rounded() / 10 }
        detail.threshold = threshold
        detail.heldSeconds = held
        detail.needSeconds = needSeconds
        detail.holding = (lastLevel ?? -120) >= threshold
        if held >= needSeconds {
            return .solved(detail)
        }
        let message = lastLevel == nil ? "Waiting for sound from the microphone…" : detail.holding == true ? "Keep going!" : "Listening…"
        return LevelReport(progress: held / needSeconds, message: message, detail: detail)
    }
}

/// The key-phrase level: PocketSphinx hears "black hole" (SentioAudio's spotter, docs/hearing.md).
public struct KeywordJudge: Sendable {
    public init() {}

    public func judge(heard: Bool, level: Double?) -> LevelReport {
        var detail = LevelDetail()
        detail.heard = heard
        detail.dbfs = level.map { ($0 * 10).rounded() / 10 }
        if heard { return .solved(detail, message: "Solved — I heard it!") }
        return LevelReport(progress: 0, message: level == nil ? "Waiting for sound from the microphone…" : "Listening…", detail: detail)
    }
}
