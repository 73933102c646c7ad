/// A reader of Protocol Buffers' wire format, the encoding of ONNX files: just enough to walk a
/// message's fields (varints, fixed 32/64-bit values, length-delimited bytes) over the mapped
/// file without copying it. Generated code (swift-protobuf's plugin over `onnx.proto`) would be
/// several thousand lines and a package dependency for the eight messages the loader reads;
/// this is about a hundred (docs/neural-engine.md, "ONNX").
struct ProtoReader {
    /// One field's value as the wire carries it.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        /// A length-delimited field: its byte range in the buffer (a string, bytes, a nested
        /// message or a packed repeated field).
        case bytes(Range<Int>)
        case fixed32(UInt32)
    }

    let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int
    let end: Int
    /// What is being read, for error messages ("GraphProto").
    let message: String

    init(_ buffer: UnsafeRawBufferPointer, range: Range<Int>? = nil, message: String) {
        self.buffer = buffer
        let range = range ?? 0 ..< buffer.count
        offset = range.lowerBound
        end = range.upperBound
        self.message = message
    }

    func fail(_ why: String) -> ModelError {
        .malformed("ONNX \(message) at byte \(offset): \(why)")
    }

    /// The next field, or nil at the end of the message.
    mutating func next() throws -> (field: Int, value: Value)? {
        guard offset < end else { return nil }
        let key = try varint()
        let field = Int(key >> 3)
        guard field > 0 else { throw fail("field number 0") }
        switch key & 7 {
        case 0: return (field, .varint(try varint()))
        case 1:
            guard end - offset >= 8 else { throw fail("a 64-bit value past the end") }
            let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
            offset += 8
            return (field, .fixed64(v))
        case 2:
            let length = try varint()
            guard length <= UInt64(end - offset) else { throw fail("a field of \(length) bytes past the end") }
            let start = offset
            offset += Int(length)
            return (field, .bytes(start ..< offset))
        case 5:
            guard end - offset >= 4 else { throw fail("a 32-bit value past the end") }
            let v = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
            offset += 4
            return (field, .fixed32(v))
        default:
            throw fail("wire type \(key & 7) (groups are not used by ONNX)")
        }
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw fail("a varint past the end") }
            let byte = buffer[offset]
            offset += 1
            guard shift < 64 else { throw fail("a varint over 10 bytes") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// The UTF-8 text of a length-delimited field.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }

    /// The varints of a packed repeated field.
    func packedVarints(_ range: Range<Int>) throws -> [UInt64] {
        var inner = ProtoReader(buffer, range: range, message: message)
        var values: [UInt64] = []
        while inner.offset < inner.end { values.append(try inner.varint()) }
        return values
    }

    /// The little-endian float32 values of a packed repeated field or a raw data field.
    func floats(_ range: Range<Int>) throws -> [Float] {
        guard range.count % 4 == 0 else { throw fail("\(range.count) bytes of float32 values") }
        return (0 ..< range.count / 4).map {
            Float(bitPattern: buffer.loadUnaligned(fromByteOffset: range.lowerBound + 4 * $0, as: UInt32.self).littleEndian)
        }
    }

    /// The little-endian int64 values of a raw data field.
    func int64s(_ range: Range<Int>) throws -> [Int64] {
        guard range.count % 8 == 0 else { throw fail("\(range.count) bytes of int64 values") }
        return (0 ..< range.count / 8).map {
            Int64(bitPattern: buffer.loadUnaligned(fromByteOffset: range.lowerBound + 8 * $0, as: UInt64.self).littleEndian)
        }
    }
}
