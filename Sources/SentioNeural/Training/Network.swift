#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of training.
public enum TrainingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data do not fit the network (sizes, labels, empty classes), with what and where.
    case invalidData(String)
    case invalidSettings(String)

    public var description: String {
        switch self {
        case let .invalidData(why): "training data: \(why)"
        case let .invalidSettings(why): "training settings: \(why)"
        }
    }
}

/// Samples for training or evaluation: `count` inputs of `shape` each (NHWC, flattened) and
/// their class indices.
public struct LabeledSamples: Sendable {
    public var shape: [Int]
    public var inputs: [Float]
    public var labels: [Int]
    public var count: Int { labels.count }

    public init(shape: [Int], inputs: [Float], labels: [Int]) throws {
        let size = shape.reduce(1, *)
        guard size > 0, inputs.count == size * labels.count else {
            throw TrainingError.invalidData("\(inputs.count) values for \(labels.count) samples of shape \(shape)")
        }
        self.shape = shape
        self.inputs = inputs
        self.labels = labels
    }
}

/// What one epoch did, for progress reports.
public struct EpochReport: Sendable, Equatable {
    public var epoch: Int
    public var epochs: Int
    public var loss: Double
    public var accuracy: Double
    public var seconds: Double
    /// Seconds left at this epoch's pace.
    public var secondsLeft: Double
}

/// A feed-forward network trained by mini-batch gradient descent on softmax cross-entropy:
/// the Create ML that Linux lacks, for the small networks Sentio ships (e.g. the puzzle game's
/// drawing judge). Seeded: the same seed, data and settings give the same weights.
public final class SequentialNetwork {
    public let layers: [any TrainableLayer]
    public let inputShape: [Int]
    public let classes: Int
    private var random: SeededGenerator

    /// Builds `layers` for inputs of `inputShape`; the last layer must give `classes` values.
    public init(inputShape: [Int], layers: [any TrainableLayer], seed: UInt64) throws {
        self.inputShape = inputShape
        self.layers = layers
        random = SeededGenerator(seed: seed)
        var shape = inputShape
        for layer in layers {
            layer.build(input: shape, random: &random)
            shape = layer.outputShape(shape)
            guard shape.allSatisfy({ $0 > 0 }) else { throw TrainingError.invalidSettings("a layer leaves shape \(shape)") }
        }
        guard shape.count == 1 else { throw TrainingError.invalidSettings("the last layer gives shape \(shape), not a class vector") }
        classes = shape[0]
    }

    public var parameters: [Parameter] { layers.flatMap(\.parameters) }

    /// The class probabilities of `batch` inputs.
    public func predict(_ inputs: [Float], batch: Int, pool: ThreadPool = .serial) -> [Float] {
        var x = inputs
        for layer in layers { x = layer.forward(x, batch: batch, training: false, pool: pool, random: &random) }
        return SequentialNetwork.softmax(x, classes: classes)
    }

    static func softmax(_ logits: [Float], classes: Int) -> [Float] {
        var p = logits
        for b in 0 ..< logits.count / classes {
            let row = b * classes ..< (b + 1) * classes
            let top = logits[row].max() ?? 0
            var sum: Float = 0
            for i in row { p[i] = expf(logits[i] - top); sum += p[i] }
            for i in row { p[i] /= sum }
        }
        return p
    }

    /// The mean cross-entropy of `batch` samples and, in `gradient`, its derivative with
    /// respect to the logits ((p − onehot) / batch).
    static func crossEntropy(_ logits: [Float], labels: ArraySlice<Int>, classes: Int, gradient: inout [Float]) -> Double {
        let p = softmax(logits, classes: classes)
        let batch = labels.count
        var loss = 0.0
        gradient = p
        for (b, label) in labels.enumerated() {
            loss -= log(Double(max(p[b * classes + label], 1e-30)))
            gradient[b * classes + label] -= 1
        }
        for i in gradient.indices { gradient[i] /= Float(batch) }
        return loss / Double(batch)
    }

    /// One step on a mini-batch: forward, loss, backward, optimizer. Returns the batch's mean
    /// loss and its number of right answers.
    func step(_ x: [Float], labels: ArraySlice<Int>, optimizer: OptimizerState, pool: ThreadPool) -> (Double, Int) {
        let result = computeGradients(x, labels: labels, pool: pool)
        optimizer.step(parameters)
        return result
    }

    /// Forward and backward on a mini-batch in training mode: every parameter's `gradient`
    /// becomes d(mean loss)/dθ. Returns the mean loss and the number of right answers.
    public func computeGradients(_ x: [Float], labels: ArraySlice<Int>, pool: ThreadPool = .serial) -> (loss: Double, correct: Int) {
        let batch = labels.count
        var a = x
        for layer in layers { a = layer.forward(a, batch: batch, training: true, pool: pool, random: &random) }
        var gradient: [Float] = []
        let loss = SequentialNetwork.crossEntropy(a, labels: labels, classes: classes, gradient: &gradient)
        var right = 0
        for (b, label) in labels.enumerated() {
            let row = a[b * classes ..< (b + 1) * classes]
            if row.indices.max(by: { row[$0] < row[$1] }).map({ $0 - b * classes }) == label { right += 1 }
        }
        for p in parameters { for i in p.gradient.indices { p.gradient[i] = 0 } }
        for layer in layers.reversed() { gradient = layer.backward(gradient, batch: batch, pool: pool) }
        return (loss, right)
    }

    /// Trains on `data` for `epochs` passes in shuffled mini-batches of `batchSize`, reporting
    /// each epoch to `progress`.
    public func fit(_ data: LabeledSamples, epochs: Int, batchSize: Int, optimizer: Optimizer, pool: ThreadPool = .serial,
                    progress: (EpochReport) -> Void = { _ in }) throws {
        guard epochs > 0, batchSize > 0 else { throw TrainingError.invalidSettings("epochs \(epochs), batch size \(batchSize)") }
        guard data.shape == inputShape else { throw TrainingError.invalidData("samples of shape \(data.shape) for a network of input \(inputShape)") }
        if let bad = data.labels.first(where: { $0 < 0 || $0 >= classes }) { throw TrainingError.invalidData("label \(bad) of \(classes) classes") }
        let state = OptimizerState(optimizer, parameters: parameters)
        let size = inputShape.reduce(1, *)
        var order = Array(0 ..< data.count)
        // Own the pool's workers for the whole run, so the layers' jobs are shared out.
        try pool.withWorkers { try train(data, epochs: epochs, batchSize: batchSize, state: state, size: size, order: &order, pool: pool, progress: progress) }
    }

    private func train(_ data: LabeledSamples, epochs: Int, batchSize: Int, state: OptimizerState, size: Int, order: inout [Int],
                       pool: ThreadPool, progress: (EpochReport) -> Void) throws {
        for epoch in 1 ... epochs {
            let start = Self.now()
            order.shuffle(using: &random)
            var loss = 0.0, right = 0
            var first = 0
            while first < order.count {
                let chosen = order[first ..< min(order.count, first + batchSize)]
                var x = [Float](repeating: 0, count: chosen.count * size)
                for (j, i) in chosen.enumerated() {
                    x.replaceSubrange(j * size ..< (j + 1) * size, with: data.inputs[i * size ..< (i + 1) * size])
                }
                let (l, r) = step(x, labels: ArraySlice(chosen.map { data.labels[$0] }), optimizer: state, pool: pool)
                loss += l * Double(chosen.count)
                right += r
                first += batchSize
            }
            let seconds = Self.now() - start
            progress(EpochReport(epoch: epoch, epochs: epochs, loss: loss / Double(data.count), accuracy: Double(right) / Double(data.count),
                                 seconds: seconds, secondsLeft: seconds * Double(epochs - epoch)))
        }
    }

    /// The share of `data` whose most probable class is its label.
    public func accuracy(_ data: LabeledSamples, pool: ThreadPool = .serial) -> Double {
        let size = inputShape.reduce(1, *)
        return pool.withWorkers { countRight(data, size: size, pool: pool) }
    }

    private func countRight(_ data: LabeledSamples, size: Int, pool: ThreadPool) -> Double {
        var right = 0
        var first = 0
        while first < data.count {
            let n = min(256, data.count - first)
            let p = predict(Array(data.inputs[first * size ..< (first + n) * size]), batch: n, pool: pool)
            for b in 0 ..< n {
                let row = p[b * classes ..< (b + 1) * classes]
                if let best = row.indices.max(by: { row[$0] < row[$1] }), best - b * classes == data.labels[first + b] { right += 1 }
            }
            first += n
        }
        return Double(right) / Double(max(1, data.count))
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
