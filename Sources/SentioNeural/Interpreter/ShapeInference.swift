/// Computes each node's output shape from its inputs and checks it against the shape the
/// file declares, so that no kernel can index outside its tensors — whatever the file says.
enum ShapeInference {
    /// No tensor may exceed 2²⁶ elements (256 MB): far above any model here, far below what a
    /// damaged shape could ask for.
    static let maxElements = 1 << 26

    static func fail(_ index: Int, _ node: Node, _ why: String) -> ModelError {
        .invalidGraph("node \(index) (\(node.operation.name)): \(why)")
    }

    /// An int32 constant input, or an error naming it.
    static func ints(_ graph: Graph, _ tensor: Int, _ index: Int, _ node: Node, _ what: String) throws -> [Int] {
        guard tensor >= 0, case let .int32(values)? = graph.tensors[tensor].constant else {
            throw fail(index, node, "\(what) must be a constant int32 tensor")
        }
        return values.map(Int.init)
    }

    static func broadcast(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = max(a.count, b.count)
        let pa = [Int](repeating: 1, count: rank - a.count) + a, pb = [Int](repeating: 1, count: rank - b.count) + b
        var out: [Int] = []
        for (x, y) in zip(pa, pb) {
            if x == y || y == 1 { out.append(x) } else if x == 1 { out.append(y) } else { return nil }
        }
        return out
    }

    /// The output shape of `node`; throws when inputs are missing, mis-shaped or inconsistent.
    static func outputShape(_ node: Node, index: Int, graph: Graph) throws -> [Int] {
        func input(_ i: Int) throws -> [Int] {
            guard i < node.inputs.count, node.inputs[i] >= 0 else { throw fail(index, node, "input \(i) is missing") }
            return graph.tensors[node.inputs[i]].shape
        }
        func optionalCount(_ i: Int) -> Int? {
            i < node.inputs.count && node.inputs[i] >= 0 ? graph.tensors[node.inputs[i]].elementCount : nil
        }
        func rank4(_ s: [Int], _ what: String) throws {
            guard s.count == 4, s.allSatisfy({ $0 > 0 }) else { throw fail(index, node, "\(what) shape \(s) is not 4-D") }
        }
        let declared = node.outputs.first.map { graph.tensors[$0].shape } ?? []
        var shape: [Int]
        switch node.operation {
        case let .conv2D(w, _):
            let x = try input(0), f = try input(1)
            try rank4(x, "input"); try rank4(f, "filter")
            guard f[3] == x[3] else { throw fail(index, node, "filter depth \(f[3]) for \(x[3]) input channels") }
            if let b = optionalCount(2), b != f[0] { throw fail(index, node, "bias of \(b) for \(f[0]) outputs") }
            let oh = w.vertical(input: x[1], filter: f[1]).0
            let ow = w.horizontal(input: x[2], filter: f[2]).0
            shape = [x[0], oh, ow, f[0]]
        case let .depthwiseConv2D(w, _, _):
            let x = try input(0), f = try input(1)
            try rank4(x, "input"); try rank4(f, "filter")
            guard f[0] == 1, f[3] % x[3] == 0 else { throw fail(index, node, "filter \(f) for \(x[3]) input channels") }
            if let b = optionalCount(2), b != f[3] { throw fail(index, node, "bias of \(b) for \(f[3]) outputs") }
            let oh = w.vertical(input: x[1], filter: f[1]).0
            let ow = w.horizontal(input: x[2], filter: f[2]).0
            shape = [x[0], oh, ow, f[3]]
        case let .fullyConnected(_, keep):
            let x = try input(0), wts = try input(1)
            guard wts.count == 2, wts[1] > 0, x.reduce(1, *) % wts[1] == 0 else {
                throw fail(index, node, "weights \(wts) for input \(x)")
            }
            if let b = optionalCount(2), b != wts[0] { throw fail(index, node, "bias of \(b) for \(wts[0]) outputs") }
            shape = keep ? Array(x.dropLast()) + [wts[0]] : [x.reduce(1, *) / wts[1], wts[0]]
        case let .transposeConv(w, _):
            let out = try ints(graph, node.inputs[0], index, node, "output shape")
            let f = try input(1), x = try input(2)
            try rank4(f, "filter"); try rank4(x, "input")
            guard out.count == 4, out[0] == x[0], out[3] == f[0], f[3] == x[3], out.allSatisfy({ $0 > 0 }) else {
                throw fail(index, node, "output shape \(out), filter \(f), input \(x)")
            }
            if let b = optionalCount(3), b != f[0] { throw fail(index, node, "bias of \(b) for \(f[0]) outputs") }
            _ = w
            shape = out
        case let .transposeConvBias(w):
            let x = try input(0), f = try input(1)
            try rank4(x, "input"); try rank4(f, "filter")
            guard f[3] == x[3], optionalCount(2) == f[0] else { throw fail(index, node, "filter \(f), input \(x), bias") }
            let oh = ReferenceTransposeConv.mediapipeGeometry(input: x[1], filter: f[1], stride: w.strideH, padding: w.padding).output
            let ow = ReferenceTransposeConv.mediapipeGeometry(input: x[2], filter: f[2], stride: w.strideW, padding: w.padding).output
            shape = [x[0], oh, ow, f[0]]
        case .add, .mul, .prelu:
            guard let s = broadcast(try input(0), try input(1)) else {
                throw fail(index, node, "shapes \(try input(0)) and \(try input(1)) do not broadcast")
            }
            shape = s
        case .relu, .relu6, .logistic, .hardSwish, .quantize, .softmax:
            shape = try input(0)
        case let .maxPool2D(w, _), let .averagePool2D(w, _):
            let x = try input(0)
            try rank4(x, "input")
            let oh = w.vertical(input: x[1], filter: w.filterH).0
            let ow = w.horizontal(input: x[2], filter: w.filterW).0
            shape = [x[0], oh, ow, x[3]]
        case let .mean(keep):
            let x = try input(0)
            let axes = try Set(ints(graph, node.inputs[1], index, node, "axes").map { $0 < 0 ? $0 + x.count : $0 })
            guard axes.allSatisfy({ $0 >= 0 && $0 < x.count }) else { throw fail(index, node, "axes \(axes) for rank \(x.count)") }
            shape = x.enumerated().compactMap { axes.contains($0.offset) ? (keep ? 1 : nil) : $0.element }
        case .pad:
            let x = try input(0)
            let p = try ints(graph, node.inputs[1], index, node, "paddings")
            guard p.count == 2 * x.count, p.allSatisfy({ $0 >= 0 && $0 < 1 << 16 }) else { throw fail(index, node, "paddings \(p) for rank \(x.count)") }
            shape = x.enumerated().map { $0.element + p[2 * $0.offset] + p[2 * $0.offset + 1] }
        case .reshape:
            shape = declared
            guard shape.reduce(1, *) == (try input(0)).reduce(1, *) else {
                throw fail(index, node, "cannot reshape \(try input(0)) to \(declared)")
            }
        case let .concatenation(axis, _):
            let first = try input(0)
            let a = axis < 0 ? axis + first.count : axis
            guard a >= 0, a < first.count else { throw fail(index, node, "axis \(axis) for rank \(first.count)") }
            shape = first
            shape[a] = 0
            for i in 0 ..< node.inputs.count {
                let s = try input(i)
                guard s.count == first.count, s.enumerated().allSatisfy({ $0.offset == a || $0.element == first[$0.offset] }) else {
                    throw fail(index, node, "input \(i) shape \(s) does not match \(first) off axis \(a)")
                }
                shape[a] += s[a]
            }
        case .resizeBilinear:
            let x = try input(0)
            try rank4(x, "input")
            let size = try ints(graph, node.inputs[1], index, node, "size")
            guard size.count == 2, size.allSatisfy({ $0 > 0 && $0 < 1 << 14 }) else { throw fail(index, node, "size \(size)") }
            shape = [x[0], size[0], size[1], x[3]]
        case let .depthToSpace(b):
            let x = try input(0)
            try rank4(x, "input")
            guard x[3] % (b * b) == 0 else { throw fail(index, node, "\(x[3]) channels for block \(b)") }
            shape = [x[0], x[1] * b, x[2] * b, x[3] / (b * b)]
        case .stridedSlice:
            let (_, _, sizes, kept) = try sliceGeometry(node, index: index, graph: graph)
            shape = zip(sizes, kept).compactMap { $1 ? $0 : nil }
        case .dequantize where node.inputs.first.map({ $0 >= 0 && graph.tensors[$0].type.isQuantized }) ?? false:
            shape = try input(0)
        case .dequantize, .densify:
            throw fail(index, node, "its input is not a constant (only weights can be dequantized or densified)")
        }
        let (count, overflow) = shape.reduce((1, false)) { acc, d in
            let (p, o) = acc.0.multipliedReportingOverflow(by: d)
            return (p, acc.1 || o)
        }
        guard shape.allSatisfy({ $0 > 0 }), !overflow, count <= maxElements else {
            throw fail(index, node, "output shape \(shape) is empty or too large")
        }
        // FULLY_CONNECTED and RESHAPE outputs may be declared with other ranks of the same size.
        let sameCount = declared.reduce(1, *) == count
        switch node.operation {
        case .fullyConnected, .reshape, .mean, .stridedSlice:
            guard declared.isEmpty || sameCount else { throw fail(index, node, "computes \(shape), the file declares \(declared)") }
            return declared.isEmpty ? shape : declared
        default:
            guard declared.isEmpty || declared == shape else { throw fail(index, node, "computes \(shape), the file declares \(declared)") }
            return shape
        }
    }

    /// Begin, stride and size per axis of a STRIDED_SLICE, and which axes are kept.
    static func sliceGeometry(_ node: Node, index: Int, graph: Graph) throws -> (begin: [Int], strides: [Int], sizes: [Int], kept: [Bool]) {
        guard case let .stridedSlice(beginMask, endMask, shrinkMask) = node.operation, node.inputs.count >= 4, node.inputs[0] >= 0 else {
            throw fail(index, node, "needs input, begin, end and strides")
        }
        let x = graph.tensors[node.inputs[0]].shape
        let begin = try ints(graph, node.inputs[1], index, node, "begin")
        let end = try ints(graph, node.inputs[2], index, node, "end")
        let strides = try ints(graph, node.inputs[3], index, node, "strides")
        guard begin.count == x.count, end.count == x.count, strides.count == x.count, strides.allSatisfy({ $0 != 0 }) else {
            throw fail(index, node, "begin/end/strides do not match rank \(x.count)")
        }
        var b: [Int] = [], sizes: [Int] = [], kept: [Bool] = []
        for axis in 0 ..< x.count {
            let dim = x[axis], s = strides[axis]
            func clamp(_ v: Int) -> Int {
                let v2 = v < 0 ? v + dim : v
                return s > 0 ? min(max(v2, 0), dim) : min(max(v2, -1), dim - 1)
            }
            var lo = beginMask & (1 << axis) != 0 ? (s > 0 ? 0 : dim - 1) : clamp(begin[axis])
            var hi = endMask & (1 << axis) != 0 ? (s > 0 ? dim : -1) : clamp(end[axis])
            let shrink = shrinkMask & (1 << axis) != 0
            if shrink {
                lo = clamp(begin[axis])
                hi = lo + 1
                guard lo >= 0, lo < dim else { throw fail(index, node, "shrink index \(begin[axis]) outside \(dim)") }
            }
            let size = s > 0 ? max(0, (hi - lo + s - 1) / s) : max(0, (lo - hi + (-s) - 1) / (-s))
            b.append(lo)
            sizes.append(shrink ? 1 : size)
            kept.append(!shrink)
        }
        return (b, strides, sizes, kept)
    }
}
