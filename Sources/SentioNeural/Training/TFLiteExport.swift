/// Writes a trained ``SequentialNetwork`` as a TFLite model (schema v3, float32) that
/// SentioNeural and LiteRT both run: CONV_2D and FULLY_CONNECTED with a following ReLU fused,
/// MAX_POOL_2D, a RESHAPE before the first dense layer, and SOFTMAX at the end, so the model's
/// output is the class probabilities. Dropout exists only in training and is left out.
extension SequentialNetwork {
    public func tfliteModel(description: String = "Sentio SequentialNetwork") throws -> [UInt8] {
        typealias W = FlatBufferWriter
        var tensors: [W.Table] = []
        var buffers: [W.Table] = [W.Table([])]  // buffer 0: the empty sentinel
        var operators: [W.Table] = []
        var codes: [Int32] = []

        func tensor(_ name: String, shape: [Int], type: Int8 = 0, data: [UInt8]? = nil) -> Int32 {
            var buffer: UInt32 = 0
            if let data {
                buffers.append(W.Table([.bytes(data, alignment: 16)]))
                buffer = UInt32(buffers.count - 1)
            }
            tensors.append(W.Table([.int32s(shape.map(Int32.init)), .int8(type), .uint32(buffer), .string(name)]))
            return Int32(tensors.count - 1)
        }
        func floats(_ v: [Float]) -> [UInt8] { v.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian, Array.init) } }
        func op(_ code: Int32, inputs: [Int32], outputs: [Int32], optionsType: UInt8, options: W.Table?) {
            if !codes.contains(code) { codes.append(code) }
            let index = UInt32(codes.firstIndex(of: code)!)
            operators.append(W.Table([.uint32(index), .int32s(inputs), .int32s(outputs),
                                      optionsType == 0 ? nil : .uint8(optionsType), options.map { .table($0) }]))
        }

        var shape = inputShape
        var current = tensor("input", shape: [1] + inputShape)
        let input = current
        var i = 0
        while i < layers.count {
            let layer = layers[i]
            let fusedReLU = i + 1 < layers.count && layers[i + 1] is ReLULayer
            let activation: Int8 = fusedReLU ? 1 : 0
            let next = layer.outputShape(shape)
            switch layer {
            case let conv as Conv2DLayer:
                let (w, b) = (conv.parameters[0], conv.parameters[1])
                let filter = tensor("conv\(i)/kernel", shape: w.shape, data: floats(w.value))
                let bias = tensor("conv\(i)/bias", shape: b.shape, data: floats(b.value))
                let out = tensor("conv\(i)", shape: [1] + next)
                // Conv2DOptions: padding VALID, stride 1×1, activation.
                op(3, inputs: [current, filter, bias], outputs: [out], optionsType: 1,
                   options: W.Table([.int8(1), .int32(1), .int32(1), .int8(activation), .int32(1), .int32(1)]))
                current = out
            case is MaxPoolLayer:
                let out = tensor("pool\(i)", shape: [1] + next)
                // Pool2DOptions: VALID, stride 2×2, filter 2×2, no activation.
                op(17, inputs: [current], outputs: [out], optionsType: 5,
                   options: W.Table([.int8(1), .int32(2), .int32(2), .int32(2), .int32(2), .int8(0)]))
                current = out
            case let dense as DenseLayer:
                if shape.count != 1 {
                    let flat = shape.reduce(1, *)
                    let newShape = tensor("flatten\(i)/shape", shape: [2], type: 2, data: [Int32(1), Int32(flat)].flatMap { v in
                        withUnsafeBytes(of: v.littleEndian, Array.init) })
                    let out = tensor("flatten\(i)", shape: [1, flat])
                    op(22, inputs: [current, newShape], outputs: [out], optionsType: 17, options: W.Table([.int32s([1, Int32(flat)])]))
                    current = out
                }
                let (w, b) = (dense.parameters[0], dense.parameters[1])
                let weights = tensor("dense\(i)/kernel", shape: w.shape, data: floats(w.value))
                let bias = tensor("dense\(i)/bias", shape: b.shape, data: floats(b.value))
                let out = tensor("dense\(i)", shape: [1] + next)
                op(9, inputs: [current, weights, bias], outputs: [out], optionsType: 8, options: W.Table([.int8(activation)]))
                current = out
            case is ReLULayer:
                let out = tensor("relu\(i)", shape: [1] + next)
                op(19, inputs: [current], outputs: [out], optionsType: 0, options: nil)
                current = out
            case is DropoutLayer:
                break
            default:
                throw TrainingError.invalidSettings("layer \(i) (\(type(of: layer))) has no TFLite form")
            }
            shape = next
            i += fusedReLU && !(layer is ReLULayer) && !(layer is MaxPoolLayer) && !(layer is DropoutLayer) ? 2 : 1
        }
        let probabilities = tensor("probabilities", shape: [1, classes])
        op(25, inputs: [current], outputs: [probabilities], optionsType: 9, options: W.Table([.float(1)]))

        let subgraph = W.Table([.tables(tensors), .int32s([input]), .int32s([probabilities]), .tables(operators), .string("main")])
        // OperatorCode: deprecated_builtin_code (codes here are all under 127), version 1, builtin_code.
        let operatorCodes = codes.map { W.Table([.int8(Int8($0)), nil, .int32(1), .int32($0)]) }
        let model = W.Table([.uint32(3), .tables(operatorCodes), .tables([subgraph]), .string(description), .tables(buffers)])
        return FlatBufferWriter.file(root: model, identifier: "TFL3")
    }
}
