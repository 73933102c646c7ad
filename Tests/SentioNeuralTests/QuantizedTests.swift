import Foundation
import SentioNeural
import SentioTestSupport
import Testing

/// TFLite's integer arithmetic, checked on values worked out by hand.
@Suite("Quantized arithmetic")
struct QuantizedArithmeticTests {
    @Test("QuantizeMultiplier: 0.5 is 2³⁰·2⁰, 1.0 is 2³⁰·2¹, 0.75 is 3·2²⁹·2⁰, 2⁻⁴⁰ is zero")
    func multipliers() {
        // frexp(0.5) = 0.5·2⁰ → 0.5·2³¹ = 2³⁰; frexp(1) = 0.5·2¹; frexp(0.75) = 0.75·2⁰ → 0.75·2³¹.
        #expect(QuantizedMultiplier(0.5) == QuantizedMultiplier(multiplier: 1 << 30, shift: 0))
        #expect(QuantizedMultiplier(1.0) == QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
        #expect(QuantizedMultiplier(0.75) == QuantizedMultiplier(multiplier: 3 << 29, shift: 0))
        // Too small for a 31-bit fraction after a shift of −31: zero, as TFLite gives.
        #expect(QuantizedMultiplier(0x1p-40) == QuantizedMultiplier(multiplier: 0, shift: 0))
        // Just under 1 rounds the fraction up to 2³¹: the exponent moves up instead.
        #expect(QuantizedMultiplier(1 - 0x1p-40) == QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
    }

    @Test("x · m rounded twice (TFLite's classic way) and once (ties toward +∞); 1.0 is exact")
    func apply() {
        let half = QuantizedMultiplier(0.5)
        // 3 · 0.5 = 1.5 → 2 either way. −3 · 0.5 = −1.5: the doubling high multiply adds
        // 1 − 2³⁰ to −3 · 2³⁰ and truncates (−2³² + 1) / 2³¹ toward zero, −1; once: −1 too.
        #expect(half.apply(3) == 2)
        #expect(half.apply(-3) == -1)
        #expect(half.applyRoundingOnce(3) == 2)
        #expect(half.applyRoundingOnce(-3) == -1)
        // EfficientNet-Lite0's classifier: 22987 · 1076206832 · 2⁻⁴⁰ = 22.4998. Twice: the high
        // multiply gives 11519.89 → 11520, and 11520 / 2⁹ = 22.5 → 23. Once: 22.
        let m = QuantizedMultiplier(multiplier: 1_076_206_832, shift: -9)
        #expect(m.apply(22987) == 23)
        #expect(m.applyRoundingOnce(22987) == 22)
        let one = QuantizedMultiplier(1.0)
        for x: Int32 in [-128, -1, 0, 1, 127, 100_000] {
            #expect(one.apply(x) == x)
            #expect(one.applyRoundingOnce(x) == x)
        }
    }

    @Test("ReLU6 on an output of scale 6/255 and zero point −128 clamps to the whole int8 range")
    func activationRange() throws {
        let q = Quantization(scale: 6.0 / 255, zeroPoint: -128)
        // 0 → −128 + 0 = −128; 6 → −128 + round(6 / (6/255)) = −128 + 255 = 127.
        #expect(try q.activationRange(.relu6, type: .int8) == -128 ... 127)
        let wide = Quantization(scale: 0.1, zeroPoint: 0)
        // 6 / 0.1 = 60.
        #expect(try wide.activationRange(.relu6, type: .int8) == 0 ... 60)
    }
}

/// EfficientNet-Lite0 (int8) against LiteRT 2.3.0 on every fixture photo of fruit and the
/// negatives: the same pixels in (scripts/reference/litert.py photos), outputs compared in
/// steps of the output's quantization.
@Suite("Quantized parity", .serialized)
struct QuantizedParityTests {
    static let folder = NeuralTestData.litertReference + "/efficientnet_lite0-photos"

    struct Index: Decodable {
        struct Photo: Decodable { let stem: String }
        let photos: [Photo]
    }

    @Test("in either arithmetic, fast (every photo) and reference kernels (every 8th) give LiteRT's outputs exactly",
          .requires(NeuralTestData.litert("efficientnet_lite0-photos/index.json"), .model("efficientnet_lite0")))
    func efficientNet() throws {
        let index = try JSONDecoder().decode(Index.self, from: try #require(FileManager.default.contents(
            atPath: try NeuralTestData.litert("efficientnet_lite0-photos/index.json").path())))
        #expect(index.photos.count >= 100, "the fixtures hold 111 photos of fruit and negatives")
        let path = try NeuralTestData.modelPath("efficientnet_lite0")
        // XNNPACK's arithmetic against LiteRT's default path (output0.bin), the reference
        // arithmetic against its BUILTIN_REF kernels (ref_output0.bin). The reference loops
        // take ~0.7 s a photo: they run on every 8th.
        for (arithmetic, file) in [(QuantizedArithmetic.xnnpack, "output0.bin"), (.tfliteReference, "ref_output0.bin")] {
            let fast = Interpreter(model: try CompiledModel(path: path, kernels: .fast, arithmetic: arithmetic))
            let reference = Interpreter(model: try CompiledModel(path: path, kernels: .reference, arithmetic: arithmetic))
            var differing = 0
            for (i, photo) in index.photos.enumerated() {
                let folder = "\(Self.folder)/\(photo.stem)"
                let input = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/input0.bin")))
                let litert = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/" + file)))
                try fast.setInput(0, bytes: input)
                fast.invoke()
                if fast.outputBytes(0) != litert { differing += 1 }
                #expect(fast.outputBytes(0) == litert, "\(photo.stem), \(arithmetic): fast kernels differ from LiteRT's \(file)")
                if i % 8 == 0 {
                    try reference.setInput(0, bytes: input)
                    reference.invoke()
                    #expect(reference.outputBytes(0) == litert, "\(photo.stem), \(arithmetic): reference kernels differ from LiteRT's \(file)")
                }
            }
            print("EfficientNet-Lite0, \(arithmetic): \(index.photos.count - differing) of \(index.photos.count) photos give LiteRT's \(file) exactly")
        }
        var litertSelf = 0
        for photo in index.photos {
            let folder = "\(Self.folder)/\(photo.stem)"
            let a = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/output0.bin")))
            let b = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/ref_output0.bin")))
            litertSelf = max(litertSelf, zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0)
        }
        print("LiteRT's XNNPACK path and its reference kernels differ by up to \(litertSelf) steps")
    }
}

/// The fast int8 kernels against the reference ones on random layers: integer sums do not
/// depend on their order, so the outputs must be equal, not close.
@Suite("Quantized kernels")
struct QuantizedKernelTests {
    struct Layer {
        var graph: Graph
        var inputBytes: [UInt8]
    }

    /// A one-node graph: int8 input [1, h, w, c], `operation` with the given constant inputs,
    /// int8 output; random values from a fixed seed.
    static func layer(_ operation: Operator, input: [Int], filter: [Int]?, perChannel: Bool, output: [Int], seed: UInt64,
                      second: Bool = false) -> Layer {
        var rng = SeededGenerator(seed: seed)
        func bytes(_ n: Int) -> [Int8] { (0 ..< n).map { _ in Int8(truncatingIfNeeded: rng.next()) } }
        var tensors = [TensorInfo(name: "x", shape: input, type: .int8, quantization: Quantization(scale: 0.05, zeroPoint: -7))]
        var inputs = [0]
        if second {
            tensors.append(TensorInfo(name: "y", shape: input, type: .int8, quantization: Quantization(scale: 0.08, zeroPoint: 11)))
            inputs.append(1)
        }
        if let filter {
            let channels = operation.name == "DEPTHWISE_CONV_2D" ? filter[3] : filter[0]
            let axis = operation.name == "DEPTHWISE_CONV_2D" ? 3 : 0
            let scales = (0 ..< (perChannel ? channels : 1)).map { Float(0.002 + 0.0005 * Double($0 % 7)) }
            tensors.append(TensorInfo(name: "w", shape: filter, type: .int8, constant: .int8(bytes(filter.reduce(1, *))),
                                      quantization: Quantization(scales: scales, zeroPoints: scales.map { _ in 0 }, axis: perChannel ? axis : 0)))
            tensors.append(TensorInfo(name: "b", shape: [channels], type: .int32,
                                      constant: .int32((0 ..< channels).map { _ in Int32(truncatingIfNeeded: rng.next() % 4001) - 2000 })))
            inputs += [tensors.count - 2, tensors.count - 1]
        }
        tensors.append(TensorInfo(name: "out", shape: output, type: .int8, quantization: Quantization(scale: 0.11, zeroPoint: 5)))
        let graph = Graph(tensors: tensors, nodes: [Node(operation: operation, inputs: inputs, outputs: [tensors.count - 1])],
                          inputs: second ? [0, 1] : [0], outputs: [tensors.count - 1], format: "test")
        return Layer(graph: graph, inputBytes: bytes(input.reduce(1, *) * (second ? 2 : 1)).map { UInt8(bitPattern: $0) })
    }

    static func outputs(_ layer: Layer, _ kernels: KernelChoice, threads: Int, arithmetic: QuantizedArithmetic) throws -> [UInt8] {
        let interpreter = try Interpreter(graph: layer.graph, threads: threads, kernels: kernels, arithmetic: arithmetic)
        let n = interpreter.inputShape(0).reduce(1, *)
        try interpreter.setInput(0, bytes: Array(layer.inputBytes.prefix(n)))
        if layer.graph.inputs.count > 1 { try interpreter.setInput(1, bytes: Array(layer.inputBytes.suffix(n))) }
        interpreter.invoke()
        return interpreter.outputBytes(0)
    }

    static let cases: [(String, Operator, [Int], [Int]?, Bool, [Int])] = [
        ("1×1 conv, 37 channels in, 21 out", .conv2D(Window(), .none), [1, 9, 7, 37], [21, 1, 1, 37], true, [1, 9, 7, 21]),
        ("1×1 conv read in place, 40 channels in, 35 out", .conv2D(Window(), .relu6), [1, 13, 11, 40], [35, 1, 1, 40], true, [1, 13, 11, 35]),
        ("3×3 stride-2 SAME conv on RGB, ReLU6", .conv2D(Window(strideH: 2, strideW: 2, padding: .same), .relu6), [1, 15, 12, 3], [16, 3, 3, 3], true, [1, 8, 6, 16]),
        ("5×5 dilated VALID conv, per-tensor filter", .conv2D(Window(dilationH: 2, dilationW: 1, padding: .valid), .relu), [1, 14, 9, 8], [33, 5, 5, 8], false, [1, 6, 5, 33]),
        ("3×3 depthwise SAME, 40 channels", .depthwiseConv2D(Window(padding: .same), multiplier: 1, .relu6), [1, 11, 10, 40], [1, 3, 3, 40], true, [1, 11, 10, 40]),
        ("5×5 stride-2 depthwise, 19 channels", .depthwiseConv2D(Window(strideH: 2, strideW: 2, padding: .same), multiplier: 1, .none), [1, 13, 9, 19], [1, 5, 5, 19], true, [1, 7, 5, 19]),
        ("depthwise with multiplier 2", .depthwiseConv2D(Window(padding: .valid), multiplier: 2, .none), [1, 6, 6, 5], [1, 3, 3, 10], true, [1, 4, 4, 10]),
        ("fully connected 300 → 77", .fullyConnected(.none, keepNumDims: false), [3, 300], [77, 300], false, [3, 77]),
    ]

    @Test("fast int8 convolutions equal the reference in both arithmetics, 1 and 2 threads", arguments: 0 ..< cases.count)
    func convolution(_ i: Int) throws {
        let (name, op, input, filter, perChannel, output) = Self.cases[i]
        let layer = Self.layer(op, input: input, filter: filter, perChannel: perChannel, output: output, seed: UInt64(100 + i))
        for arithmetic in QuantizedArithmetic.allCases {
            let reference = try Self.outputs(layer, .reference, threads: 1, arithmetic: arithmetic)
            #expect(Set(reference).count > 3, "\(name): the outputs vary (not all clamped)")
            for threads in [1, 2] {
                #expect(try Self.outputs(layer, .fast, threads: threads, arithmetic: arithmetic) == reference, "\(name), \(arithmetic), \(threads) thread(s)")
            }
        }
    }

    @Test("fast int8 ADD equals the reference, including a ReLU")
    func add() throws {
        for (seed, act) in [(7 as UInt64, Activation.none), (8, .relu)] {
            let layer = Self.layer(.add(act), input: [1, 5, 7, 37], filter: nil, perChannel: false, output: [1, 5, 7, 37], seed: seed, second: true)
            for arithmetic in QuantizedArithmetic.allCases {
                let reference = try Self.outputs(layer, .reference, threads: 1, arithmetic: arithmetic)
                #expect(Set(reference).count > 3)
                #expect(try Self.outputs(layer, .fast, threads: 1, arithmetic: arithmetic) == reference, "\(arithmetic)")
            }
        }
    }
}

/// Quantized operators on hand-made graphs: wide softmax rows, refusals by name.
@Suite("Quantized operators")
struct QuantizedOperatorTests {
    static func softmaxGraph(depth: Int, inputScale: Float) -> Graph {
        Graph(tensors: [TensorInfo(name: "x", shape: [1, depth], type: .int8, quantization: Quantization(scale: inputScale, zeroPoint: 0)),
                        TensorInfo(name: "p", shape: [1, depth], type: .int8, quantization: Quantization(scale: 1.0 / 256, zeroPoint: -128))],
              nodes: [Node(operation: .softmax(beta: 1), inputs: [0], outputs: [1])], inputs: [0], outputs: [1], format: "test")
    }

    @Test("SOFTMAX of 1,000 equal values: each 1/1000, below one step of 1/256, so the stored minimum")
    func flatSoftmax() throws {
        for arithmetic in QuantizedArithmetic.allCases {
            for kernels in KernelChoice.allCases {
                let interpreter = try Interpreter(graph: Self.softmaxGraph(depth: 1000, inputScale: 0.1), threads: 1, kernels: kernels, arithmetic: arithmetic)
                try interpreter.setInput(0, bytes: [UInt8](repeating: 7, count: 1000))
                interpreter.invoke()
                // 1/1000 = 0.256 steps of 1/256, rounded to 0 steps: −128 stored (0x80).
                #expect(interpreter.outputBytes(0) == [UInt8](repeating: 0x80, count: 1000), "\(arithmetic), \(kernels)")
            }
        }
    }

    @Test("a zero point outside its type, a constant activation, a broadcasting ADD: typed errors at load")
    func refusals() throws {
        // int8 output with zero point 200 is not an int8 value.
        var bad = Self.softmaxGraph(depth: 4, inputScale: 0.1)
        bad.tensors[1].quantization = Quantization(scale: 1.0 / 256, zeroPoint: 200)
        #expect(throws: ModelError.self) { try CompiledModel(graph: bad) }
        var constant = Self.softmaxGraph(depth: 4, inputScale: 0.1)
        constant.tensors[0].constant = .int8([1, 2, 3, 4])
        constant.inputs = []
        #expect(throws: ModelError.self) { try CompiledModel(graph: constant) }
        let q = Quantization(scale: 0.1, zeroPoint: 0)
        let add = Graph(tensors: [TensorInfo(name: "a", shape: [1, 4], type: .int8, quantization: q),
                                  TensorInfo(name: "b", shape: [1, 1], type: .int8, quantization: q),
                                  TensorInfo(name: "c", shape: [1, 4], type: .int8, quantization: q)],
                        nodes: [Node(operation: .add(.none), inputs: [0, 1], outputs: [2])], inputs: [0, 1], outputs: [2], format: "test")
        #expect(throws: ModelError.self) { try CompiledModel(graph: add) }
    }
}
