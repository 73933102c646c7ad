/// Turns a node into a ``Kernel`` over resolved tensors.
struct KernelBuilder {
    let graph: Graph
    let choice: KernelChoice
    /// Most threads any run will use (scratch memory is sized for them).
    var threads = 1
    /// The memory of tensor i (arena or constant pool).
    let tensor: (Int) -> FloatTensor

    func ints(_ t: Int) -> [Int] {
        if case let .int32(v)? = graph.tensors[t].constant { return v.map(Int.init) }
        return []
    }

    func build(_ node: Node, index: Int, outputShape: [Int]) throws -> Kernel {
        func input(_ i: Int) -> FloatTensor { tensor(node.inputs[i]) }
        func optional(_ i: Int) -> FloatTensor? { i < node.inputs.count && node.inputs[i] >= 0 ? tensor(node.inputs[i]) : nil }
        var out = tensor(node.outputs[0])
        out.shape = outputShape
        let name = node.operation.name
        let fast = choice == .fast
        switch node.operation {
        case let .conv2D(window, act):
            let (x, f, b) = (input(0), input(1), optional(2))
            if fast, let k = FastConv2D.make(x: x, filter: f, bias: b, out: out, window: window, activation: act, threads: threads) {
                return Kernel(name: name, run: k)
            }
            return Kernel(name: name) { _ in ReferenceConv2D.run(x: x, filter: f, bias: b, out: out, window: window, activation: act) }
        case let .depthwiseConv2D(window, _, act):
            let (x, f, b) = (input(0), input(1), optional(2))
            let multiplier = f.shape[3] / x.shape[3]
            if fast, let k = FastDepthwise.make(x: x, filter: f, bias: b, out: out, window: window, multiplier: multiplier, activation: act) {
                return Kernel(name: name, run: k)
            }
            return Kernel(name: name) { _ in
                ReferenceDepthwiseConv2D.run(x: x, filter: f, bias: b, out: out, window: window, multiplier: multiplier, activation: act)
            }
        case let .fullyConnected(act, _):
            let (x, w, b) = (input(0), input(1), optional(2))
            if fast, let k = FastFullyConnected.make(x: x, weights: w, bias: b, out: out, activation: act, threads: threads) {
                return Kernel(name: name, run: k)
            }
            return Kernel(name: name) { _ in ReferenceFullyConnected.run(x: x, weights: w, bias: b, out: out, activation: act) }
        case let .transposeConv(window, act):
            let (f, x, b) = (input(1), input(2), optional(3))
            let padT = ReferenceTransposeConv.builtinPadding(input: x.shape[1], output: outputShape[1], filter: f.shape[1], stride: window.strideH, padding: window.padding)
            let padL = ReferenceTransposeConv.builtinPadding(input: x.shape[2], output: outputShape[2], filter: f.shape[2], stride: window.strideW, padding: window.padding)
            if fast, let k = FastTransposeConv.make(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                                    padTop: padT, padLeft: padL, activation: act, threads: threads) {
                return Kernel(name: name, run: k)
            }
            return Kernel(name: name) { _ in
                ReferenceTransposeConv.run(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                           padTop: padT, padLeft: padL, activation: act)
            }
        case let .transposeConvBias(window):
            let (x, f, b) = (input(0), input(1), optional(2))
            let padT = ReferenceTransposeConv.mediapipeGeometry(input: x.shape[1], filter: f.shape[1], stride: window.strideH, padding: window.padding).pad
            let padL = ReferenceTransposeConv.mediapipeGeometry(input: x.shape[2], filter: f.shape[2], stride: window.strideW, padding: window.padding).pad
            if fast, let k = FastTransposeConv.make(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                                    padTop: padT, padLeft: padL, activation: .none, threads: threads) {
                return Kernel(name: name, run: k)
            }
            return Kernel(name: name) { _ in
                ReferenceTransposeConv.run(x: x, filter: f, bias: b, out: out, strideH: window.strideH, strideW: window.strideW,
                                           padTop: padT, padLeft: padL, activation: .none)
            }
        case let .add(act), let .mul(act):
            let (a, b) = (input(0), input(1))
            let isAdd = if case .add = node.operation { true } else { false }
            if fast, let k = FastElementwise.binary(a, b, out: out, add: isAdd, activation: act) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in
                if isAdd {
                    ReferenceElementwise.binary(a, b, out: out, activation: act, +)
                } else {
                    ReferenceElementwise.binary(a, b, out: out, activation: act, *)
                }
            }
        case .relu:
            let x = input(0)
            if fast, let k = FastElementwise.unary(x, out: out, kind: 0) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceElementwise.unary(x, out: out) { max(0, $0) } }
        case .relu6:
            let x = input(0)
            if fast, let k = FastElementwise.unary(x, out: out, kind: 1) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceElementwise.unary(x, out: out) { min(6, max(0, $0)) } }
        case .logistic:
            let x = input(0)
            if fast, let k = FastElementwise.unary(x, out: out, kind: 2) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceElementwise.unary(x, out: out, ReferenceElementwise.logistic) }
        case .hardSwish:
            let x = input(0)
            if fast, let k = FastElementwise.unary(x, out: out, kind: 3) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceElementwise.unary(x, out: out, ReferenceElementwise.hardSwish) }
        case .prelu:
            let (x, alpha) = (input(0), input(1))
            if fast, let k = FastElementwise.prelu(x, alpha: alpha, out: out) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceElementwise.prelu(x, alpha: alpha, out: out) }
        case let .maxPool2D(window, act), let .averagePool2D(window, act):
            let x = input(0)
            let isMax = if case .maxPool2D = node.operation { true } else { false }
            if fast, let k = FastShape.pool(x: x, out: out, window: window, activation: act, max: isMax) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferencePooling.run(x: x, out: out, window: window, activation: act, max: isMax) }
        case .mean:
            let x = input(0)
            let axes = Set(ints(node.inputs[1]).map { $0 < 0 ? $0 + x.shape.count : $0 })
            if fast, let k = FastShape.spatialMean(x: x, axes: axes, out: out) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceShape.mean(x: x, axes: axes, out: out) }
        case .pad:
            let x = input(0)
            let p = ints(node.inputs[1])
            let before = (0 ..< x.shape.count).map { p[2 * $0] }
            var padded = out
            padded.shape = x.shape.enumerated().map { $0.element + p[2 * $0.offset] + p[2 * $0.offset + 1] }
            let target = padded
            if fast, let k = FastShape.pad(x: x, before: before, out: target) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceShape.pad(x: x, before: before, out: target) }
        case .reshape:
            let x = input(0)
            return Kernel(name: name) { _ in
                if x.data != out.data { out.data.update(from: x.data, count: x.count) }
            }
        case let .concatenation(axis, act):
            let inputs = node.inputs.map { tensor($0) }
            let a = axis < 0 ? axis + outputShape.count : axis
            return Kernel(name: name) { _ in ReferenceShape.concatenation(inputs, axis: a, out: out, activation: act) }
        case let .resizeBilinear(align, half):
            let x = input(0)
            if fast, let k = FastShape.resizeBilinear(x: x, out: out, alignCorners: align, halfPixelCenters: half) { return Kernel(name: name, run: k) }
            return Kernel(name: name) { _ in ReferenceShape.resizeBilinear(x: x, out: out, alignCorners: align, halfPixelCenters: half) }
        case let .depthToSpace(block):
            let x = input(0)
            return Kernel(name: name) { _ in ReferenceShape.depthToSpace(x: x, block: block, out: out) }
        case .stridedSlice:
            let x = input(0)
            let (begin, strides, sizes, _) = try ShapeInference.sliceGeometry(node, index: index, graph: graph)
            return Kernel(name: name) { _ in ReferenceShape.stridedSlice(x: x, begin: begin, strides: strides, sizes: sizes, out: out) }
        case .dequantize, .densify:
            throw ModelError.unsupportedOperator(name: "\(name) of a non-constant tensor", node: index)
        }
    }
}
