/// The values of a constant tensor. Float16 and sparse weights exist only until load-time
/// folding turns them into Float32.
public enum ConstantData: Sendable, Equatable {
    case float32([Float])
    case float16([UInt16])
    case int32([Int32])

    public var count: Int {
        switch self {
        case let .float32(v): v.count
        case let .float16(v): v.count
        case let .int32(v): v.count
        }
    }

    var typeName: String {
        switch self {
        case .float32: "float32"
        case .float16: "float16"
        case .int32: "int32"
        }
    }
}

/// Element types the engine knows.
public enum ElementType: String, Sendable, Equatable {
    case float32, float16, int32
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

    public init(name: String, shape: [Int], type: ElementType, constant: ConstantData? = nil, sparsity: SparseFormat? = nil) {
        self.name = name
        self.shape = shape
        self.type = type
        self.constant = constant
        self.sparsity = sparsity
    }

    public var elementCount: Int { shape.reduce(1, *) }
    public var isConstant: Bool { constant != nil }
}
