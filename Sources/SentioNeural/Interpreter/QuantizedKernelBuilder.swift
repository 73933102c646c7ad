/// Prepares the nodes of quantized models: int8 (TFLite's int8 scheme: per-channel symmetric
/// int8 filters, int32 biases, int8 activations with zero points) and the older uint8 scheme
/// (per-tensor uint8 filters with zero points), plus QUANTIZE and DEQUANTIZE between float,
/// uint8 and int8. Parameters that TFLite derives at its Prepare step (multipliers, activation
/// ranges, bias) are derived here once, at load; a scheme the kernels do not follow is refused
/// by name.
extension KernelBuilder {
    /// Whether `node` reads or writes quantized tensors (and so takes these kernels).
    func isQuantized(_ node: Node) -> Bool {
        (node.inputs + node.outputs).contains { $0 >= 0 && graph.tensors[$0].type.isQuantized }
    }

    private func info(_ t: Int) -> TensorInfo { graph.tensors[t] }

    private func quantization(_ t: Int, _ node: Node, index: Int) throws -> Quantization {
        guard let q = info(t).quantization else {
            throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): tensor \(t) '\(info(t).name)' has no quantization parameters")
        }
        return q
    }

    private func perTensor(_ t: Int, _ node: Node, index: Int) throws -> Quantization {
        let q = try quantization(t, node, index: index)
        guard !q.isPerChannel else {
            throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): tensor \(t) '\(info(t).name)' is quantized per channel")
        }
        return q
    }

    /// A constant int8/uint8 tensor's values copied into the model's shared memory.
    private func storedConstant(_ t: Int, _ node: Node, index: Int) throws -> (UnsafeRawPointer, ElementType) {
        let bytes: [UInt8]
        switch info(t).constant {
        case let .int8(v)?: bytes = v.map { UInt8(bitPattern: $0) }
        case let .uint8(v)?: bytes = v
        default: throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): weights '\(info(t).name)' are not constant int8 or uint8")
        }
        let p = UnsafeMutableRawPointer(weights.allocate((bytes.count + 3) / 4))
        p.copyMemory(from: bytes, byteCount: bytes.count)
        return (UnsafeRawPointer(p), info(t).type)
    }

    /// Per-output-channel parameters of a quantized convolution whose output channels run
    /// along `channelAxis` of the filter.
    private func convParameters(_ node: Node, index: Int, channels: Int, activation: Activation) throws -> QuantizedConvParameters {
        let (x, f, out) = (node.inputs[0], node.inputs[1], node.outputs[0])
        let xq = try perTensor(x, node, index: index), oq = try perTensor(out, node, index: index)
        let fq = try quantization(f, node, index: index)
        guard fq.scales.count == 1 || fq.scales.count == channels else {
            throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): \(fq.scales.count) filter scales for \(channels) output channels")
        }
        func perChannel<T>(_ values: [T]) -> [T] { values.count == 1 ? Array(repeating: values[0], count: channels) : values }
        var bias = [Int32](repeating: 0, count: channels)
        if node.inputs.count > 2, node.inputs[2] >= 0 {
            guard case let .int32(b)? = info(node.inputs[2]).constant, b.count == channels else {
                throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): the bias is not a constant int32 of \(channels) values")
            }
            bias = b
        }
        // As TFLite's Prepare steps compute them: convolutions in double throughout;
        // FULLY_CONNECTED (`GetQuantizedConvolutionMultipler`) multiplies the two scales in
        // float first, which moves some logits of EfficientNet-Lite0 by one step.
        let isFullyConnected = if case .fullyConnected = node.operation { true } else { false }
        let multipliers = perChannel(fq.scales).map {
            let product = isFullyConnected ? Double(xq.scale * $0) : Double(xq.scale) * Double($0)
            return QuantizedMultiplier(product / Double(oq.scale))
        }
        // Per-channel filter parameters run along the output channels: axis 0 of an OHWI
        // filter or FC weights, axis 3 of a depthwise filter.
        let isDepthwise = if case .depthwiseConv2D = node.operation { true } else { false }
        if fq.isPerChannel, fq.axis != (isDepthwise ? 3 : 0) {
            throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): filter quantized along axis \(fq.axis)")
        }
        // XNNPACK's scales: input scale · filter scale / output scale in float32.
        let floatScales = arithmetic == .xnnpack ? perChannel(fq.scales).map { xq.scale * $0 / oq.scale } : nil
        if let bad = floatScales?.first(where: { !$0.isFinite || $0 <= 0 }) {
            throw ModelError.unsupportedQuantization("node \(index) (\(node.operation.name)): requantization scale \(bad)")
        }
        return QuantizedConvParameters(inputZero: xq.zeroPoint, filterZeros: perChannel(fq.zeroPoints), bias: bias, multipliers: multipliers,
                                       outputZero: oq.zeroPoint, range: try oq.activationRange(activation, type: info(out).type),
                                       roundsOnce: isFullyConnected, floatScales: floatScales)
    }

    /// The kernel of a quantized node.
    func prepareQuantized(_ node: Node, index: Int, outputShape: [Int]) throws -> PreparedNode {
        let name = node.operation.name
        let inputs = node.inputs, output = node.outputs[0]
        let outType = info(output).type
        let inType = inputs.first.map { $0 >= 0 ? info($0).type : .float32 } ?? .float32
        func shape(_ i: Int) -> [Int] { shapes[inputs[i]] }
        func raw(_ b: Binding, _ t: Int) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(b.tensor(t).data) }
        func bound(_ make: @escaping (_ input: (Int) -> UnsafeMutableRawPointer, _ out: UnsafeMutableRawPointer) -> KernelRun) -> PreparedNode {
            PreparedNode(name: name) { b in
                Kernel(name: name, run: make({ raw(b, inputs[$0]) }, raw(b, output)))
            }
        }
        func unsupported(_ why: String) -> ModelError {
            .unsupportedQuantization("node \(index) (\(name)): \(why)")
        }
        /// Activations and weights of one of the two schemes (int8 with int8 filters, uint8
        /// with uint8 filters).
        func checkScheme(weights w: ElementType) throws {
            guard inType == outType, inType == w, inType.isQuantized else {
                throw unsupported("\(inType.rawValue) input, \(w.rawValue) weights, \(outType.rawValue) output")
            }
        }

        // Activations live in the interpreter's memory: a constant in their place (which
        // only a damaged or hand-made file has) is refused, as is a constant output.
        if let t = inputs.first, t >= 0, info(t).isConstant { throw unsupported("input 0 is a constant") }
        if info(output).isConstant { throw unsupported("the output is a constant") }
        switch node.operation {
        case let .conv2D(window, act):
            let (filter, wType) = try storedConstant(inputs[1], node, index: index)
            try checkScheme(weights: wType)
            let p = try convParameters(node, index: index, channels: shape(1)[0], activation: act)
            let (xShape, fShape) = (shape(0), shape(1))
            if choice == .fast, inType == .int8, let binder = FastQuantizedConv.prepare(
                input: xShape, filter: filter.assumingMemoryBound(to: Int8.self), filterShape: fShape, output: outputShape,
                window: window, parameters: p, memory: weights) {
                return PreparedNode(name: name) { b in Kernel(name: name, run: binder(raw(b, inputs[0]), raw(b, output), b.threads, b.scratch)) }
            }
            return bound { input, out in
                let x = input(0)
                return { _ in
                    if inType == .int8 {
                        QuantizedReferenceConv.conv2D(x: x.assumingMemoryBound(to: Int8.self), xShape: xShape, filter: filter.assumingMemoryBound(to: Int8.self),
                                                      filterShape: fShape, out: out.assumingMemoryBound(to: Int8.self), outShape: outputShape, window: window, parameters: p)
                    } else {
                        QuantizedReferenceConv.conv2D(x: x.assumingMemoryBound(to: UInt8.self), xShape: xShape, filter: filter.assumingMemoryBound(to: UInt8.self),
                                                      filterShape: fShape, out: out.assumingMemoryBound(to: UInt8.self), outShape: outputShape, window: window, parameters: p)
                    }
                }
            }
        case let .depthwiseConv2D(window, _, act):
            let (filter, wType) = try storedConstant(inputs[1], node, index: index)
            try checkScheme(weights: wType)
            let (xShape, fShape) = (shape(0), shape(1))
            let multiplier = fShape[3] / max(1, xShape[3])
            let p = try convParameters(node, index: index, channels: fShape[3], activation: act)
            if choice == .fast, inType == .int8, let binder = FastQuantizedDepthwise.prepare(
                input: xShape, filter: filter.assumingMemoryBound(to: Int8.self), filterShape: fShape, output: outputShape,
                window: window, multiplier: multiplier, parameters: p, memory: weights) {
                return bound { input, out in binder(input(0), out) }
            }
            return bound { input, out in
                let x = input(0)
                return { _ in
                    if inType == .int8 {
                        QuantizedReferenceConv.depthwise(x: x.assumingMemoryBound(to: Int8.self), xShape: xShape, filter: filter.assumingMemoryBound(to: Int8.self),
                                                         filterShape: fShape, out: out.assumingMemoryBound(to: Int8.self), outShape: outputShape, window: window,
                                                         multiplier: multiplier, parameters: p)
                    } else {
                        QuantizedReferenceConv.depthwise(x: x.assumingMemoryBound(to: UInt8.self), xShape: xShape, filter: filter.assumingMemoryBound(to: UInt8.self),
                                                         filterShape: fShape, out: out.assumingMemoryBound(to: UInt8.self), outShape: outputShape, window: window,
                                                         multiplier: multiplier, parameters: p)
                    }
                }
            }
        case let .fullyConnected(act, _):
            let (weightsData, wType) = try storedConstant(inputs[1], node, index: index)
            try checkScheme(weights: wType)
            let (outputs, depth) = (shape(1)[0], shape(1)[1])
            let batch = shape(0).reduce(1, *) / max(1, depth)
            let p = try convParameters(node, index: index, channels: outputs, activation: act)
            // A 1×1 convolution over `batch` pixels.
            if choice == .fast, inType == .int8, let binder = FastQuantizedConv.prepare(
                input: [batch, 1, 1, depth], filter: weightsData.assumingMemoryBound(to: Int8.self), filterShape: [outputs, 1, 1, depth],
                output: [batch, 1, 1, outputs], window: Window(), parameters: p, memory: weights) {
                return PreparedNode(name: name) { b in Kernel(name: name, run: binder(raw(b, inputs[0]), raw(b, output), b.threads, b.scratch)) }
            }
            return bound { input, out in
                let x = input(0)
                return { _ in
                    if inType == .int8 {
                        QuantizedReferenceConv.fullyConnected(x: x.assumingMemoryBound(to: Int8.self), batch: batch, inputs: depth,
                                                              weights: weightsData.assumingMemoryBound(to: Int8.self), outputs: outputs,
                                                              out: out.assumingMemoryBound(to: Int8.self), parameters: p)
                    } else {
                        QuantizedReferenceConv.fullyConnected(x: x.assumingMemoryBound(to: UInt8.self), batch: batch, inputs: depth,
                                                              weights: weightsData.assumingMemoryBound(to: UInt8.self), outputs: outputs,
                                                              out: out.assumingMemoryBound(to: UInt8.self), parameters: p)
                    }
                }
            }
        case let .add(act):
            guard shape(0) == shape(1), shape(0) == outputShape else { throw unsupported("broadcasting (shapes \(shape(0)) and \(shape(1)))") }
            guard info(inputs[1]).type == inType, inType == outType, !info(inputs[0]).isConstant, !info(inputs[1]).isConstant else {
                throw unsupported("inputs \(inType.rawValue) and \(info(inputs[1]).type.rawValue), output \(outType.rawValue)")
            }
            let oq = try perTensor(output, node, index: index)
            let p = try QuantizedAddParameters(input1: try perTensor(inputs[0], node, index: index), input2: try perTensor(inputs[1], node, index: index),
                                           output: oq, range: try oq.activationRange(act, type: outType), arithmetic: arithmetic)
            let count = outputShape.reduce(1, *)
            return bound { input, out in
                let (a, b) = (input(0), input(1))
                if choice == .fast, inType == .int8 {
                    return { _ in FastQuantizedElementwise.add(a.assumingMemoryBound(to: Int8.self), b.assumingMemoryBound(to: Int8.self),
                                                              out: out.assumingMemoryBound(to: Int8.self), count: count, parameters: p) }
                }
                return { _ in
                    if inType == .int8 {
                        QuantizedReference.add(a.assumingMemoryBound(to: Int8.self), b.assumingMemoryBound(to: Int8.self),
                                               out: out.assumingMemoryBound(to: Int8.self), count: count, parameters: p)
                    } else {
                        QuantizedReference.add(a.assumingMemoryBound(to: UInt8.self), b.assumingMemoryBound(to: UInt8.self),
                                               out: out.assumingMemoryBound(to: UInt8.self), count: count, parameters: p)
                    }
                }
            }
        case let .averagePool2D(window, act), let .maxPool2D(window, act):
            let isMax = if case .maxPool2D = node.operation { true } else { false }
            let (xq, oq) = (try perTensor(inputs[0], node, index: index), try perTensor(output, node, index: index))
            guard inType == outType, xq == oq else { throw unsupported("input and output quantized differently") }
            let range = try oq.activationRange(act, type: outType)
            let xShape = shape(0)
            return bound { input, out in
                let x = input(0)
                return { _ in
                    if inType == .int8 {
                        QuantizedReference.pool(x: x.assumingMemoryBound(to: Int8.self), xShape: xShape, out: out.assumingMemoryBound(to: Int8.self),
                                                outShape: outputShape, window: window, range: range, max: isMax)
                    } else {
                        QuantizedReference.pool(x: x.assumingMemoryBound(to: UInt8.self), xShape: xShape, out: out.assumingMemoryBound(to: UInt8.self),
                                                outShape: outputShape, window: window, range: range, max: isMax)
                    }
                }
            }
        case .reshape:
            guard inType == outType else { throw unsupported("reshapes \(inType.rawValue) into \(outType.rawValue)") }
            let bytes = outputShape.reduce(1, *) * outType.size
            return bound { input, out in
                let x = input(0)
                return { _ in if x != out { out.copyMemory(from: x, byteCount: bytes) } }
            }
        case .quantize:
            let oq = try perTensor(output, node, index: index)
            guard outType.isQuantized else { throw unsupported("output is \(outType.rawValue)") }
            let count = outputShape.reduce(1, *)
            if inType == .float32 {
                return bound { input, out in
                    let x = input(0).assumingMemoryBound(to: Float.self)
                    return { _ in
                        if outType == .int8 {
                            QuantizedReference.quantize(x, out: out.assumingMemoryBound(to: Int8.self), count: count, quantization: oq, type: outType)
                        } else {
                            QuantizedReference.quantize(x, out: out.assumingMemoryBound(to: UInt8.self), count: count, quantization: oq, type: outType)
                        }
                    }
                }
            }
            guard inType.isQuantized else { throw unsupported("QUANTIZE of \(inType.rawValue)") }
            // An 8-bit value has 256 possible values: each one's requantization (TFLite's
            // `Requantize` arithmetic) is tabulated once and looked up.
            let xq = try perTensor(inputs[0], node, index: index)
            let multiplier = QuantizedMultiplier(Double(xq.scale) / Double(oq.scale))
            let range = outType.integerRange
            let table: [UInt8] = (0 ... 255).map { byte in
                let stored = inType == .int8 ? Int32(Int8(bitPattern: UInt8(byte))) : Int32(byte)
                let v = min(max(multiplier.apply(stored - xq.zeroPoint) &+ oq.zeroPoint, range.lowerBound), range.upperBound)
                return UInt8(truncatingIfNeeded: v)
            }
            return bound { input, out in
                let (x, y) = (input(0).assumingMemoryBound(to: UInt8.self), out.assumingMemoryBound(to: UInt8.self))
                return { _ in
                    table.withUnsafeBufferPointer { t in
                        for i in 0 ..< count { y[i] = t[Int(x[i])] }
                    }
                }
            }
        case .dequantize:
            guard outType == .float32 else { throw unsupported("output is \(outType.rawValue)") }
            let xq = try perTensor(inputs[0], node, index: index)
            let count = outputShape.reduce(1, *)
            return bound { input, out in
                let (x, y) = (input(0), out.assumingMemoryBound(to: Float.self))
                return { _ in
                    if inType == .int8 {
                        QuantizedReference.dequantize(x.assumingMemoryBound(to: Int8.self), out: y, count: count, quantization: xq)
                    } else {
                        QuantizedReference.dequantize(x.assumingMemoryBound(to: UInt8.self), out: y, count: count, quantization: xq)
                    }
                }
            }
        case let .softmax(beta):
            guard inType == outType else { throw unsupported("\(inType.rawValue) input, \(outType.rawValue) output") }
            let (xq, oq) = (try perTensor(inputs[0], node, index: index), try perTensor(output, node, index: index))
            let depth = outputShape.last ?? 1
            let rows = outputShape.reduce(1, *) / max(1, depth)
            guard let fixed = QuantizedSoftmax(beta: beta, input: xq, output: oq, type: outType) else {
                throw unsupported("output scale \(oq.scale) and zero point \(oq.zeroPoint) (TFLite's 8-bit SOFTMAX writes 1/256 from the type's minimum)")
            }
            return bound { input, out in
                let x = input(0)
                return { _ in
                    if inType == .int8 {
                        fixed.run(x.assumingMemoryBound(to: Int8.self), out: out.assumingMemoryBound(to: Int8.self), rows: rows, depth: depth)
                    } else {
                        fixed.run(x.assumingMemoryBound(to: UInt8.self), out: out.assumingMemoryBound(to: UInt8.self), rows: rows, depth: depth)
                    }
                }
            }
        default:
            throw ModelError.unsupportedOperator(name: "\(name) on \(inType.rawValue) tensors", node: index)
        }
    }
}
