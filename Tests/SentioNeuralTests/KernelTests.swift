import Foundation
import SentioNeural
import SentioTestSupport
import Testing

/// Each fast kernel against its reference kernel on random shapes and parameters, through a
/// one-node graph run by the interpreter both ways (so packing and threading are covered).
@Suite("Fast kernels against reference kernels")
struct KernelTests {
    static func random(_ count: Int, _ rng: inout SeededRandom, scale: Float = 1) -> [Float] {
        (0 ..< count).map { _ in Float.random(in: -scale ... scale, using: &rng) }
    }

    /// Runs `node` (input tensor 0, output tensor `out`) with both kernel sets; returns the
    /// largest difference relative to the output's magnitude.
    static func compare(_ tensors: [TensorInfo], _ node: Node, input: [Float], threads: Int = 2) throws -> Float {
        let graph = Graph(tensors: tensors, nodes: [node], inputs: [node.inputs[0]], outputs: node.outputs, format: "test")
        var results: [[Float]] = []
        for choice in [KernelChoice.reference, .fast] {
            let interpreter = try Interpreter(graph: graph, threads: threads, kernels: choice)
            try interpreter.setInput(0, input)
            interpreter.invoke()
            results.append(interpreter.output(0))
        }
        let scale = max(1, results[0].map(abs).max() ?? 1)
        return zip(results[0], results[1]).map { abs($0 - $1) }.max()! / scale
    }

    static func variable(_ shape: [Int]) -> TensorInfo { TensorInfo(name: "x", shape: shape, type: .float32) }
    static func constant(_ shape: [Int], _ values: [Float]) -> TensorInfo {
        TensorInfo(name: "w", shape: shape, type: .float32, constant: .float32(values))
    }

    @Test("CONV_2D: packed product, im2col, direct RGB path, narrow outputs, explicit padding")
    func conv() throws {
        var rng = SeededRandom(seed: 1)
        let activations: [Activation] = [.none, .relu, .relu6]
        for trial in 0 ..< 40 {
            let h = Int.random(in: 1 ... 19, using: &rng), w = Int.random(in: 1 ... 19, using: &rng)
            let ci = [1, 3, 4, 8, 13, 16, 24][trial % 7]
            let co = [1, 2, 5, 8, 16, 17, 33][(trial / 7) % 7]
            let k = [1, 2, 3, 5][trial % 4]
            var window = Window(strideH: Int.random(in: 1 ... 2, using: &rng), strideW: Int.random(in: 1 ... 2, using: &rng),
                                dilationH: trial % 9 == 0 ? 2 : 1, dilationW: trial % 11 == 0 ? 2 : 1,
                                padding: trial % 3 == 0 ? .valid : .same)
            if trial % 5 == 4 { window.padding = .explicit(top: 1, bottom: 2, left: 0, right: 1) }
            guard window.vertical(input: h, filter: k).0 > 0, window.horizontal(input: w, filter: k).0 > 0 else { continue }
            let (oh, ow) = (window.vertical(input: h, filter: k).0, window.horizontal(input: w, filter: k).0)
            let tensors = [Self.variable([1, h, w, ci]), Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)),
                           Self.constant([co], Self.random(co, &rng)), Self.variable([1, oh, ow, co])]
            let node = Node(operation: .conv2D(window, activations[trial % 3]), inputs: [0, 1, 2], outputs: [3])
            let d = try Self.compare(tensors, node, input: Self.random(h * w * ci, &rng))
            #expect(d < 1e-5, "trial \(trial): \(h)×\(w)×\(ci) → \(co), k \(k), \(window): \(d)")
        }
    }

    @Test("DEPTHWISE_CONV_2D: interior blocks and clipped borders, strides, dilation")
    func depthwise() throws {
        var rng = SeededRandom(seed: 2)
        for trial in 0 ..< 30 {
            let h = Int.random(in: 1 ... 23, using: &rng), w = Int.random(in: 1 ... 23, using: &rng)
            let c = [1, 7, 8, 16, 24, 30][trial % 6]
            let k = [3, 5, 1, 2][trial % 4]
            var window = Window(strideH: 1 + trial % 2, strideW: 1 + (trial / 2) % 2, dilationH: trial % 7 == 0 ? 2 : 1,
                                dilationW: 1, padding: trial % 3 == 1 ? .valid : .same)
            if trial % 5 == 3 { window.padding = .explicit(top: 1, bottom: 1, left: 2, right: 0) }
            let (oh, ow) = (window.vertical(input: h, filter: k).0, window.horizontal(input: w, filter: k).0)
            guard oh > 0, ow > 0 else { continue }
            let tensors = [Self.variable([1, h, w, c]), Self.constant([1, k, k, c], Self.random(k * k * c, &rng)),
                           Self.constant([c], Self.random(c, &rng)), Self.variable([1, oh, ow, c])]
            let node = Node(operation: .depthwiseConv2D(window, multiplier: 1, trial % 2 == 0 ? .relu6 : .none), inputs: [0, 1, 2], outputs: [3])
            let d = try Self.compare(tensors, node, input: Self.random(h * w * c, &rng))
            #expect(d < 1e-5, "trial \(trial): \(h)×\(w)×\(c), k \(k), \(window): \(d)")
        }
    }

    /// The unrolled paths need wide rows, which the random shapes above rarely give: 3×3 and
    /// 5×5 depthwise at stride 1 and 2 (four-pixel blocks, the single-pixel rest, channels past
    /// the last multiple of 8, clipped top and bottom rows), narrow heads (eight-pixel runs
    /// that start and end inside a block of work, one and two outputs), and the 8-wide panel
    /// for up to 8 output channels (1×1 in place, im2col, and both micro-tile heights), and
    /// the direct RGB kernel's tiles.
    @Test("unrolled paths: depthwise 3×3/5×5, eight-pixel narrow heads, the 8-wide panel, direct tiles")
    func unrolledPaths() throws {
        var rng = SeededRandom(seed: 5)
        for (k, s, c, w) in [(3, 1, 8, 37), (3, 2, 24, 29), (5, 1, 16, 26), (5, 2, 20, 31), (3, 1, 12, 9), (5, 1, 8, 6)] {
            for padding in [Padding.same, .valid, .explicit(top: 1, bottom: 2, left: 2, right: 1)] {
                let window = Window(strideH: s, strideW: s, padding: padding)
                let h = 7
                let (oh, ow) = (window.vertical(input: h, filter: k).0, window.horizontal(input: w, filter: k).0)
                guard oh > 0, ow > 0 else { continue }
                let tensors = [Self.variable([1, h, w, c]), Self.constant([1, k, k, c], Self.random(k * k * c, &rng)),
                               Self.constant([c], Self.random(c, &rng, scale: 20)), Self.variable([1, oh, ow, c])]
                let node = Node(operation: .depthwiseConv2D(window, multiplier: 1, .relu6), inputs: [0, 1, 2], outputs: [3])
                let d = try Self.compare(tensors, node, input: Self.random(h * w * c, &rng))
                #expect(d < 1e-5, "depthwise \(k)×\(k) s\(s) \(w)×\(c) \(padding): \(d)")
            }
        }
        for (h, w, ci, co, k, s) in [(5, 40, 8, 1, 3, 1), (9, 31, 16, 2, 3, 1), (6, 50, 8, 1, 3, 2), (3, 90, 24, 2, 1, 1)] {
            let window = Window(strideH: s, strideW: s, padding: .same)
            let (oh, ow) = (window.vertical(input: h, filter: k).0, window.horizontal(input: w, filter: k).0)
            let tensors = [Self.variable([1, h, w, ci]), Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)),
                           Self.constant([co], Self.random(co, &rng, scale: 20)), Self.variable([1, oh, ow, co])]
            let node = Node(operation: .conv2D(window, .none), inputs: [0, 1, 2], outputs: [3])
            let d = try Self.compare(tensors, node, input: Self.random(h * w * ci, &rng))
            #expect(d < 1e-5, "narrow \(h)×\(w)×\(ci) → \(co), k \(k) s \(s): \(d)")
        }
        // The direct RGB kernel's six-pixel tiles: pairs of 8-channel groups, an odd last group,
        // partial groups, strides 1 and 2, 3×3 and 5×5.
        for (h, w, ci, co, k, s) in [(9, 40, 3, 24, 5, 2), (6, 31, 3, 32, 3, 2), (5, 27, 4, 17, 3, 1), (4, 14, 3, 5, 3, 1)] {
            let window = Window(strideH: s, strideW: s, padding: .same)
            let (oh, ow) = (window.vertical(input: h, filter: k).0, window.horizontal(input: w, filter: k).0)
            let tensors = [Self.variable([1, h, w, ci]), Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)),
                           Self.constant([co], Self.random(co, &rng, scale: 20)), Self.variable([1, oh, ow, co])]
            let node = Node(operation: .conv2D(window, .relu6), inputs: [0, 1, 2], outputs: [3])
            let d = try Self.compare(tensors, node, input: Self.random(h * w * ci, &rng))
            #expect(d < 1e-5, "direct \(h)×\(w)×\(ci) → \(co), k \(k) s \(s): \(d)")
        }
        for (h, w, ci, co, k) in [(13, 17, 8, 8, 1), (11, 9, 32, 4, 1), (7, 23, 16, 8, 3), (5, 5, 48, 3, 1), (1, 1, 5, 8, 1)] {
            let window = Window(padding: .same)
            let tensors = [Self.variable([1, h, w, ci]), Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)),
                           Self.constant([co], Self.random(co, &rng, scale: 20)), Self.variable([1, h, w, co])]
            let node = Node(operation: .conv2D(window, .relu6), inputs: [0, 1, 2], outputs: [3])
            let d = try Self.compare(tensors, node, input: Self.random(h * w * ci, &rng))
            #expect(d < 1e-5, "8-wide \(h)×\(w)×\(ci) → \(co), k \(k): \(d)")
        }
    }

    @Test("FULLY_CONNECTED and transposed convolution (builtin and MediaPipe's)")
    func fullyConnectedAndTransposed() throws {
        var rng = SeededRandom(seed: 3)
        for (batch, inputs, outputs) in [(1, 1152, 63), (1, 7, 1), (3, 40, 17)] {
            let tensors = [Self.variable([batch, inputs]), Self.constant([outputs, inputs], Self.random(outputs * inputs, &rng)),
                           Self.constant([outputs], Self.random(outputs, &rng)), Self.variable([batch, outputs])]
            let node = Node(operation: .fullyConnected(.none, keepNumDims: false), inputs: [0, 1, 2], outputs: [3])
            #expect(try Self.compare(tensors, node, input: Self.random(batch * inputs, &rng)) < 1e-5)
        }
        for (h, ci, co, k, s) in [(5, 8, 3, 2, 2), (7, 4, 16, 3, 2), (4, 16, 1, 4, 2), (6, 3, 5, 3, 1)] {
            let window = Window(strideH: s, strideW: s, padding: .same)
            let o = ReferenceTransposeConv.mediapipeGeometry(input: h, filter: k, stride: s, padding: .same).output
            let tensors = [Self.variable([1, h, h, ci]), Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)),
                           Self.constant([co], Self.random(co, &rng)), Self.variable([1, o, o, co])]
            let node = Node(operation: .transposeConvBias(window), inputs: [0, 1, 2], outputs: [3])
            #expect(try Self.compare(tensors, node, input: Self.random(h * h * ci, &rng)) < 1e-5)
            let builtin = [TensorInfo(name: "shape", shape: [4], type: .int32, constant: .int32([1, Int32(h * s), Int32(h * s), Int32(co)]))]
                + [Self.constant([co, k, k, ci], Self.random(co * k * k * ci, &rng)), Self.variable([1, h, h, ci]), Self.variable([1, h * s, h * s, co])]
            let tnode = Node(operation: .transposeConv(window, .relu), inputs: [0, 1, 2, -1], outputs: [3])
            let graph = Graph(tensors: builtin, nodes: [tnode], inputs: [2], outputs: [3], format: "test")
            var results: [[Float]] = []
            let input = Self.random(h * h * ci, &rng)
            for choice in [KernelChoice.reference, .fast] {
                let interpreter = try Interpreter(graph: graph, threads: 2, kernels: choice)
                try interpreter.setInput(0, input)
                interpreter.invoke()
                results.append(interpreter.output(0))
            }
            #expect(zip(results[0], results[1]).allSatisfy { abs($0 - $1) < 1e-4 })
        }
    }

    @Test("element-wise, activations, pooling, resize, pad and mean")
    func elementwiseAndShape() throws {
        var rng = SeededRandom(seed: 4)
        let shape = [1, 9, 11, 24]
        let count = shape.reduce(1, *)
        let x = Self.random(count, &rng, scale: 6)
        // ADD / MUL: same shape (second operand constant) and per channel.
        for operation in [Operator.add(.relu), .mul(.none)] {
            for other in [shape, [24], [1, 1, 1, 24]] {
                let n = other.reduce(1, *)
                let tensors = [Self.variable(shape), Self.constant(other, Self.random(n, &rng)), Self.variable(shape)]
                #expect(try Self.compare(tensors, Node(operation: operation, inputs: [0, 1], outputs: [2]), input: x) < 1e-6)
            }
        }
        for operation in [Operator.relu, .relu6, .logistic, .hardSwish] {
            let d = try Self.compare([Self.variable(shape), Self.variable(shape)], Node(operation: operation, inputs: [0], outputs: [1]), input: x)
            #expect(d < 1e-6, "\(operation.name): \(d)")
        }
        let prelu = [Self.variable(shape), Self.constant([1, 1, 24], Self.random(24, &rng)), Self.variable(shape)]
        #expect(try Self.compare(prelu, Node(operation: .prelu, inputs: [0, 1], outputs: [2]), input: x) < 1e-6)
        for (isMax, k, s, padding) in [(true, 2, 2, Padding.valid), (false, 3, 2, .same), (true, 3, 1, .same)] {
            let window = Window(strideH: s, strideW: s, filterH: k, filterW: k, padding: padding)
            let out = [1, window.vertical(input: 9, filter: k).0, window.horizontal(input: 11, filter: k).0, 24]
            let op: Operator = isMax ? .maxPool2D(window, .none) : .averagePool2D(window, .none)
            #expect(try Self.compare([Self.variable(shape), Self.variable(out)], Node(operation: op, inputs: [0], outputs: [1]), input: x) < 1e-6)
        }
        for (align, half) in [(false, true), (true, false), (false, false)] {
            let size = TensorInfo(name: "size", shape: [2], type: .int32, constant: .int32([17, 6]))
            let node = Node(operation: .resizeBilinear(alignCorners: align, halfPixelCenters: half), inputs: [0, 1], outputs: [2])
            #expect(try Self.compare([Self.variable(shape), size, Self.variable([1, 17, 6, 24])], node, input: x) < 1e-6)
        }
        let pads = TensorInfo(name: "pads", shape: [4, 2], type: .int32, constant: .int32([0, 0, 1, 2, 0, 1, 0, 8]))
        #expect(try Self.compare([Self.variable(shape), pads, Self.variable([1, 12, 12, 32])], Node(operation: .pad, inputs: [0, 1], outputs: [2]), input: x) == 0)
        let axes = TensorInfo(name: "axes", shape: [2], type: .int32, constant: .int32([1, 2]))
        #expect(try Self.compare([Self.variable(shape), axes, Self.variable([1, 1, 1, 24])], Node(operation: .mean(keepDims: true), inputs: [0, 1], outputs: [2]), input: x) < 1e-6)
    }
}
