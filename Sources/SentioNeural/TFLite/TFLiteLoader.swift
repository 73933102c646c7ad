/// Loads `.tflite` files (FlatBuffers, schema v3) into a ``Graph``.
///
/// The reader follows only checked offsets (see `FlatBuffer`); operators are mapped onto
/// ``Operator`` here, and an operator the engine lacks is reported by name at load. Sparse
/// and float16 weights are turned into Float32 by ``GraphOptimizer`` afterwards.
public enum TFLiteLoader {
    /// Loads the model file at `path` and folds its weight-only subgraphs.
    public static func load(path: String) throws -> Graph {
        let file = try MappedFile(path: path)
        return try load(file)
    }

    /// Loads a model already in memory (mapped or copied).
    public static func load(_ file: MappedFile) throws -> Graph {
        let raw = try parse(FlatBuffer(bytes: file.bytes))
        return GraphOptimizer.fusePadding(try GraphOptimizer.foldConstants(raw))
    }

    /// The graph exactly as stored, before folding.
    static func parse(_ fb: FlatBuffer) throws -> Graph {
        guard fb.count >= 8 else { throw ModelError.malformed("file of \(fb.count) bytes is too short for a FlatBuffer") }
        guard fb.identifier == "TFL3" else {
            throw ModelError.malformed("file identifier is '\(fb.identifier ?? "")', not 'TFL3' (not a TFLite model)")
        }
        let model = try fb.root()
        let version = try model.integer(0, UInt32.self)
        guard version == 3 else { throw ModelError.malformed("schema version \(version), expected 3") }

        let codes = try operatorCodes(model)
        guard let subgraphs = try model.vector(2, elementSize: 4, "subgraphs"), subgraphs.count >= 1 else {
            throw ModelError.malformed("the model has no subgraph")
        }
        let subgraph = try subgraphs.table(0)
        let buffers = try model.vector(4, elementSize: 4, "buffers")

        guard let tensorTables = try subgraph.vector(0, elementSize: 4, "tensors") else {
            throw ModelError.malformed("subgraph 0 has no tensors")
        }
        var tensors: [TensorInfo] = []
        tensors.reserveCapacity(tensorTables.count)
        for i in 0 ..< tensorTables.count {
            tensors.append(try tensor(tensorTables.table(i), index: i, buffers: buffers, fb: fb))
        }

        var nodes: [Node] = []
        if let operators = try subgraph.vector(3, elementSize: 4, "operators") {
            for i in 0 ..< operators.count {
                let op = try operators.table(i)
                let codeIndex = Int(try op.integer(0, UInt32.self))
                guard codeIndex < codes.count else {
                    throw ModelError.malformed("operator \(i) uses operator code \(codeIndex) of \(codes.count)")
                }
                let inputs = try (op.int32s(1, "inputs") ?? []).map(Int.init)
                let outputs = try (op.int32s(2, "outputs") ?? []).map(Int.init)
                let operation = try operation(codes[codeIndex], op, node: i)
                nodes.append(Node(operation: operation, inputs: inputs, outputs: outputs))
            }
        }
        let inputs = try (subgraph.int32s(1, "inputs") ?? []).map(Int.init)
        let outputs = try (subgraph.int32s(2, "outputs") ?? []).map(Int.init)
        let graph = Graph(tensors: tensors, nodes: nodes, inputs: inputs, outputs: outputs, format: "TFLite v3")
        try graph.validateIndices()
        return graph
    }

    /// (builtin code, custom name) of every operator code.
    static func operatorCodes(_ model: FBTable) throws -> [(Int, String?)] {
        guard let codes = try model.vector(1, elementSize: 4, "operator_codes") else { return [] }
        return try (0 ..< codes.count).map { i in
            let code = try codes.table(i)
            // The byte field is kept for old readers; the int field holds codes past 127.
            let deprecated = Int(try code.integer(0, Int8.self))
            let builtin = Int(try code.integer(3, Int32.self))
            return (max(deprecated, builtin), try code.string(1, "custom_code"))
        }
    }

    static func tensor(_ t: FBTable, index: Int, buffers: FBVector?, fb: FlatBuffer) throws -> TensorInfo {
        let shape = try (t.int32s(0, "shape") ?? []).map(Int.init)
        guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 24 }) else {
            throw ModelError.malformed("tensor \(index) has shape \(shape)")
        }
        let (count, overflow) = shape.reduce((1, false)) { acc, d in
            let (p, o) = acc.0.multipliedReportingOverflow(by: d)
            return (p, acc.1 || o)
        }
        guard !overflow, count < 1 << 31 else { throw ModelError.malformed("tensor \(index) shape \(shape) is too large") }
        let typeCode = try t.integer(1, Int8.self)
        let name = try t.string(3, "name") ?? "tensor\(index)"
        let type: ElementType
        switch typeCode {
        case 0: type = .float32
        case 1: type = .float16
        case 2: type = .int32
        case 3: type = .uint8
        case 9: type = .int8
        default:
            throw ModelError.malformed("tensor \(index) '\(name)' has element type \(tensorTypeName(typeCode)), which the engine does not run")
        }
        let sparsity = try t.table(6, "sparsity").map { try sparseFormat($0, tensor: index) }
        let quantization = try t.table(4, "quantization").flatMap { try self.quantization($0, shape: shape, tensor: index, name: name) }
        if type.isQuantized, let q = quantization, let z = q.zeroPoints.first(where: { !type.integerRange.contains($0) }) {
            throw ModelError.malformed("tensor \(index) '\(name)' is \(type.rawValue) with zero point \(z)")
        }
        if type.isQuantized, quantization == nil {
            throw ModelError.malformed("tensor \(index) '\(name)' is \(type.rawValue) without quantization parameters")
        }

        var constant: ConstantData?
        let bufferIndex = Int(try t.integer(2, UInt32.self))
        if bufferIndex != 0, let buffers {
            guard bufferIndex < buffers.count else {
                throw ModelError.malformed("tensor \(index) '\(name)' refers to buffer \(bufferIndex) of \(buffers.count)")
            }
            let buffer = try buffers.table(bufferIndex)
            var data: UnsafeRawBufferPointer?
            if let vector = try buffer.vector(0, elementSize: 1, "data"), vector.count > 0 {
                data = vector.raw
            } else {
                // Models over 2 GB keep buffers after the FlatBuffer, by offset and size.
                let offset = Int(truncatingIfNeeded: try buffer.integer(1, UInt64.self))
                let size = Int(truncatingIfNeeded: try buffer.integer(2, UInt64.self))
                if offset > 1 && size > 0 {
                    try fb.check(offset, size, "buffer \(bufferIndex)")
                    data = UnsafeRawBufferPointer(rebasing: fb.bytes[offset ..< offset + size])
                }
            }
            if let data {
                let expected = sparsity == nil ? count : nil
                constant = try decode(data, type: type, expectedCount: expected, tensor: index, name: name)
            }
        }
        return TensorInfo(name: name, shape: shape, type: type, constant: constant, sparsity: sparsity, quantization: quantization)
    }

    /// A tensor's QuantizationParameters (nil when it has no scale: not quantized). Custom
    /// schemes and parameters that do not fit the shape are refused by name.
    static func quantization(_ q: FBTable, shape: [Int], tensor: Int, name: String) throws -> Quantization? {
        if try q.integer(4, UInt8.self) != 0 {
            throw ModelError.unsupportedQuantization("tensor \(tensor) '\(name)' uses a custom quantization scheme")
        }
        guard let scaleVector = try q.vector(2, elementSize: 4, "scale"), scaleVector.count > 0 else { return nil }
        let scales = (0 ..< scaleVector.count).map {
            Float(bitPattern: UInt32(littleEndian: scaleVector.raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
        }
        var zeroPoints: [Int32] = []
        if let zp = try q.vector(3, elementSize: 8, "zero_point") {
            for i in 0 ..< zp.count {
                let z = Int64(littleEndian: zp.raw.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self))
                guard z >= -32768, z <= 65535 else {
                    throw ModelError.malformed("tensor \(tensor) '\(name)' has zero point \(z)")
                }
                zeroPoints.append(Int32(z))
            }
        }
        if zeroPoints.isEmpty { zeroPoints = [Int32](repeating: 0, count: scales.count) }
        let axis = Int(try q.integer(6, Int32.self))
        guard zeroPoints.count == scales.count, scales.allSatisfy({ $0.isFinite && $0 > 0 }) else {
            throw ModelError.malformed("tensor \(tensor) '\(name)': \(scales.count) scales, \(zeroPoints.count) zero points, scales \(scales.prefix(4))")
        }
        if scales.count > 1 {
            guard axis >= 0, axis < shape.count, shape[axis] == scales.count else {
                throw ModelError.malformed("tensor \(tensor) '\(name)' has \(scales.count) scales along axis \(axis) of shape \(shape)")
            }
        }
        return Quantization(scales: scales, zeroPoints: zeroPoints, axis: scales.count > 1 ? axis : 0)
    }

    static func decode(_ data: UnsafeRawBufferPointer, type: ElementType, expectedCount: Int?, tensor: Int, name: String) throws -> ConstantData {
        let size = type.size
        guard data.count % size == 0 else {
            throw ModelError.malformed("tensor \(tensor) '\(name)': \(data.count) bytes is not a whole number of \(type.rawValue)")
        }
        let n = data.count / size
        if let expectedCount, n != expectedCount {
            throw ModelError.malformed("tensor \(tensor) '\(name)' holds \(n) values for a shape of \(expectedCount)")
        }
        switch type {
        case .float32:
            return .float32((0 ..< n).map { Float(bitPattern: UInt32(littleEndian: data.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) })
        case .float16:
            return .float16((0 ..< n).map { UInt16(littleEndian: data.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) })
        case .int32:
            return .int32((0 ..< n).map { Int32(littleEndian: data.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) })
        case .int8:
            return .int8(data.map { Int8(bitPattern: $0) })
        case .uint8:
            return .uint8(Array(data))
        }
    }

    static func sparseFormat(_ s: FBTable, tensor: Int) throws -> SparseFormat {
        let order = try (s.int32s(0, "traversal_order") ?? []).map(Int.init)
        let blockMap = try (s.int32s(1, "block_map") ?? []).map(Int.init)
        guard let metadata = try s.vector(2, elementSize: 4, "dim_metadata") else {
            throw ModelError.malformed("sparse tensor \(tensor) has no dimension metadata")
        }
        var dims: [SparseFormat.Dimension] = []
        for i in 0 ..< metadata.count {
            let m = try metadata.table(i)
            if try m.integer(0, Int8.self) == 0 {
                dims.append(.dense(size: Int(try m.integer(1, Int32.self))))
            } else {
                let segments = try indexVector(m, typeField: 2, valueField: 3, "array_segments", tensor: tensor)
                let indices = try indexVector(m, typeField: 4, valueField: 5, "array_indices", tensor: tensor)
                dims.append(.compressed(segments: segments, indices: indices))
            }
        }
        return SparseFormat(traversalOrder: order, blockMap: blockMap, dimensions: dims)
    }

    static func indexVector(_ m: FBTable, typeField: Int, valueField: Int, _ what: String, tensor: Int) throws -> [Int] {
        let kind = try m.integer(typeField, UInt8.self)
        guard let table = try m.table(valueField, what) else {
            throw ModelError.malformed("sparse tensor \(tensor): \(what) missing")
        }
        switch kind {
        case 1: return try (table.int32s(0, what) ?? []).map(Int.init)
        case 2:
            guard let v = try table.vector(0, elementSize: 2, what) else { return [] }
            return (0 ..< v.count).map { Int(UInt16(littleEndian: v.raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))) }
        case 3:
            guard let v = try table.vector(0, elementSize: 1, what) else { return [] }
            return v.raw.map(Int.init)
        default:
            throw ModelError.malformed("sparse tensor \(tensor): \(what) has index type \(kind)")
        }
    }

    static func tensorTypeName(_ code: Int8) -> String {
        let names = ["FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16", "COMPLEX64", "INT8",
                     "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4"]
        return code >= 0 && Int(code) < names.count ? names[Int(code)] : "type \(code)"
    }
}
