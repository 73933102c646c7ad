/// The parts of an ONNX model (`onnx.proto`, IR 3 and later) the loader reads: the graph's
/// nodes, its initializers (the weights), its inputs and outputs with their shapes, and the
/// operator set. Field numbers are onnx.proto's.
struct ONNXModel {
    var irVersion = 0
    /// The default domain's operator-set version.
    var opset = 0
    var graph = ONNXGraph()

    init(_ buffer: UnsafeRawBufferPointer) throws {
        var r = ProtoReader(buffer, message: "ModelProto")
        var sawGraph = false
        while let (field, value) = try r.next() {
            switch (field, value) {
            case (1, .varint(let v)): irVersion = Int(truncatingIfNeeded: v)
            case (7, .bytes(let range)):
                graph = try ONNXGraph(buffer, range)
                sawGraph = true
            case (8, .bytes(let range)):
                // OperatorSetIdProto: domain 1, version 2; the default domain is "" (or "ai.onnx").
                var o = ProtoReader(buffer, range: range, message: "OperatorSetIdProto")
                var domain = "", version = 0
                while let (f, v) = try o.next() {
                    if case (1, .bytes(let d)) = (f, v) { domain = o.string(d) }
                    if case (2, .varint(let n)) = (f, v) { version = Int(truncatingIfNeeded: n) }
                }
                if domain.isEmpty || domain == "ai.onnx" { opset = version }
            default: break
            }
        }
        guard sawGraph else { throw ModelError.malformed("ONNX ModelProto has no graph") }
    }

    /// Whether `buffer` starts as an ONNX model does: an `ir_version` varint (field 1), then
    /// top-level fields that parse, among them a graph. A cheap test (the graph is not read).
    static func recognizes(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard buffer.count > 16, buffer[0] == 0x08 else { return false }
        var r = ProtoReader(buffer, message: "ModelProto")
        var graph = false
        do {
            while let (field, value) = try r.next() {
                if field == 7, case .bytes = value { graph = true }
                if field > 20 { return false }
            }
            return graph
        } catch {
            return false  // not protobuf: not ONNX
        }
    }
}

struct ONNXGraph {
    var name = ""
    var nodes: [ONNXNode] = []
    var initializers: [String: ONNXTensor] = [:]
    var inputs: [ONNXValueInfo] = []
    var outputs: [ONNXValueInfo] = []

    init() {}

    init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        var r = ProtoReader(buffer, range: range, message: "GraphProto")
        while let (field, value) = try r.next() {
            guard case .bytes(let range) = value else { continue }
            switch field {
            case 1: nodes.append(try ONNXNode(buffer, range))
            case 2: name = r.string(range)
            case 5:
                let tensor = try ONNXTensor(buffer, range)
                initializers[tensor.name] = tensor
            case 11: inputs.append(try ONNXValueInfo(buffer, range))
            case 12: outputs.append(try ONNXValueInfo(buffer, range))
            default: break
            }
        }
    }
}

struct ONNXNode {
    var opType = ""
    var name = ""
    var domain = ""
    var inputs: [String] = []
    var outputs: [String] = []
    var attributes: [String: ONNXAttribute] = [:]

    init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        var r = ProtoReader(buffer, range: range, message: "NodeProto")
        while let (field, value) = try r.next() {
            guard case .bytes(let range) = value else { continue }
            switch field {
            case 1: inputs.append(r.string(range))
            case 2: outputs.append(r.string(range))
            case 3: name = r.string(range)
            case 4: opType = r.string(range)
            case 5:
                let attribute = try ONNXAttribute(buffer, range)
                attributes[attribute.name] = attribute
            case 7: domain = r.string(range)
            default: break
            }
        }
    }

    func int(_ name: String, default value: Int) -> Int { attributes[name]?.int ?? value }
    func float(_ name: String, default value: Float) -> Float { attributes[name]?.float ?? value }
    func ints(_ name: String) -> [Int]? { attributes[name].flatMap { $0.ints.isEmpty ? nil : $0.ints } }
    func string(_ name: String) -> String? { attributes[name]?.string }
}

struct ONNXAttribute {
    var name = ""
    var float: Float?
    var int: Int?
    var string: String?
    var tensor: ONNXTensor?
    var floats: [Float] = []
    var ints: [Int] = []

    init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        var r = ProtoReader(buffer, range: range, message: "AttributeProto")
        while let (field, value) = try r.next() {
            switch (field, value) {
            case (1, .bytes(let b)): name = r.string(b)
            case (2, .fixed32(let bits)): float = Float(bitPattern: bits)
            case (3, .varint(let v)): int = Int(truncatingIfNeeded: Int64(bitPattern: v))
            case (4, .bytes(let b)): string = r.string(b)
            case (5, .bytes(let b)): tensor = try ONNXTensor(buffer, b)
            case (7, .fixed32(let bits)): floats.append(Float(bitPattern: bits))
            case (7, .bytes(let b)): floats += try r.floats(b)
            case (8, .varint(let v)): ints.append(Int(truncatingIfNeeded: Int64(bitPattern: v)))
            case (8, .bytes(let b)): ints += try r.packedVarints(b).map { Int(truncatingIfNeeded: Int64(bitPattern: $0)) }
            default: break
            }
        }
    }
}

/// A constant: its shape and its values, as float32 (FLOAT, DOUBLE, FLOAT16 read as float) or
/// as integers (INT64, INT32).
struct ONNXTensor {
    /// onnx.proto's TensorProto.DataType values the loader reads.
    enum DataType: Int { case float = 1, int32 = 6, int64 = 7, float16 = 10, double = 11 }

    var name = ""
    var dims: [Int] = []
    var dataType = 0
    var floats: [Float] = []
    var integers: [Int64] = []

    var elementCount: Int { dims.reduce(1, *) }

    init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        var r = ProtoReader(buffer, range: range, message: "TensorProto")
        var raw: Range<Int>?
        var doubles: [Double] = []
        var halfs: [UInt64] = []
        while let (field, value) = try r.next() {
            switch (field, value) {
            case (1, .varint(let v)): dims.append(Int(truncatingIfNeeded: Int64(bitPattern: v)))
            case (1, .bytes(let b)): dims += try r.packedVarints(b).map { Int(truncatingIfNeeded: Int64(bitPattern: $0)) }
            case (2, .varint(let v)): dataType = Int(truncatingIfNeeded: v)
            case (4, .fixed32(let bits)): floats.append(Float(bitPattern: bits))
            case (4, .bytes(let b)): floats += try r.floats(b)
            case (5, .varint(let v)): halfs.append(v)  // int32_data also carries float16 bits
            case (5, .bytes(let b)): halfs += try r.packedVarints(b)
            case (7, .varint(let v)): integers.append(Int64(bitPattern: v))
            case (7, .bytes(let b)): integers += try r.packedVarints(b).map { Int64(bitPattern: $0) }
            case (8, .bytes(let b)): name = r.string(b)
            case (9, .bytes(let b)): raw = b
            case (10, .fixed64(let bits)): doubles.append(Double(bitPattern: bits))
            case (10, .bytes(let b)):
                guard b.count % 8 == 0 else { throw r.fail("\(b.count) bytes of doubles") }
                doubles += try r.int64s(b).map { Double(bitPattern: UInt64(bitPattern: $0)) }
            case (14, .varint(let v)) where v == 1:
                throw ModelError.unsupportedOperator(name: "ONNX external data (tensor \(name))", node: -1)
            default: break
            }
        }
        guard dims.allSatisfy({ $0 >= 0 }), dims.count <= 8 else { throw ModelError.malformed("ONNX tensor \(name): dims \(dims)") }
        let count = dims.reduce(1) { $0.multipliedReportingOverflow(by: $1).overflow ? Int.max : $0 * $1 }
        guard count <= ShapeInference.maxElements else { throw ModelError.malformed("ONNX tensor \(name): \(dims) is too large") }
        switch DataType(rawValue: dataType) {
        case .float?:
            if let raw { floats = try r.floats(raw) }
        case .double?:
            if let raw { doubles = try r.int64s(raw).map { Double(bitPattern: UInt64(bitPattern: $0)) } }
            floats = doubles.map(Float.init)
        case .float16?:
            let bits: [UInt16]
            if let raw {
                guard raw.count % 2 == 0 else { throw r.fail("\(raw.count) bytes of float16 values") }
                bits = (0 ..< raw.count / 2).map { buffer.loadUnaligned(fromByteOffset: raw.lowerBound + 2 * $0, as: UInt16.self).littleEndian }
            } else {
                bits = halfs.map { UInt16(truncatingIfNeeded: $0) }
            }
            floats = bits.map { Float(Float16(bitPattern: $0)) }
        case .int64?:
            if let raw { integers = try r.int64s(raw) }
        case .int32?:
            if let raw {
                guard raw.count % 4 == 0 else { throw r.fail("\(raw.count) bytes of int32 values") }
                integers = (0 ..< raw.count / 4).map { Int64(Int32(bitPattern: buffer.loadUnaligned(fromByteOffset: raw.lowerBound + 4 * $0, as: UInt32.self).littleEndian)) }
            } else {
                integers = halfs.map { Int64(Int32(truncatingIfNeeded: $0)) }
            }
        case nil:
            throw ModelError.malformed("ONNX tensor \(name): data type \(dataType) is not read by Sentio (float, double, float16, int32, int64 are)")
        }
        let found = DataType(rawValue: dataType) == .int64 || DataType(rawValue: dataType) == .int32 ? integers.count : floats.count
        guard found == count else { throw ModelError.malformed("ONNX tensor \(name): \(found) values for shape \(dims)") }
    }
}

/// A graph input or output: its name and, when declared, its shape (nil for a symbolic dimension).
struct ONNXValueInfo {
    var name = ""
    var shape: [Int?] = []
    var elementType = 0

    init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        var r = ProtoReader(buffer, range: range, message: "ValueInfoProto")
        while let (field, value) = try r.next() {
            switch (field, value) {
            case (1, .bytes(let b)): name = r.string(b)
            case (2, .bytes(let b)):
                // TypeProto.tensor_type (1) → elem_type (1), shape (2) → dim (1) → dim_value (1) | dim_param (2)
                var t = ProtoReader(buffer, range: b, message: "TypeProto")
                while let (tf, tv) = try t.next() {
                    guard tf == 1, case .bytes(let tensorRange) = tv else { continue }
                    var tensor = ProtoReader(buffer, range: tensorRange, message: "TypeProto.Tensor")
                    while let (ef, ev) = try tensor.next() {
                        if case (1, .varint(let e)) = (ef, ev) { elementType = Int(truncatingIfNeeded: e) }
                        guard ef == 2, case .bytes(let shapeRange) = ev else { continue }
                        var shapeReader = ProtoReader(buffer, range: shapeRange, message: "TensorShapeProto")
                        while let (sf, sv) = try shapeReader.next() {
                            guard sf == 1, case .bytes(let dimRange) = sv else { continue }
                            var dim = ProtoReader(buffer, range: dimRange, message: "Dimension")
                            var size: Int?
                            while let (df, dv) = try dim.next() {
                                if case (1, .varint(let n)) = (df, dv) { size = Int(truncatingIfNeeded: Int64(bitPattern: n)) }
                            }
                            shape.append(size)
                        }
                    }
                }
            default: break
            }
        }
    }
}
