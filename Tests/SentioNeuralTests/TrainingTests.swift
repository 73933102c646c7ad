import Foundation
import SentioNeural
import SentioTestSupport
import Testing

/// Training: every layer's backward pass against finite differences of the loss, and the
/// optimizers on a problem whose answer is known.
@Suite("Training")
struct TrainingTests {
    /// A small network of every trainable layer (dropout off, so the loss is a function).
    static func network(seed: UInt64) throws -> SequentialNetwork {
        try SequentialNetwork(inputShape: [7, 6, 2], layers: [
            Conv2DLayer(filters: 3, kernel: 3), ReLULayer(), Conv2DLayer(filters: 4, kernel: 2), ReLULayer(), MaxPoolLayer(),
            DropoutLayer(rate: 0), DenseLayer(units: 5), ReLULayer(), DenseLayer(units: 3),
        ], seed: seed)
    }

    @Test("backward passes match central differences of the loss (1 and 2 threads)")
    func gradients() throws {
        for threads in [1, 2] {
            let net = try Self.network(seed: 11)
            var random = SeededGenerator(seed: 5)
            let batch = 4
            let x = (0 ..< batch * 7 * 6 * 2).map { _ in Float(random.nextUnit() * 2 - 1) }
            let labels = ArraySlice([0, 2, 1, 2])
            let pool = ThreadPool(threads: threads)
            // Biases start at zero, which puts ReLU and max-pool ties exactly where a finite
            // difference steps across them: move them off zero first.
            for p in net.parameters where p.name == "bias" { for i in p.value.indices { p.value[i] = Float(random.nextUnit() * 0.4 - 0.2) } }
            _ = net.computeGradients(x, labels: labels, pool: pool)
            let analytic = net.parameters.map(\.gradient)
            var worst = 0.0, checked = 0
            for (k, p) in net.parameters.enumerated() {
                for i in stride(from: 0, to: p.value.count, by: max(1, p.value.count / 7)) {
                    let saved = p.value[i]
                    let h: Float = 1e-3
                    p.value[i] = saved + h
                    let up = net.computeGradients(x, labels: labels, pool: pool).loss
                    p.value[i] = saved - h
                    let down = net.computeGradients(x, labels: labels, pool: pool).loss
                    p.value[i] = saved
                    let numeric = (up - down) / Double(2 * h)
                    let error = abs(numeric - Double(analytic[k][i])) / max(1e-2, abs(numeric) + abs(Double(analytic[k][i])))
                            worst = max(worst, error)
                    checked += 1
                }
            }
            #expect(checked > 40)
            // Float32 losses and a step of 1e-3 agree to a few per cent (gradients below 1e-2 are
            // compared against 1e-2, below float32's resolution of the loss difference).
            #expect(worst < 0.05, "\(threads) thread(s): worst relative gradient error \(worst)")
        }
    }

    @Test("the same seed and data give the same weights; another seed others")
    func repeatable() throws {
        var random = SeededGenerator(seed: 9)
        let inputs = (0 ..< 64 * 7 * 6 * 2).map { _ in Float(random.nextUnit()) }
        let data = try LabeledSamples(shape: [7, 6, 2], inputs: inputs, labels: (0 ..< 64).map { $0 % 3 })
        func train(_ seed: UInt64, threads: Int) throws -> [Float] {
            let net = try Self.network(seed: seed)
            try net.fit(data, epochs: 2, batchSize: 16, optimizer: .adam(learningRate: 0.01), pool: ThreadPool(threads: threads))
            return net.parameters.flatMap(\.value)
        }
        let a = try train(1, threads: 1)
        #expect(try train(1, threads: 1) == a)
        #expect(try train(2, threads: 1) != a)
        // Two threads add the per-thread weight gradients in another order: equal to rounding.
        let b = try train(1, threads: 2)
        #expect(zip(a, b).map { abs($0 - $1) }.max()! < 1e-3)
    }

    @Test("SGD with momentum and Adam learn a separable problem; bad settings are typed errors")
    func learns() throws {
        // Two classes: the sign of the first input value decides.
        var random = SeededGenerator(seed: 3)
        var inputs: [Float] = [], labels: [Int] = []
        for _ in 0 ..< 200 {
            let v = (0 ..< 4).map { _ in Float(random.nextUnit() * 2 - 1) }
            inputs += v
            labels.append(v[0] > 0 ? 1 : 0)
        }
        let data = try LabeledSamples(shape: [4], inputs: inputs, labels: labels)
        for optimizer in [Optimizer.sgd(learningRate: 0.1, momentum: 0.9), .adam(learningRate: 0.01)] {
            let net = try SequentialNetwork(inputShape: [4], layers: [DenseLayer(units: 8), ReLULayer(), DenseLayer(units: 2)], seed: 4)
            var reports: [EpochReport] = []
            try net.fit(data, epochs: 30, batchSize: 20, optimizer: optimizer) { reports.append($0) }
            #expect(reports.count == 30)
            #expect(reports.last!.loss < reports.first!.loss / 2, "\(optimizer): loss \(reports.first!.loss) → \(reports.last!.loss)")
            #expect(net.accuracy(data) > 0.95, "\(optimizer)")
        }
        let net = try SequentialNetwork(inputShape: [4], layers: [DenseLayer(units: 2)], seed: 1)
        #expect(throws: TrainingError.self) { try net.fit(data, epochs: 0, batchSize: 8, optimizer: .adam(learningRate: 0.1)) }
        #expect(throws: TrainingError.self) { try LabeledSamples(shape: [4], inputs: [1, 2, 3], labels: [0]) }
        let wrong = try LabeledSamples(shape: [4], inputs: [0, 0, 0, 0], labels: [7])
        #expect(throws: TrainingError.invalidData("label 7 of 2 classes")) { try net.fit(wrong, epochs: 1, batchSize: 1, optimizer: .adam(learningRate: 0.1)) }
    }
}

/// A trained network written as TFLite and read back by SentioNeural's own loader.
@Suite("Training export")
struct TrainingExportTests {
    @Test("the exported model gives the network's own probabilities (reference and fast kernels)")
    func roundTrip() throws {
        let net = try SequentialNetwork(inputShape: [12, 12, 1], layers: [
            Conv2DLayer(filters: 4, kernel: 3), ReLULayer(), Conv2DLayer(filters: 6, kernel: 3), ReLULayer(), MaxPoolLayer(),
            DropoutLayer(rate: 0.25), DenseLayer(units: 10), ReLULayer(), DropoutLayer(rate: 0.5), DenseLayer(units: 3),
        ], seed: 21)
        var random = SeededGenerator(seed: 8)
        let inputs = (0 ..< 32 * 144).map { _ in Float(random.nextUnit()) }
        let data = try LabeledSamples(shape: [12, 12, 1], inputs: inputs, labels: (0 ..< 32).map { $0 % 3 })
        try net.fit(data, epochs: 2, batchSize: 8, optimizer: .adam(learningRate: 0.01))
        let bytes = try net.tfliteModel()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-export-\(getpid()).tflite").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let graph = try ModelLoader.load(path: path)
        #expect(graph.operatorCounts == ["CONV_2D": 2, "MAX_POOL_2D": 1, "RESHAPE": 1, "FULLY_CONNECTED": 2, "SOFTMAX": 1])
        for kernels in KernelChoice.allCases {
            let interpreter = try Interpreter(graph: try ModelLoader.load(path: path), threads: 1, kernels: kernels)
            for sample in 0 ..< 4 {
                let x = Array(inputs[sample * 144 ..< (sample + 1) * 144])
                try interpreter.setInput(0, x)
                interpreter.invoke()
                let ours = net.predict(x, batch: 1)
                let worst = zip(interpreter.output(0), ours).map { abs($0 - $1) }.max()!
                #expect(worst < 1e-5, "\(kernels), sample \(sample): \(worst)")
            }
        }
    }
}

/// Quick, Draw! data: the fixtures' files read, bad files named.
@Suite("Drawings")
struct DrawingSetTests {
    @Test("the fixtures' doodles: 7 classes, bitmaps and rendered strokes, every fifth held out", .requires(fixture: "senses/quickdraw"))
    func fixtures() throws {
        let set = try DrawingSet(directory: try Fixtures.required("senses/quickdraw") + "/senses/quickdraw")
        #expect(set.classes == ["alarm clock", "apple", "blueberry", "circle", "light bulb", "pear", "potato"])
        // senses/SOURCES.md: 2,000 apple and 3,333 circle bitmaps, 17 stroke drawings per class.
        #expect(set.drawings.map(\.count) == [17, 2017, 17, 3350, 17, 17, 17])
        #expect(set.drawings.allSatisfy { $0.allSatisfy { $0.count == 784 && $0.contains { $0 > 0.5 } && $0.allSatisfy { (0 ... 1).contains($0) } } })
        let (train, test) = try set.split()
        #expect(train.count + test.count == 5452)
        // Per class ⌊n / 5⌋ held out: 3 · 5 + 403 + 670 = 1,088.
        #expect(test.count == 1088)
    }

    @Test("a file that is not a drawing is an error naming it")
    func badFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-drawings-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("not numpy".utf8).write(to: URL(fileURLWithPath: dir + "/cat__x.npy"))
        #expect(throws: TrainingError.invalidData("\(dir)/cat__x.npy: not a numpy .npy file")) { try DrawingSet(directory: dir) }
        try FileManager.default.removeItem(atPath: dir + "/cat__x.npy")
        try Data("{\"word\": \"cat\"}\n".utf8).write(to: URL(fileURLWithPath: dir + "/cat__y.ndjson"))
        #expect(throws: TrainingError.invalidData("\(dir)/cat__y.ndjson line 1: not a drawing")) { try DrawingSet(directory: dir) }
        try FileManager.default.removeItem(atPath: dir + "/cat__y.ndjson")
        #expect(throws: TrainingError.self) { try DrawingSet(directory: dir) }
    }
}

/// A trained judge on strokes as a touchscreen gives them.
@Suite("Drawing judge")
struct DrawingJudgeTests {
    @Test("a judge trained on two shapes tells a drawn circle from a drawn line; bad drawings are errors")
    func judges() throws {
        // Two classes made by hand: circles and near-horizontal lines at random sizes and
        // places, fitted to the 256 box as Quick, Draw!'s drawings are.
        var random = SeededGenerator(seed: 12)
        func circle() -> [[[Double]]] {
            let (cx, cy, r) = (60 + random.nextUnit() * 130, 60 + random.nextUnit() * 130, 30 + random.nextUnit() * 30)
            let angles = (0 ... 24).map { Double($0) / 24 * 2 * Double.pi }
            return [[angles.map { cx + r * cos($0) }, angles.map { cy + r * sin($0) }]]
        }
        func line() -> [[[Double]]] {
            let (x, y, l) = (20 + random.nextUnit() * 60, 40 + random.nextUnit() * 170, 80 + random.nextUnit() * 100)
            return [[[x, x + l], [y, y + random.nextUnit() * 10]]]
        }
        var inputs: [Float] = [], labels: [Int] = []
        for i in 0 ..< 80 {
            inputs += try DrawingSet.render(try DrawingSet.fit(i % 2 == 0 ? circle() : line()))
            labels.append(i % 2)
        }
        let data = try LabeledSamples(shape: [28, 28, 1], inputs: inputs, labels: labels)
        let net = try SequentialNetwork(inputShape: [28, 28, 1], layers: [
            Conv2DLayer(filters: 4, kernel: 3), ReLULayer(), MaxPoolLayer(), DenseLayer(units: 2),
        ], seed: 2)
        try net.fit(data, epochs: 8, batchSize: 16, optimizer: .adam(learningRate: 0.01))
        let model = try CompiledModel(graph: try TFLiteLoader.load(MappedFile(bytes: try net.tfliteModel())))
        let judge = try DrawingJudge(model: model, classes: ["circle", "line"])
        // Drawn at another size and place: the judge fits the drawing to the box first.
        let angles = (0 ... 30).map { Double($0) / 30 * 2 * Double.pi }
        #expect(try judge.judge(strokes: [[angles.map { 1000 + 400 * cos($0) }, angles.map { 500 + 400 * sin($0) }]]).classes.first?.label == "circle")
        #expect(try judge.judge(strokes: [[[3, 9], [2, 2.5]]]).classes.first?.label == "line")
        #expect(throws: TrainingError.self) { try judge.judge(strokes: []) }
        #expect(throws: TrainingError.self) { try judge.judge(strokes: [[[0, .nan], [0, 1]]]) }
        #expect(throws: TrainingError.self) { try DrawingJudge(model: model, classes: ["one"]) }
    }
}
