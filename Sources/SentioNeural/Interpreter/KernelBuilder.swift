/// Turns a node into a ``PreparedNode``: the weights a fast kernel needs are packed once (into
/// memory shared by every interpreter of the model), and binding to one interpreter's tensors
/// happens later, per interpreter.
struct KernelBuilder {
    let graph: Graph
    let choice: KernelChoice
    /// Shapes as the kernels see them.
    let shapes: [[Int]]
    /// The memory of a constant tensor (nil for activations, which each interpreter places).
    let constant: (Int) -> UnsafeMutablePointer<Float>?
    /// Where packed weights go.
    let weights: KernelMemory

    func ints(_ t: Int) -> [Int] {
        if case let .int32(v)? = graph.tensors[t].constant { return v.map(Int.init) }
        return []
    }

    /// Constant input `i` of `node` as a tensor, when it is a constant.
    func constantInput(_ node: Node, _ i: Int) -> FloatTensor? {
        guard i < node.inputs.count, node.inputs[i] >= 0, let p = constant(node.inputs[i]) else { return nil }
        return FloatTensor(shape: shapes[node.inputs[i]], data: p)
    }

    func prepare(_ node: Node, index: Int, outputShape: [Int]) throws -> PreparedNode {
        if isQuantized(node) { return try prepareQuantized(node, index: index, outputShape: outputShape) }
        let name = node.operation.name
        let fast = choice == .fast
        let inputs = node.inputs, output = node.outputs[0]
        func shape(_ i: Int) -> [Int] { shapes[inputs[i]] }
        // A kernel over the interpreter's tensors, built when the node is bound.
        func bound(_ make: @escaping (_ input: (Int) -> FloatTensor, _ optional: (Int) -> FloatTensor?, _ out: FloatTensor, _ b: Binding) -> KernelRun) -> PreparedNode {
            PreparedNode(name: name) { b in
                func input(_ i: Int) -> FloatTensor { b.tensor(inputs[i]) }
                func optional(_ i: Int) -> FloatTensor? { i < inputs.count && inputs[i] >= 0 ? b.tensor(inputs[i]) : nil }
                var out = b.tensor(output)
                out.shape = outputShape
                return Kernel(name: name, run: make(input, optional, out, b))
            }
        }
        /// Binds a prepared packed-product kernel (input 0 → output).
        func packed(_ binder: @escaping FastConv2D.Binder, input position: Int = 0) -> PreparedNode {
            bound { input, _, out, b in binder(input(position).data, out.data, b.threads, b.scratch) }
        }
        let bias = constantInput(node, node.operation.biasInput)
        let biasIsConstant = node.operation.biasInput >= inputs.count || inputs[node.operation.biasInput] < 0 || bias != nil

        switch node.operation {
        case let .conv2D(window, act):
            if fast, biasIsConstant, let f = constantInput(node, 1),
               let binder = FastConv2D.prepare(input: shape(0), filter: f, bias: bias, output: outputShape, window: window,
                                               activation: act, weights: weights) {
                return packed(binder)
            }
            return bound { input, optional, out, _ in
                let (x, f, b) = (input(0), input(1), optional(2))
                return { _ in ReferenceConv2D.run(x: x, filter: f, bias: b, out: out, window: window, activation: act) }
            }
        case let .depthwiseConv2D(window, _, act):
            let multiplier = shapes[inputs[1]][3] / max(1, shape(0)[3])
            if fast, biasIsConstant, let f = constantInput(node, 1),
               let binder = FastDepthwise.prepare(input: shape(0), filter: f, bias: bias, output: outputShape, window: window,
                                                  multiplier: multiplier, activation: act, weights: weights) {
                return bound { input, _, out, _ in binder(input(0).data, out.data) }
            }
            return bound { input, optional, out, _ in
                let (x, f, b) = (input(0), input(1), optional(2))
                return { _ in
                    ReferenceDepthwiseConv2D.run(x: x, filter: f, bias: b, out: out, window: window, multiplier: multiplier, activation: act)
                }
            }
        case let .fullyConnected(act, _):
            if fast, biasIsConstant, let w = constantInput(node, 1),
               let binder = FastFullyConnected.prepare(input: shape(0), weights: w, bias: bias, output: outputShape, activation: act, memory: weights) {
                return packed(binder)
            }
            return bound { input, optional, out, _ in
                let (x, w, b) = (input(0), input(1), optional(2))
                return { _ in ReferenceFullyConnected.run(x: x, weights: w, bias: b, out: out, activation: act) }
            }
        case let .transposeConv(window, act):
            let (fShape, xShape) = (shapes[inputs[1]], shape(2))
            let padT = ReferenceTransposeConv.builtinPadding(input: xShape[1], output: outputShape[1], filter: fShape[1], stride: window.strideH, padding: window.padding)
            let padL = ReferenceTransposeConv.builtinPadding(input: xShape[2], output: outputShape[2], filter: fShape[2], stride: window.strideW, padding: window.padding)
            if fast, biasIsConstant, let f = constantInput(node, 1),
               let binder = FastTransposeConv.prepare(input: xShape, filter: f, bias: bias, output: outputShape, strideH: window.strideH,
                                                      strideW: window.strideW, padTop: padT, padLeft: padL, activation: act, weights: weights) {
                return packed(binder, input: 2)
            }
            return bound { input, optional, out, _ in
                let (f, x, b) = (input(1), input(2), optional(3))
                return { _ in
                    ReferenceTransposeConv.run(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                               padTop: padT, padLeft: padL, activation: act)
                }
            }
        case let .transposeConvBias(window):
            let (xShape, fShape) = (shape(0), shapes[inputs[1]])
            let padT = ReferenceTransposeConv.mediapipeGeometry(input: xShape[1], filter: fShape[1], stride: window.strideH, padding: window.padding).pad
            let padL = ReferenceTransposeConv.mediapipeGeometry(input: xShape[2], filter: fShape[2], stride: window.strideW, padding: window.padding).pad
            if fast, biasIsConstant, let f = constantInput(node, 1),
               let binder = FastTransposeConv.prepare(input: xShape, filter: f, bias: bias, output: outputShape, strideH: window.strideH,
                                                      strideW: window.strideW, padTop: padT, padLeft: padL, activation: .none, weights: weights) {
                return packed(binder)
            }
            return bound { input, optional, out, _ in
                let (x, f, b) = (input(0), input(1), optional(2))
                return { _ in
                    ReferenceTransposeConv.run(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                               padTop: padT, padLeft: padL, activation: .none)
                }
            }
        case let .add(act), let .mul(act):
            let isAdd = if case .add = node.operation { true } else { false }
            return bound { input, _, out, _ in
                let (a, b) = (input(0), input(1))
                if fast, let k = FastElementwise.binary(a, b, out: out, add: isAdd, activation: act) { return k }
                return { _ in
                    if isAdd {
                        ReferenceElementwise.binary(a, b, out: out, activation: act, +)
                    } else {
                        ReferenceElementwise.binary(a, b, out: out, activation: act, *)
                    }
                }
            }
        case .relu, .relu6, .logistic, .hardSwish:
            let (kind, function): (Int32, @Sendable (Float) -> Float) = switch node.operation {
            case .relu: (0, { max(0, $0) })
            case .relu6: (1, { min(6, max(0, $0)) })
            case .logistic: (2, ReferenceElementwise.logistic)
            default: (3, ReferenceElementwise.hardSwish)
            }
            return bound { input, _, out, _ in
                let x = input(0)
                if fast, let k = FastElementwise.unary(x, out: out, kind: kind) { return k }
                return { _ in ReferenceElementwise.unary(x, out: out, function) }
            }
        case .prelu:
            return bound { input, _, out, _ in
                let (x, alpha) = (input(0), input(1))
                if fast, let k = FastElementwise.prelu(x, alpha: alpha, out: out) { return k }
                return { _ in ReferenceElementwise.prelu(x, alpha: alpha, out: out) }
            }
        case let .maxPool2D(window, act), let .averagePool2D(window, act):
            let isMax = if case .maxPool2D = node.operation { true } else { false }
            return bound { input, _, out, _ in
                let x = input(0)
                if fast, let k = FastShape.pool(x: x, out: out, window: window, activation: act, max: isMax) { return k }
                return { _ in ReferencePooling.run(x: x, out: out, window: window, activation: act, max: isMax) }
            }
        case .mean:
            let rank = shape(0).count
            let axes = Set(ints(inputs[1]).map { $0 < 0 ? $0 + rank : $0 })
            return bound { input, _, out, _ in
                let x = input(0)
                if fast, let k = FastShape.spatialMean(x: x, axes: axes, out: out) { return k }
                return { _ in ReferenceShape.mean(x: x, axes: axes, out: out) }
            }
        case .pad:
            let xShape = shape(0)
            let p = ints(inputs[1])
            let before = (0 ..< xShape.count).map { p[2 * $0] }
            let paddedShape = xShape.enumerated().map { $0.element + p[2 * $0.offset] + p[2 * $0.offset + 1] }
            return bound { input, _, out, _ in
                let x = input(0)
                var target = out
                target.shape = paddedShape
                if fast, let k = FastShape.pad(x: x, before: before, out: target) { return k }
                return { _ in ReferenceShape.pad(x: x, before: before, out: target) }
            }
        case .reshape:
            return bound { input, _, out, _ in
                let x = input(0)
                return { _ in
                    if x.data != out.data { out.data.update(from: x.data, count: x.count) }
                }
            }
        case let .concatenation(axis, act):
            let a = axis < 0 ? axis + outputShape.count : axis
            return bound { _, _, out, b in
                let tensors = inputs.map { b.tensor($0) }
                return { _ in ReferenceShape.concatenation(tensors, axis: a, out: out, activation: act) }
            }
        case let .resizeBilinear(align, half):
            return bound { input, _, out, _ in
                let x = input(0)
                if fast, let k = FastShape.resizeBilinear(x: x, out: out, alignCorners: align, halfPixelCenters: half) { return k }
                return { _ in ReferenceShape.resizeBilinear(x: x, out: out, alignCorners: align, halfPixelCenters: half) }
            }
        case let .depthToSpace(block):
            return bound { input, _, out, _ in
                let x = input(0)
                return { _ in ReferenceShape.depthToSpace(x: x, block: block, out: out) }
            }
        case .stridedSlice:
            let (begin, strides, sizes, _) = try ShapeInference.sliceGeometry(node, index: index, graph: graph)
            return bound { input, _, out, _ in
                let x = input(0)
                return { _ in ReferenceShape.stridedSlice(x: x, begin: begin, strides: strides, sizes: sizes, out: out) }
            }
        case let .softmax(beta):
            let depth = outputShape.last ?? 1
            let rows = outputShape.reduce(1, *) / max(1, depth)
            return bound { input, _, out, _ in
                let x = input(0)
                return { _ in QuantizedReference.softmax(x.data, out: out.data, rows: rows, depth: depth, beta: beta) }
            }
        case .quantize, .dequantize, .densify:
            throw ModelError.unsupportedOperator(name: "\(name) of a non-constant float tensor", node: index)
        }
    }
}

extension Operator {
    /// The position of the bias among the operator's inputs (past the end when it has none).
    var biasInput: Int {
        switch self {
        case .conv2D, .depthwiseConv2D, .fullyConnected, .transposeConvBias: 2
        case .transposeConv: 3
        default: Int.max
        }
    }
}
