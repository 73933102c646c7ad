/// Activation fused into an operator.
public enum Activation: String, Sendable, Equatable {
    case none, relu, relu6, reluN1To1, tanh

    @inlinable
    public func apply(_ x: Float) -> Float {
        switch self {
        case .none: x
        case .relu: max(0, x)
        case .relu6: min(6, max(0, x))
        case .reluN1To1: min(1, max(-1, x))
        case .tanh: Float(_tanh(Double(x)))
        }
    }

    /// Clamping bounds (tanh has none).
    public var bounds: (Float, Float) {
        switch self {
        case .relu: (0, .infinity)
        case .relu6: (0, 6)
        case .reluN1To1: (-1, 1)
        default: (-.infinity, .infinity)
        }
    }
}

@usableFromInline func _tanh(_ x: Double) -> Double {
    let e = _exp(2 * x)
    return (e - 1) / (e + 1)
}

@usableFromInline func _exp(_ x: Double) -> Double {
    // Foundation-free exp through the C library.
    cExp(x)
}

/// SAME pads so that output = ceil(input / stride); VALID does not pad; explicit padding comes
/// from a PAD node folded into the convolution that reads it.
public enum Padding: Sendable, Equatable {
    case same, valid
    case explicit(top: Int, bottom: Int, left: Int, right: Int)
}

/// A 2-D window: kernel or pooling geometry.
public struct Window: Sendable, Equatable {
    public var strideH = 1, strideW = 1
    public var dilationH = 1, dilationW = 1
    public var filterH = 1, filterW = 1
    public var padding = Padding.valid

    public init(strideH: Int = 1, strideW: Int = 1, dilationH: Int = 1, dilationW: Int = 1,
                filterH: Int = 1, filterW: Int = 1, padding: Padding = .valid) {
        self.strideH = strideH
        self.strideW = strideW
        self.dilationH = dilationH
        self.dilationW = dilationW
        self.filterH = filterH
        self.filterW = filterW
        self.padding = padding
    }

    /// Output size and leading padding along one axis, as TFLite computes them.
    public static func outputAndPad(input: Int, filter: Int, stride: Int, dilation: Int, padding: Padding,
                                    explicit: (Int, Int) = (0, 0)) -> (Int, Int) {
        let effective = (filter - 1) * dilation + 1
        switch padding {
        case .valid:
            return ((input - effective + stride) / stride, 0)
        case .same:
            let out = (input + stride - 1) / stride
            let total = max(0, (out - 1) * stride + effective - input)
            return (out, total / 2)
        case .explicit:
            return ((input + explicit.0 + explicit.1 - effective + stride) / stride, explicit.0)
        }
    }

    /// Output height and top padding for an input of `input` rows and a filter of `filter` rows.
    public func vertical(input: Int, filter: Int) -> (Int, Int) {
        var before = 0, after = 0
        if case let .explicit(top, bottom, _, _) = padding { (before, after) = (top, bottom) }
        return Window.outputAndPad(input: input, filter: filter, stride: strideH, dilation: dilationH, padding: padding, explicit: (before, after))
    }

    /// Output width and left padding.
    public func horizontal(input: Int, filter: Int) -> (Int, Int) {
        var before = 0, after = 0
        if case let .explicit(_, _, left, right) = padding { (before, after) = (left, right) }
        return Window.outputAndPad(input: input, filter: filter, stride: strideW, dilation: dilationW, padding: padding, explicit: (before, after))
    }
}

/// What a node computes. Inputs and outputs are tensor indices in the node.
public enum Operator: Sendable, Equatable {
    /// Inputs: x [N,H,W,Ci], filter [Co,KH,KW,Ci], bias [Co] (optional).
    case conv2D(Window, Activation)
    /// Inputs: x, filter [1,KH,KW,Ci·M], bias; output channel c·M + m reads input channel c.
    case depthwiseConv2D(Window, multiplier: Int, Activation)
    /// Inputs: x (flattened to [batch, In]), weights [Out, In], bias [Out].
    case fullyConnected(Activation, keepNumDims: Bool)
    /// Inputs: output shape (int32), filter [Co,KH,KW,Ci], x, bias (optional).
    case transposeConv(Window, Activation)
    /// MediaPipe's custom Convolution2DTransposeBias. Inputs: x, filter [Co,KH,KW,Ci], bias.
    case transposeConvBias(Window)
    case add(Activation)
    case mul(Activation)
    case relu
    case relu6
    /// Inputs: x, alpha (broadcast over the last axes).
    case prelu
    case logistic
    case hardSwish
    case maxPool2D(Window, Activation)
    case averagePool2D(Window, Activation)
    /// Inputs: x, axes (int32).
    case mean(keepDims: Bool)
    /// Inputs: x, paddings (int32 [rank, 2]).
    case pad
    case reshape
    case concatenation(axis: Int, Activation)
    /// Inputs: x, size (int32 [2]).
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case depthToSpace(blockSize: Int)
    /// Inputs: x, begin, end, strides (int32).
    case stridedSlice(beginMask: Int, endMask: Int, shrinkAxisMask: Int)
    /// Quantized or float weights and activations into a tensor's own quantized type.
    case quantize
    case dequantize
    case densify
    /// softmax(beta · x) over the last axis.
    case softmax(beta: Float)

    /// TFLite's name of the operator, for messages and `model info`.
    public var name: String {
        switch self {
        case .conv2D: "CONV_2D"
        case .depthwiseConv2D: "DEPTHWISE_CONV_2D"
        case .fullyConnected: "FULLY_CONNECTED"
        case .transposeConv: "TRANSPOSE_CONV"
        case .transposeConvBias: "Convolution2DTransposeBias"
        case .add: "ADD"
        case .mul: "MUL"
        case .relu: "RELU"
        case .relu6: "RELU6"
        case .prelu: "PRELU"
        case .logistic: "LOGISTIC"
        case .hardSwish: "HARD_SWISH"
        case .maxPool2D: "MAX_POOL_2D"
        case .averagePool2D: "AVERAGE_POOL_2D"
        case .mean: "MEAN"
        case .pad: "PAD"
        case .reshape: "RESHAPE"
        case .concatenation: "CONCATENATION"
        case .resizeBilinear: "RESIZE_BILINEAR"
        case .depthToSpace: "DEPTH_TO_SPACE"
        case .stridedSlice: "STRIDED_SLICE"
        case .dequantize: "DEQUANTIZE"
        case .quantize: "QUANTIZE"
        case .softmax: "SOFTMAX"
        case .densify: "DENSIFY"
        }
    }
}

/// One operator application.
public struct Node: Sendable, Equatable {
    public var operation: Operator
    /// Tensor indices; −1 marks an omitted optional input.
    public var inputs: [Int]
    public var outputs: [Int]

    public init(operation: Operator, inputs: [Int], outputs: [Int]) {
        self.operation = operation
        self.inputs = inputs
        self.outputs = outputs
    }
}
