import SentioVision

/// The fruit level: a banana, then an orange, each seen for a second.
///
/// The classifier's `find` rule (docs/objects.md): a class counts as seen when its best
/// probability over six views of the frame reaches 0.15. An orange must also outscore the
/// banana, so the banana still in view does not count for the second step.
public struct FruitJudge: Sendable {
    public static let wanted = ["banana", "orange"]
    public var threshold = ImageClassifier.defaultThreshold
    public var needSeconds = 1.0
    private var step = 0
    private var hold = HoldTimer(need: 1, grace: 0.4)

    public init() {}

    /// `scores`: the best probability of each wanted label over the frame's views.
    public mutating func judge(scores: [String: Double], lightness: Double? = nil, at time: Double) -> LevelReport {
        let want = Self.wanted[min(step, Self.wanted.count - 1)]
        let score = scores[want] ?? 0
        let others = scores.filter { $0.key != want }.map(\.value).max() ?? 0
        let seen = score >= threshold && score > others
        let held = hold.update(seen, at: time)
        var detail = LevelDetail()
        detail.step = step
        detail.scores = scores.mapValues { ($0 * 1000).rounded() / 1000 }
        detail.heldSeconds = held
        detail.holding = seen
        if held >= needSeconds {
            step += 1
            hold.reset()
        }
        detail.want = Self.wanted[min(step, Self.wanted.count - 1)]
        if step == Self.wanted.count {
            return .solved(detail)
        }
        let message = (lightness ?? 50) < 12 ? "It is too dark for the camera to see anything." :
            seen ? "I see it…" : step == 0 ? "Show me the first thing." : "Good. Now the second."
        return LevelReport(progress: (Double(step) + min(1, held / needSeconds)) / Double(Self.wanted.count), message: message, detail: detail)
    }
}

/// The hand level: a V sign (``HandShape/victory``) held for a second.
public struct HandSignJudge: Sendable {
    public var want = HandShape.victory
    public var needSeconds = 1.0
    private var hold = HoldTimer(need: 1, grace: 0.3)

    public init() {}

    /// `shapes`: the shape of each hand in the frame (nil when a hand is no known shape).
    public mutating func judge(shapes: [HandShape?], lightness: Double? = nil, at time: Double) -> LevelReport {
        let holding = shapes.contains(want)
        let held = hold.update(holding, at: time)
        var detail = LevelDetail()
        detail.want = want.rawValue
        detail.seen = shapes.first.map { $0?.rawValue ?? "unknown" }
        detail.heldSeconds = held
        detail.holding = holding
        if held >= needSeconds {
            return .solved(detail)
        }
        let message = shapes.isEmpty ? ((lightness ?? 50) < 12 ? "Too dark to see your hand." : "Show me a hand.")
            : holding ? "Hold it…" : "That's a hand — but not the sign."
        return LevelReport(progress: held / needSeconds, message: message, detail: detail)
    }
}

/// The drawing level: the drawing judge (a small CNN trained by `sentio train drawings`,
/// docs/training.md) must call the picture an apple, as its first guess, with at least 0.5.
public struct DrawingLevelJudge: Sendable {
    public var want = "apple"
    public var minScore = 0.5

    public init() {}

    /// `guesses`: the judge's classes, best first.
    public func judge(guesses: [LevelDetail.Guess], strokes: Int) -> LevelReport {
        var detail = LevelDetail()
        detail.top = Array(guesses.prefix(3))
        guard strokes > 0 else { return LevelReport(progress: 0, message: "Draw something first.", detail: detail) }
        if let first = guesses.first, first.label == want, first.score >= minScore {
            return .solved(detail, message: "Solved — a fine \(want)!")
        }
        let guess = guesses.first.map { "It looks like \($0.label) to me." } ?? "I can't tell what that is."
        return LevelReport(progress: 0, message: guess, detail: detail)
    }
}
