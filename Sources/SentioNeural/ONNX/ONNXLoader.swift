/// Loads an ONNX model into the engine's ``Graph``.
///
/// ONNX computes in NCHW; the engine in NHWC. The loader converts at load time instead of
/// transposing at run time: a rank-4 graph input `[N, C, H, W]` becomes an engine input
/// `[N, H, W, C]`, convolution weights `[O, I, KH, KW]` become `[O, KH, KW, I]`, per-channel
/// constants (`[C, 1, 1]`, `[1, C, 1, 1]`) become `[C]` (broadcast over the last axis), and a
/// `Flatten` of an image tensor is a reshape whose following `Gemm` has its weight columns put
/// in H·W·C order. A `BatchNormalization` that reads a convolution alone is folded into it.
/// So the caller feeds images NHWC, as for every other model, and rank-4 outputs come out NHWC.
///
/// Operators: Conv (group 1 or depthwise), BatchNormalization, PRelu, Relu, LeakyRelu,
/// Sigmoid, Clip (as ReLU6 or ReLU), Add/Sub/Mul/Div (with a constant or between tensors of
/// one shape), Gemm, MatMul (constant right side), Flatten, Reshape (to `[N, -1]`),
/// GlobalAveragePool, MaxPool, AveragePool, Concat (channels), Softmax, Dropout, Identity.
/// Any other is refused at load by name (``ModelError/unsupportedOperator(name:node:)``).
public enum ONNXLoader {
    /// Whether the bytes look like an ONNX model (see ``ONNXModel/recognizes(_:)``).
    public static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool { ONNXModel.recognizes(bytes) }

    public static func load(_ file: MappedFile) throws -> Graph {
        let model = try ONNXModel(file.bytes)
        var builder = Builder(graph: model.graph)
        return try builder.build(format: "ONNX IR \(model.irVersion), opset \(model.opset)")
    }

    /// A value of the ONNX graph as the engine holds it.
    struct Value {
        var tensor: Int
        /// The engine's shape (NHWC for images).
        var shape: [Int]
        /// Whether this is a rank-4 image tensor ONNX sees as NCHW.
        var image: Bool
        /// Set on the output of a Flatten of an image `[N, C, H, W]`: its C, H and W, so that a
        /// Gemm reading it reorders its weights.
        var flattened: (c: Int, h: Int, w: Int)?
    }

    struct Builder {
        let graph: ONNXGraph
        var tensors: [TensorInfo] = []
        var nodes: [Node] = []
        var values: [String: Value] = [:]
        /// How many nodes read each value (a convolution's BatchNormalization is folded only
        /// when it is the convolution's one reader).
        var readers: [String: Int] = [:]
        /// Values already computed by a node folded into the one before it.
        var folded: Set<Int> = []

        init(graph: ONNXGraph) {
            self.graph = graph
            for node in graph.nodes { for input in node.inputs where !input.isEmpty { readers[input, default: 0] += 1 } }
            for output in graph.outputs { readers[output.name, default: 0] += 1 }
        }

        mutating func build(format: String) throws -> Graph {
            var inputs: [Int] = []
            for input in graph.inputs where graph.initializers[input.name] == nil {
                let dims = input.shape.map { $0 ?? 1 }
                guard !dims.isEmpty, dims.count <= 6, dims.allSatisfy({ $0 > 0 && $0 <= 1 << 20 }),
                      dims.reduce(1, *) <= ShapeInference.maxElements else {
                    throw ModelError.malformed("ONNX input \(input.name) has no fixed shape of a size the engine runs (\(input.shape))")
                }
                let image = dims.count == 4
                let shape = image ? [dims[0], dims[2], dims[3], dims[1]] : dims
                let index = add(TensorInfo(name: input.name, shape: shape, type: .float32))
                values[input.name] = Value(tensor: index, shape: shape, image: image)
                inputs.append(index)
            }
            guard !inputs.isEmpty else { throw ModelError.malformed("ONNX graph has no input that is not a weight") }
            for (i, node) in graph.nodes.enumerated() where !folded.contains(i) {
                try convert(node, index: i)
            }
            let outputs = try graph.outputs.map { output -> Int in
                guard let value = values[output.name] else { throw ModelError.malformed("ONNX output \(output.name) is computed by no node") }
                return value.tensor
            }
            let result = Graph(tensors: tensors, nodes: nodes, inputs: inputs, outputs: outputs, format: format)
            try result.validateIndices()
            return result
        }

        mutating func add(_ tensor: TensorInfo) -> Int {
            tensors.append(tensor)
            return tensors.count - 1
        }

        func fail(_ node: ONNXNode, _ index: Int, _ why: String) -> ModelError {
            .invalidGraph("ONNX node \(index) (\(node.opType) \(node.name)): \(why)")
        }

        /// A computed input of a node.
        func value(_ node: ONNXNode, _ index: Int, _ i: Int) throws -> Value {
            guard i < node.inputs.count, let v = values[node.inputs[i]] else {
                throw fail(node, index, "input \(i) (\(i < node.inputs.count ? node.inputs[i] : "missing")) is not computed before it")
            }
            return v
        }

        /// A constant input of a node (an initializer, or a Constant node's value).
        func constant(_ node: ONNXNode, _ index: Int, _ i: Int) throws -> ONNXTensor {
            guard i < node.inputs.count, let t = graph.initializers[node.inputs[i]] else {
                throw fail(node, index, "input \(i) must be a constant (an initializer)")
            }
            return t
        }

        func isConstant(_ node: ONNXNode, _ i: Int) -> Bool { i < node.inputs.count && graph.initializers[node.inputs[i]] != nil }

        mutating func floatConstant(_ name: String, _ values: [Float], shape: [Int]) -> Int {
            add(TensorInfo(name: name, shape: shape, type: .float32, constant: .float32(values)))
        }

        /// Appends a node computing `output` (an ONNX name) of `shape`.
        @discardableResult
        mutating func emit(_ operation: Operator, _ inputs: [Int], output: String, shape: [Int], image: Bool,
                           flattened: (c: Int, h: Int, w: Int)? = nil) -> Value {
            let index = add(TensorInfo(name: output, shape: shape, type: .float32))
            nodes.append(Node(operation: operation, inputs: inputs, outputs: [index]))
            let v = Value(tensor: index, shape: shape, image: image, flattened: flattened)
            values[output] = v
            return v
        }

        /// A per-channel (or scalar) constant as the engine broadcasts it against `like`: an
        /// image's `[C,1,1]`/`[1,C,1,1]` becomes `[C]`; other shapes must already broadcast.
        func channelValues(_ t: ONNXTensor, like x: Value, _ node: ONNXNode, _ index: Int) throws -> (values: [Float], shape: [Int]) {
            if t.elementCount == 1 { return ([t.floats.first ?? 0], [1]) }
            let channels = x.shape.last ?? 0
            if x.image {
                let nonUnit = t.dims.filter { $0 != 1 }
                guard nonUnit == [channels], t.dims.count <= 4,
                      t.dims.count < 3 || t.dims[t.dims.count - 1] == 1 && t.dims[t.dims.count - 2] == 1 || t.dims.count == 1 else {
                    throw fail(node, index, "a constant of shape \(t.dims) against an image of \(channels) channels")
                }
                return (t.floats, [channels])
            }
            guard ShapeInference.broadcast(x.shape, t.dims) == x.shape else { throw fail(node, index, "a constant of shape \(t.dims) against \(x.shape)") }
            return (t.floats, t.dims)
        }

        mutating func convert(_ node: ONNXNode, index: Int) throws {
            guard node.domain.isEmpty || node.domain == "ai.onnx", let output = node.outputs.first, !output.isEmpty else {
                throw ModelError.unsupportedOperator(name: "ONNX \(node.domain.isEmpty ? "" : node.domain + ".")\(node.opType)", node: index)
            }
            switch node.opType {
            case "Conv": try conv(node, index)
            case "BatchNormalization":
                let x = try value(node, index, 0)
                let (scale, shift) = try batchNorm(node, index)
                guard scale.count == (x.shape.last ?? 0) else { throw fail(node, index, "\(scale.count) channels for \(x.shape)") }
                let s = floatConstant(output + "/scale", scale, shape: [scale.count])
                let b = floatConstant(output + "/shift", shift, shape: [shift.count])
                let scaled = emit(.mul(.none), [x.tensor, s], output: output + "/scaled", shape: x.shape, image: x.image, flattened: x.flattened)
                emit(.add(.none), [scaled.tensor, b], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
            case "PRelu":
                let x = try value(node, index, 0)
                let (slope, shape) = try channelValues(try constant(node, index, 1), like: x, node, index)
                emit(.prelu, [x.tensor, floatConstant(output + "/slope", slope, shape: shape)], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
            case "Relu", "Sigmoid":
                let x = try value(node, index, 0)
                emit(node.opType == "Relu" ? .relu : .logistic, [x.tensor], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
            case "LeakyRelu":
                let x = try value(node, index, 0)
                let alpha = floatConstant(output + "/alpha", [node.float("alpha", default: 0.01)], shape: [1])
                emit(.prelu, [x.tensor, alpha], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
            case "Clip":
                let x = try value(node, index, 0)
                // opset ≥ 11: min and max are inputs; before, attributes.
                let low = isConstant(node, 1) ? try constant(node, index, 1).floats.first : node.attributes["min"]?.float
                let high = isConstant(node, 2) ? try constant(node, index, 2).floats.first : node.attributes["max"]?.float
                switch (low, high) {
                case (0?, 6?): emit(.relu6, [x.tensor], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
                case (0?, nil): emit(.relu, [x.tensor], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
                default: throw ModelError.unsupportedOperator(name: "ONNX Clip to [\(low.map { "\($0)" } ?? "-∞"), \(high.map { "\($0)" } ?? "∞")]", node: index)
                }
            case "Add", "Sub", "Mul", "Div": try arithmetic(node, index)
            case "Dropout", "Identity":
                values[output] = try value(node, index, 0)
            case "Flatten", "Reshape": try flatten(node, index)
            case "Gemm", "MatMul": try gemm(node, index)
            case "GlobalAveragePool":
                let x = try value(node, index, 0)
                guard x.image else { throw fail(node, index, "needs an image input") }
                let axes = add(TensorInfo(name: output + "/axes", shape: [2], type: .int32, constant: .int32([1, 2])))
                emit(.mean(keepDims: true), [x.tensor, axes], output: output, shape: [x.shape[0], 1, 1, x.shape[3]], image: true)
            case "MaxPool", "AveragePool":
                let x = try value(node, index, 0)
                guard x.image else { throw fail(node, index, "needs an image input") }
                guard let kernel = node.ints("kernel_shape"), kernel.count == 2 else { throw fail(node, index, "kernel_shape must have two values") }
                if node.opType == "AveragePool", node.int("count_include_pad", default: 0) != 0 {
                    throw ModelError.unsupportedOperator(name: "ONNX AveragePool with count_include_pad", node: index)
                }
                let window = try self.window(node, index, filter: kernel)
                let (oh, _) = window.vertical(input: x.shape[1], filter: kernel[0])
                let (ow, _) = window.horizontal(input: x.shape[2], filter: kernel[1])
                guard oh > 0, ow > 0 else { throw fail(node, index, "an empty output") }
                let op: Operator = node.opType == "MaxPool" ? .maxPool2D(window, .none) : .averagePool2D(window, .none)
                emit(op, [x.tensor], output: output, shape: [x.shape[0], oh, ow, x.shape[3]], image: true)
            case "Concat":
                let parts = try (0 ..< node.inputs.count).map { try value(node, index, $0) }
                guard let first = parts.first else { throw fail(node, index, "no inputs") }
                var axis = node.int("axis", default: 1)
                let rank = first.shape.count
                if axis < 0 { axis += rank }
                if first.image { axis = [0, 3, 1, 2][min(max(axis, 0), 3)] }  // NCHW axis → NHWC axis
                guard axis >= 0, axis < rank, parts.allSatisfy({ $0.shape.count == rank && $0.image == first.image }) else {
                    throw fail(node, index, "inputs of different ranks or layouts")
                }
                var shape = first.shape
                shape[axis] = parts.reduce(0) { $0 + $1.shape[axis] }
                emit(.concatenation(axis: axis, .none), parts.map(\.tensor), output: output, shape: shape, image: first.image)
            case "Softmax":
                let x = try value(node, index, 0)
                let axis = node.int("axis", default: -1)
                guard !x.image, axis == -1 || axis == x.shape.count - 1 else { throw fail(node, index, "softmax over an axis other than the last") }
                emit(.softmax(beta: 1), [x.tensor], output: output, shape: x.shape, image: false)
            default:
                throw ModelError.unsupportedOperator(name: "ONNX \(node.opType)", node: index)
            }
        }

        /// BatchNormalization's inference transform as a scale and a shift per channel.
        func batchNorm(_ node: ONNXNode, _ index: Int) throws -> (scale: [Float], shift: [Float]) {
            let gamma = try constant(node, index, 1).floats, beta = try constant(node, index, 2).floats
            let mean = try constant(node, index, 3).floats, variance = try constant(node, index, 4).floats
            guard beta.count == gamma.count, mean.count == gamma.count, variance.count == gamma.count else {
                throw fail(node, index, "scale, bias, mean and variance of different sizes")
            }
            let epsilon = node.float("epsilon", default: 1e-5)
            let scale = zip(gamma, variance).map { $0 / (($1 + epsilon).squareRoot()) }
            let shift = (0 ..< gamma.count).map { beta[$0] - mean[$0] * scale[$0] }
            return (scale, shift)
        }

        func window(_ node: ONNXNode, _ index: Int, filter: [Int]) throws -> Window {
            let strides = node.ints("strides") ?? [1, 1]
            let dilations = node.ints("dilations") ?? [1, 1]
            guard strides.count == 2, dilations.count == 2, (strides + dilations).allSatisfy({ $0 >= 1 && $0 <= 64 }) else {
                throw fail(node, index, "strides \(strides), dilations \(dilations)")
            }
            var window = Window(strideH: strides[0], strideW: strides[1], dilationH: dilations[0], dilationW: dilations[1],
                                filterH: filter[0], filterW: filter[1])
            switch node.string("auto_pad") ?? "NOTSET" {
            case "SAME_UPPER": window.padding = .same
            case "VALID": window.padding = .valid
            case "NOTSET", "":
                // pads: [top, left, bottom, right] (x1_begin, x2_begin, x1_end, x2_end).
                let pads = node.ints("pads") ?? [0, 0, 0, 0]
                guard pads.count == 4, pads.allSatisfy({ $0 >= 0 && $0 <= 1024 }) else { throw fail(node, index, "pads \(pads)") }
                window.padding = pads.allSatisfy({ $0 == 0 }) ? .valid : .explicit(top: pads[0], bottom: pads[2], left: pads[1], right: pads[3])
            case let other:
                throw ModelError.unsupportedOperator(name: "ONNX \(node.opType) with auto_pad \(other)", node: index)
            }
            return window
        }

        mutating func conv(_ node: ONNXNode, _ index: Int) throws {
            let x = try value(node, index, 0)
            let w = try constant(node, index, 1)
            guard x.image, w.dims.count == 4 else { throw fail(node, index, "a 2-D convolution needs an image and a [O, I, KH, KW] weight") }
            let (o, ig, kh, kw) = (w.dims[0], w.dims[1], w.dims[2], w.dims[3])
            let c = x.shape[3], group = node.int("group", default: 1)
            guard o > 0, kh > 0, kw > 0, group >= 1 else { throw fail(node, index, "weight \(w.dims), group \(group)") }
            var bias = isConstant(node, 2) ? try constant(node, index, 2).floats : [Float](repeating: 0, count: o)
            guard bias.count == o else { throw fail(node, index, "a bias of \(bias.count) for \(o) outputs") }
            var weights = w.floats
            var output = node.outputs[0]
            // A BatchNormalization that alone reads this convolution is folded into its weights.
            if readers[output] == 1, let next = graph.nodes.indices.first(where: { graph.nodes[$0].opType == "BatchNormalization" && graph.nodes[$0].inputs.first == output }),
               !graph.outputs.contains(where: { $0.name == output }) {
                let (scale, shift) = try batchNorm(graph.nodes[next], next)
                guard scale.count == o else { throw fail(graph.nodes[next], next, "\(scale.count) channels after a convolution of \(o)") }
                let per = weights.count / o
                for oc in 0 ..< o {
                    for k in 0 ..< per { weights[oc * per + k] *= scale[oc] }
                    bias[oc] = bias[oc] * scale[oc] + shift[oc]
                }
                folded.insert(next)
                output = graph.nodes[next].outputs.first ?? output
            }
            let window = try self.window(node, index, filter: [kh, kw])
            let (oh, _) = window.vertical(input: x.shape[1], filter: kh)
            let (ow, _) = window.horizontal(input: x.shape[2], filter: kw)
            guard oh > 0, ow > 0 else { throw fail(node, index, "an empty output for input \(x.shape)") }
            let biasIndex = floatConstant(output + "/bias", bias, shape: [o])
            if group == 1 {
                guard ig == c else { throw fail(node, index, "weight for \(ig) input channels, the input has \(c)") }
                // [O, I, KH, KW] → [O, KH, KW, I]
                var filter = [Float](repeating: 0, count: weights.count)
                for oc in 0 ..< o { for ic in 0 ..< c { for y in 0 ..< kh { for xx in 0 ..< kw {
                    filter[((oc * kh + y) * kw + xx) * c + ic] = weights[((oc * c + ic) * kh + y) * kw + xx]
                } } } }
                let f = floatConstant(output + "/filter", filter, shape: [o, kh, kw, c])
                emit(.conv2D(window, .none), [x.tensor, f, biasIndex], output: output, shape: [x.shape[0], oh, ow, o], image: true)
            } else if group == c, ig == 1, o % c == 0 {
                // Depthwise: [C·M, 1, KH, KW] → [1, KH, KW, C·M]; output channel c·M + m reads input c, as the engine's.
                var filter = [Float](repeating: 0, count: weights.count)
                for oc in 0 ..< o { for y in 0 ..< kh { for xx in 0 ..< kw {
                    filter[(y * kw + xx) * o + oc] = weights[(oc * kh + y) * kw + xx]
                } } }
                let f = floatConstant(output + "/filter", filter, shape: [1, kh, kw, o])
                emit(.depthwiseConv2D(window, multiplier: o / c, .none), [x.tensor, f, biasIndex], output: output, shape: [x.shape[0], oh, ow, o], image: true)
            } else {
                throw ModelError.unsupportedOperator(name: "ONNX Conv with group \(group) of \(c) channels", node: index)
            }
        }

        mutating func arithmetic(_ node: ONNXNode, _ index: Int) throws {
            let output = node.outputs[0]
            let constantSide = isConstant(node, 1) ? 1 : isConstant(node, 0) ? 0 : nil
            if let side = constantSide {
                let x = try value(node, index, 1 - side)
                var (c, shape) = try channelValues(try constant(node, index, side), like: x, node, index)
                switch (node.opType, side) {
                case ("Sub", 1): c = c.map { -$0 }                                   // x − c = x + (−c)
                case ("Div", 1):
                    guard c.allSatisfy({ $0 != 0 }) else { throw fail(node, index, "division by a zero constant") }
                    c = c.map { 1 / $0 }                                             // x / c = x · (1/c)
                case ("Sub", _), ("Div", _):
                    throw ModelError.unsupportedOperator(name: "ONNX \(node.opType) of a constant by a tensor", node: index)
                default: break
                }
                let k = floatConstant(output + "/constant", c, shape: shape)
                let op: Operator = node.opType == "Add" || node.opType == "Sub" ? .add(.none) : .mul(.none)
                emit(op, [x.tensor, k], output: output, shape: x.shape, image: x.image, flattened: x.flattened)
                return
            }
            let a = try value(node, index, 0), b = try value(node, index, 1)
            guard a.image == b.image, let shape = ShapeInference.broadcast(a.shape, b.shape) else {
                throw fail(node, index, "tensors of shapes \(a.shape) and \(b.shape)")
            }
            switch node.opType {
            case "Add": emit(.add(.none), [a.tensor, b.tensor], output: output, shape: shape, image: a.image)
            case "Mul": emit(.mul(.none), [a.tensor, b.tensor], output: output, shape: shape, image: a.image)
            default: throw ModelError.unsupportedOperator(name: "ONNX \(node.opType) of two tensors", node: index)
            }
        }

        mutating func flatten(_ node: ONNXNode, _ index: Int) throws {
            let x = try value(node, index, 0)
            let output = node.outputs[0]
            if node.opType == "Flatten" {
                guard node.int("axis", default: 1) == 1 else { throw ModelError.unsupportedOperator(name: "ONNX Flatten with axis \(node.int("axis", default: 1))", node: index) }
            } else {
                // Reshape to [N, -1] (or [0, -1]): a flatten; any other target is not supported.
                let target = try constant(node, index, 1).integers
                guard target.count == 2, target[1] == -1 || Int(target[1]) == x.shape.dropFirst().reduce(1, *),
                      target[0] == 0 || Int(target[0]) == x.shape[0] else {
                    throw ModelError.unsupportedOperator(name: "ONNX Reshape to \(target)", node: index)
                }
            }
            let count = x.shape.dropFirst().reduce(1, *)
            let shapeIndex = add(TensorInfo(name: output + "/shape", shape: [2], type: .int32, constant: .int32([Int32(x.shape[0]), Int32(count)])))
            let flattened = x.image && !(x.shape[1] == 1 && x.shape[2] == 1) ? (c: x.shape[3], h: x.shape[1], w: x.shape[2]) : nil
            emit(.reshape, [x.tensor, shapeIndex], output: output, shape: [x.shape[0], count], image: false, flattened: flattened)
        }

        mutating func gemm(_ node: ONNXNode, _ index: Int) throws {
            let a = try value(node, index, 0)
            let b = try constant(node, index, 1)
            let output = node.outputs[0]
            guard !a.image, a.shape.count == 2, b.dims.count == 2 else { throw fail(node, index, "needs a [N, K] input and a [K, M] constant") }
            if node.opType == "Gemm", node.int("transA", default: 0) != 0 { throw ModelError.unsupportedOperator(name: "ONNX Gemm with transA", node: index) }
            let transB = node.opType == "Gemm" && node.int("transB", default: 0) != 0
            let (outCount, inCount) = transB ? (b.dims[0], b.dims[1]) : (b.dims[1], b.dims[0])
            guard inCount == a.shape[1] else { throw fail(node, index, "weights for \(inCount) inputs, the input has \(a.shape[1])") }
            let alpha = node.opType == "Gemm" ? node.float("alpha", default: 1) : 1
            let beta = node.opType == "Gemm" ? node.float("beta", default: 1) : 1
            // Engine weights [Out, In], their columns in the engine's order of the input: after a
            // Flatten of an image, the engine's element k is (h, w, c), ONNX's (c, h, w).
            var weights = [Float](repeating: 0, count: outCount * inCount)
            for k in 0 ..< inCount {
                var column = k
                if let f = a.flattened { column = (k % f.c) * f.h * f.w + k / f.c }
                for o in 0 ..< outCount {
                    weights[o * inCount + k] = alpha * b.floats[transB ? o * inCount + column : column * outCount + o]
                }
            }
            var bias = [Float](repeating: 0, count: outCount)
            if isConstant(node, 2) {
                let c = try constant(node, index, 2)
                guard c.elementCount == outCount || c.elementCount == 1 else { throw fail(node, index, "a bias of \(c.dims) for \(outCount) outputs") }
                bias = c.elementCount == 1 ? [Float](repeating: beta * c.floats[0], count: outCount) : c.floats.map { beta * $0 }
            } else if node.inputs.count > 2, !node.inputs[2].isEmpty {
                throw ModelError.unsupportedOperator(name: "ONNX Gemm with a computed bias", node: index)
            }
            let w = floatConstant(output + "/weights", weights, shape: [outCount, inCount])
            let bi = floatConstant(output + "/bias", bias, shape: [outCount])
            emit(.fullyConnected(.none, keepNumDims: false), [a.tensor, w, bi], output: output, shape: [a.shape[0], outCount], image: false)
        }
    }
}
