/// Writes FlatBuffers front to back: a table is laid out with its vtable just before it and
/// its children (tables, vectors, strings) after it, so every 32-bit offset points forward,
/// as the format requires. Enough of the format for writing TFLite models.
struct FlatBufferWriter {
    /// A field's value.
    enum Value {
        case int8(Int8), uint8(UInt8), int32(Int32), uint32(UInt32), float(Float), bool(Bool)
        case table(Table)
        case tables([Table])
        case int32s([Int32])
        case bytes([UInt8], alignment: Int)
        case string(String)
    }

    /// A table: its fields by id (nil: absent, the reader's default).
    struct Table {
        var fields: [Value?]
        init(_ fields: [Value?]) { self.fields = fields }
    }

    private(set) var bytes: [UInt8] = []

    private mutating func align(_ n: Int) {
        while bytes.count % n != 0 { bytes.append(0) }
    }

    private mutating func put<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes += $0 }
    }

    private mutating func patch(_ at: Int, _ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { bytes[at + i] = b } }
    }

    /// The file: the root table's offset, the 4-byte identifier, then the root.
    static func file(root: Table, identifier: String) -> [UInt8] {
        var w = FlatBufferWriter()
        w.put(UInt32(0))
        w.bytes += Array(identifier.utf8.prefix(4))
        let at = w.write(root)
        w.patch(0, UInt32(at))
        return w.bytes
    }

    private static func inline(_ v: Value) -> (size: Int, isOffset: Bool) {
        switch v {
        case .int8, .uint8, .bool: (1, false)
        case .int32, .uint32, .float: (4, false)
        case .table, .tables, .int32s, .bytes, .string: (4, true)
        }
    }

    /// Writes `table` (vtable, then the table, then its children); returns the table's position.
    private mutating func write(_ table: Table) -> Int {
        // Inline layout: 4-byte fields first, then 1-byte ones, after the vtable offset.
        let present = table.fields.enumerated().compactMap { i, v in v.map { (i, $0) } }
        let ordered = present.sorted { FlatBufferWriter.inline($0.1).size > FlatBufferWriter.inline($1.1).size }
        var fieldOffset: [Int: Int] = [:]
        var size = 4
        for (i, v) in ordered {
            fieldOffset[i] = size
            size += FlatBufferWriter.inline(v).size
        }
        // The vtable: its size, the table's inline size, then one offset per field id.
        align(2)
        let vtable = bytes.count
        put(UInt16(4 + 2 * table.fields.count))
        put(UInt16(size))
        for i in table.fields.indices { put(UInt16(fieldOffset[i] ?? 0)) }
        align(4)
        let start = bytes.count
        put(Int32(start - vtable))
        var children: [(at: Int, value: Value)] = []
        for (i, v) in ordered {
            precondition(bytes.count == start + fieldOffset[i]!)
            switch v {
            case let .int8(x): put(x)
            case let .uint8(x): put(x)
            case let .bool(x): put(UInt8(x ? 1 : 0))
            case let .int32(x): put(x)
            case let .uint32(x): put(x)
            case let .float(x): put(x.bitPattern)
            default:
                children.append((bytes.count, v))
                put(UInt32(0))
            }
        }
        for (at, v) in children {
            let target = writeChild(v)
            patch(at, UInt32(target - at))
        }
        return start
    }

    /// Writes a vector, string or table; returns where its offset must point.
    private mutating func writeChild(_ v: Value) -> Int {
        switch v {
        case let .table(t):
            return write(t)
        case let .tables(ts):
            align(4)
            let start = bytes.count
            put(UInt32(ts.count))
            let slots = (0 ..< ts.count).map { start + 4 + 4 * $0 }
            for _ in ts { put(UInt32(0)) }
            for (slot, t) in zip(slots, ts) {
                let at = write(t)
                patch(slot, UInt32(at - slot))
            }
            return start
        case let .int32s(xs):
            align(4)
            let start = bytes.count
            put(UInt32(xs.count))
            for x in xs { put(x) }
            return start
        case let .bytes(data, alignment):
            // The data (after the 4-byte count) lands on `alignment`.
            while (bytes.count + 4) % max(4, alignment) != 0 { bytes.append(0) }
            let start = bytes.count
            put(UInt32(data.count))
            bytes += data
            return start
        case let .string(s):
            align(4)
            let start = bytes.count
            let utf8 = Array(s.utf8)
            put(UInt32(utf8.count))
            bytes += utf8 + [0]
            return start
        default:
            preconditionFailure("not an offset value")
        }
    }
}
