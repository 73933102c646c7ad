/// The values of a constant tensor. Float16 and sparse weights exist only until load-time
/// folding turns them into Float32.
public enum ConstantData: Sendable, Equatable {
    case float32([Float])
    case float16([UInt16])
    case int32([Int32])
    /// Quantized weights (see ``Quantization``).
    case int8([Int8])
    case uint8([UInt8])

    public var count: Int {
        switch self {
        case let .float32(v): v.count
        case let .float16(v): v.count
        case let .int32(v): v.count
        case let .int8(v): v.count
        case let .uint8(v): v.count
        }
    }

    var typeName: String {
        switch self {
        case .float32: "float32"
        case .float16: "float16"
        case .int32: "int32"
        case .int8: "int8"
        case .uint8: "uint8"
        }
    }
}

/// Element types the engine knows.
public enum ElementType: String, Sendable, Equatable {
    case float32, float16, int32, int8, uint8

    /// Whether values of this type are quantized integers (TFLite's int8 and uint8 schemes).
    public var isQuantized: Bool { self == .int8 || self == .uint8 }

    /// Bytes per element.
    public var size: Int {
        switch self {
        case .float32, .int32: 4
        case .float16: 2
        case .int8, .uint8: 1
        }
    }

    /// The range of a quantized type (int32's for the others).
    public var integerRange: ClosedRange<Int32> {
        switch self {
        case .int8: -128 ... 127
        case .uint8: 0 ... 255
        default: Int32.min ... Int32.max
        }
    }
}

/// How a sparse constant is stored (TFLite's TACO-style format), kept until DENSIFY is folded.
public struct SparseFormat: Sendable, Equatable {
    /// A dimension in traversal order: dense with a size, or CSR with segments and indices.
    public enum Dimension: Sendable, Equatable {
        case dense(size: Int)
        case compressed(segments: [Int], indices: [Int])
    }

    public var traversalOrder: [Int]
    public var blockMap: [Int]
    public var dimensions: [Dimension]

    public init(traversalOrder: [Int], blockMap: [Int], dimensions: [Dimension]) {
        self.traversalOrder = traversalOrder
        self.blockMap = blockMap
        self.dimensions = dimensions
    }
}

/// One tensor of a graph: shape (NHWC for images), element type, and its values when constant.
public struct TensorInfo: Sendable, Equatable {
    public var name: String
    public var shape: [Int]
    public var type: ElementType
    public var constant: ConstantData?
    /// Present only on sparse constants (the data is the non-zero values).
    public var sparsity: SparseFormat?
    /// How integer values map to real ones, on quantized tensors (and on int32 biases of
    /// quantized operators).
    public var quantization: Quantization?

    public init(name: String, shape: [Int], type: ElementType, constant: ConstantData? = nil, sparsity: SparseFormat? = nil,
                quantization: Quantization? = nil) {
        self.name = name
        self.shape = shape
        self.type = type
        self.constant = constant
        self.sparsity = sparsity
        self.quantization = quantization
    }

    public var elementCount: Int { shape.reduce(1, *) }
    public var isConstant: Bool { constant != nil }
}
