/// A trained drawing judge at work: strokes (as a touchscreen gives them) in, the classes'
/// probabilities out. For a live session (the puzzle game's drawing level): one judge per
/// stream, the model shared.
public final class DrawingJudge {
    private let interpreter: Interpreter
    /// The class names, in the model's output order.
    public let classes: [String]

    /// A judge running `model` (as `sentio train drawings` writes it: 28×28×1 float input in
    /// 0…1, class probabilities out) with `classes` naming its outputs.
    public init(model: CompiledModel, classes: [String], pool: ThreadPool = .serial) throws {
        interpreter = Interpreter(model: model, pool: pool)
        let input = interpreter.inputShape(0), output = interpreter.outputShape(0)
        guard input == [1, DrawingSet.side, DrawingSet.side, 1], interpreter.inputType(0) == .float32 else {
            throw TrainingError.invalidSettings("a drawing judge takes a 28×28×1 float input; the model takes \(input)")
        }
        guard output.last == classes.count else {
            throw TrainingError.invalidSettings("\(classes.count) class names for \(output.last ?? 0) outputs")
        }
        self.classes = classes
    }

    /// One answer: the classes, most probable first.
    public struct Verdict: Codable, Equatable, Sendable {
        public struct Class: Codable, Equatable, Sendable {
            public var label: String
            public var score: Double
        }
        public var classes: [Class]
    }

    /// Judges a drawing given as strokes of points in a 256×256 box (Quick, Draw!'s simplified
    /// form: each stroke [[x…], [y…]]); strokes of other sizes are scaled to fit first.
    public func judge(strokes: [[[Double]]]) throws -> Verdict {
        let fitted = try DrawingSet.fit(strokes)
        try interpreter.setInput(0, try DrawingSet.render(fitted))
        try interpreter.run()
        let p = interpreter.output(0)
        return Verdict(classes: p.indices.sorted { p[$0] > p[$1] }.map { Verdict.Class(label: classes[$0], score: Double(p[$0])) })
    }
}
