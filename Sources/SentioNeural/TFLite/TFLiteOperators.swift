extension TFLiteLoader {
    /// Builtin operator codes of schema v3 (the ones the engine runs, and a few more names).
    static let builtinNames: [Int: String] = [
        0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
        5: "DEPTH_TO_SPACE", 6: "DEQUANTIZE", 8: "FLOOR", 9: "FULLY_CONNECTED", 14: "LOGISTIC",
        17: "MAX_POOL_2D", 18: "MUL", 19: "RELU", 21: "RELU6", 22: "RESHAPE", 23: "RESIZE_BILINEAR",
        25: "SOFTMAX", 28: "TANH", 32: "CUSTOM", 34: "PAD", 39: "TRANSPOSE", 40: "MEAN", 41: "SUB",
        42: "DIV", 45: "STRIDED_SLICE", 49: "SPLIT", 53: "CAST", 54: "PRELU", 55: "MAXIMUM", 57: "MINIMUM",
        60: "PADV2", 65: "SLICE", 67: "TRANSPOSE_CONV", 83: "PACK", 97: "RESIZE_NEAREST_NEIGHBOR",
        98: "LEAKY_RELU", 114: "QUANTIZE", 117: "HARD_SWISH", 124: "DENSIFY", 126: "BATCH_MATMUL",
    ]

    static func activation(_ code: Int8, node: Int) throws -> Activation {
        switch code {
        case 0: return .none
        case 1: return .relu
        case 2: return .reluN1To1
        case 3: return .relu6
        case 4: return .tanh
        default: throw ModelError.malformed("node \(node) has fused activation code \(code)")
        }
    }

    static func padding(_ code: Int8, node: Int) throws -> Padding {
        switch code {
        case 0: return .same
        case 1: return .valid
        default: throw ModelError.malformed("node \(node) has padding code \(code)")
        }
    }

    static func positive(_ value: Int32, _ what: String, node: Int) throws -> Int {
        guard value > 0, value < 1 << 16 else { throw ModelError.malformed("node \(node): \(what) is \(value)") }
        return Int(value)
    }

    static func operation(_ code: (builtin: Int, custom: String?), _ op: FBTable, node: Int) throws -> Operator {
        let options = try op.table(4, "builtin_options")
        func int(_ id: Int, default value: Int32 = 0) throws -> Int32 { try options?.integer(id, Int32.self, default: value) ?? value }
        func byte(_ id: Int) throws -> Int8 { try options?.integer(id, Int8.self) ?? 0 }
        func flag(_ id: Int) throws -> Bool { try options?.bool(id) ?? false }

        switch code.builtin {
        case 3:  // CONV_2D
            let window = Window(strideH: try positive(int(2), "stride_h", node: node), strideW: try positive(int(1), "stride_w", node: node),
                                dilationH: try positive(int(5, default: 1), "dilation_h", node: node),
                                dilationW: try positive(int(4, default: 1), "dilation_w", node: node),
                                padding: try padding(byte(0), node: node))
            return .conv2D(window, try activation(byte(3), node: node))
        case 4:  // DEPTHWISE_CONV_2D
            let window = Window(strideH: try positive(int(2), "stride_h", node: node), strideW: try positive(int(1), "stride_w", node: node),
                                dilationH: try positive(int(6, default: 1), "dilation_h", node: node),
                                dilationW: try positive(int(5, default: 1), "dilation_w", node: node),
                                padding: try padding(byte(0), node: node))
            return .depthwiseConv2D(window, multiplier: max(1, Int(try int(3))), try activation(byte(4), node: node))
        case 9:  // FULLY_CONNECTED
            guard try byte(1) == 0 else { throw ModelError.unsupportedOperator(name: "FULLY_CONNECTED (shuffled weights)", node: node) }
            return .fullyConnected(try activation(byte(0), node: node), keepNumDims: try flag(2))
        case 67:  // TRANSPOSE_CONV
            let window = Window(strideH: try positive(int(2), "stride_h", node: node), strideW: try positive(int(1), "stride_w", node: node),
                                padding: try padding(byte(0), node: node))
            return .transposeConv(window, try activation(byte(3), node: node))
        case 0: return .add(try activation(byte(0), node: node))
        case 18: return .mul(try activation(byte(0), node: node))
        case 19: return .relu
        case 21: return .relu6
        case 54: return .prelu
        case 14: return .logistic
        case 117: return .hardSwish
        case 17, 1:  // MAX_POOL_2D, AVERAGE_POOL_2D
            let window = Window(strideH: try positive(int(2), "stride_h", node: node), strideW: try positive(int(1), "stride_w", node: node),
                                filterH: try positive(int(4), "filter_height", node: node),
                                filterW: try positive(int(3), "filter_width", node: node),
                                padding: try padding(byte(0), node: node))
            let act = try activation(byte(5), node: node)
            return code.builtin == 17 ? .maxPool2D(window, act) : .averagePool2D(window, act)
        case 40: return .mean(keepDims: try flag(0))
        case 34: return .pad
        case 22: return .reshape
        case 2: return .concatenation(axis: Int(try int(0)), try activation(byte(1), node: node))
        case 23: return .resizeBilinear(alignCorners: try flag(2), halfPixelCenters: try flag(3))
        case 5: return .depthToSpace(blockSize: try positive(int(0), "block_size", node: node))
        case 45:
            guard try int(2) == 0, try int(3) == 0, try !flag(5) else {
                throw ModelError.unsupportedOperator(name: "STRIDED_SLICE (ellipsis, new-axis or offset masks)", node: node)
            }
            return .stridedSlice(beginMask: Int(try int(0)), endMask: Int(try int(1)), shrinkAxisMask: Int(try int(4)))
        case 6: return .dequantize
        case 114: return .quantize
        case 25:
            let beta = try options?.float(0, default: 1) ?? 1
            guard beta.isFinite else { throw ModelError.malformed("node \(node): SOFTMAX beta \(beta)") }
            return .softmax(beta: beta)
        case 124: return .densify
        case 32:  // CUSTOM
            let name = code.custom ?? "(unnamed)"
            guard name == "Convolution2DTransposeBias" else { throw ModelError.unsupportedOperator(name: "CUSTOM:\(name)", node: node) }
            // MediaPipe stores TfLiteTransposeConvParams raw: int32 padding (1 SAME, 2 VALID), stride_w, stride_h.
            guard let raw = try op.vector(5, elementSize: 1, "custom_options"), raw.count >= 12 else {
                throw ModelError.malformed("node \(node): Convolution2DTransposeBias needs 12 bytes of options")
            }
            let field = { (i: Int) in Int32(littleEndian: raw.raw.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)) }
            let pad: Padding
            switch field(0) {
            case 1: pad = .same
            case 2: pad = .valid
            default: throw ModelError.malformed("node \(node): Convolution2DTransposeBias padding code \(field(0))")
            }
            let window = Window(strideH: try positive(field(2), "stride_h", node: node), strideW: try positive(field(1), "stride_w", node: node), padding: pad)
            return .transposeConvBias(window)
        default:
            throw ModelError.unsupportedOperator(name: builtinNames[code.builtin] ?? "builtin operator \(code.builtin)", node: node)
        }
    }
}
