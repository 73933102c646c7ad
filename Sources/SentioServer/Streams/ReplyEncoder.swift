import Foundation

/// A lean JSON encoder for the live streams' replies: the same JSON as `JSON.string` (keys
/// sorted, slashes unescaped, numbers as Swift prints them, whole doubles without ".0"), made
/// without Foundation's general machinery, which cost 13% of the server's CPU under the face
/// load test (perf). `ReplyEncoderTests` checks it against JSONEncoder on every observation type.
///
/// The values are gathered into a small tree (objects sorted when written) and written into
/// bytes in one pass. Coding paths are not tracked (the observation types never read them).
public enum ReplyEncoder {
    public static func string(_ value: some Encodable) throws -> String {
        let encoder = TreeEncoder()
        try value.encode(to: encoder)
        var out: [UInt8] = []
        out.reserveCapacity(32 << 10)
        try encoder.result.write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// What a value encodes to.
indirect enum JSONNode {
    case null, bool(Bool), int(Int64), uint(UInt64), double(Double), float(Float), string(String)
    case array(ArrayBox), object(ObjectBox)

    func write(into out: inout [UInt8]) throws {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .uint(let u): out.append(contentsOf: String(u).utf8)
        case .double(let d):
            guard d.isFinite else { throw EncodingError.invalidValue(d, .init(codingPath: [], debugDescription: "\(d) is not a JSON number")) }
            var text = d.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(contentsOf: text.utf8)
        case .float(let f):
            guard f.isFinite else { throw EncodingError.invalidValue(f, .init(codingPath: [], debugDescription: "\(f) is not a JSON number")) }
            var text = f.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(contentsOf: text.utf8)
        case .string(let s): Self.write(string: s, into: &out)
        case .array(let box):
            out.append(UInt8(ascii: "["))
            for (i, item) in box.items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try item.node.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let box):
            out.append(UInt8(ascii: "{"))
            // Foundation's sortedKeys on Linux orders keys by their UTF-8 bytes.
            for (i, pair) in box.pairs.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: pair.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try pair.value.node.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func write(string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0 ..< 0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A slot a nested encoder fills in later (containers are written into after they are made).
final class NodeBox { var node: JSONNode = .null }
final class ArrayBox { var items: [NodeBox] = [] }
final class ObjectBox { var pairs: [(key: String, value: NodeBox)] = [] }

final class TreeEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let slot: NodeBox

    init(slot: NodeBox = NodeBox()) { self.slot = slot }

    var result: JSONNode { slot.node }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = slot.node { box = existing } else { box = ObjectBox(); slot.node = .object(box) }
        return KeyedEncodingContainer(KeyedWriter<Key>(box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = slot.node { box = existing } else { box = ArrayBox(); slot.node = .array(box) }
        return UnkeyedWriter(box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleWriter(slot: slot) }

    /// The node of any value: primitives directly, the rest through a nested encoder.
    static func node<T: Encodable>(_ value: T) throws -> NodeBox {
        let slot = NodeBox()
        switch value {
        case let v as Double: slot.node = .double(v)
        case let v as Float: slot.node = .float(v)
        case let v as Int: slot.node = .int(Int64(v))
        case let v as String: slot.node = .string(v)
        case let v as Bool: slot.node = .bool(v)
        // Every other integer type here too: their own encode(to:) asks a single-value container
        // to encode them, which would come back to this function without end.
        case let v as any BinaryInteger:
            if let signed = Int64(exactly: v) { slot.node = .int(signed) } else if let unsigned = UInt64(exactly: v) { slot.node = .uint(unsigned) } else {
                throw EncodingError.invalidValue(v, .init(codingPath: [], debugDescription: "\(v) does not fit 64 bits"))
            }
        // As Foundation writes them.
        case let v as Data: slot.node = .string(v.base64EncodedString())
        case let v as URL: slot.node = .string(v.absoluteString)
        case is Decimal: throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Decimal is not written by the stream encoder"))
        default: try value.encode(to: TreeEncoder(slot: slot))
        }
        return slot
    }
}

struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    var codingPath: [any CodingKey] { [] }

    private func put(_ node: JSONNode, _ key: Key) {
        let slot = NodeBox()
        slot.node = node
        box.pairs.append((key.stringValue, slot))
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.float(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.int(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.uint(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.pairs.append((key.stringValue, try TreeEncoder.node(value)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox(), slot = NodeBox()
        slot.node = .object(nested)
        box.pairs.append((key.stringValue, slot))
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBox(), slot = NodeBox()
        slot.node = .array(nested)
        box.pairs.append((key.stringValue, slot))
        return UnkeyedWriter(box: nested)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = NodeBox()
        box.pairs.append((key.stringValue, slot))
        return TreeEncoder(slot: slot)
    }
}

struct UnkeyedWriter: UnkeyedEncodingContainer {
    let box: ArrayBox
    var codingPath: [any CodingKey] { [] }
    var count: Int { box.items.count }

    private func put(_ node: JSONNode) {
        let slot = NodeBox()
        slot.node = node
        box.items.append(slot)
    }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.float(value)) }
    mutating func encode(_ value: Int) throws { put(.int(Int64(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.items.append(try TreeEncoder.node(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        put(.object(nested))
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        put(.array(nested))
        return UnkeyedWriter(box: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let slot = NodeBox()
        box.items.append(slot)
        return TreeEncoder(slot: slot)
    }
}

struct SingleWriter: SingleValueEncodingContainer {
    let slot: NodeBox
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { slot.node = .null }
    mutating func encode(_ value: Bool) throws { slot.node = .bool(value) }
    mutating func encode(_ value: String) throws { slot.node = .string(value) }
    mutating func encode(_ value: Double) throws { slot.node = .double(value) }
    mutating func encode(_ value: Float) throws { slot.node = .float(value) }
    mutating func encode(_ value: Int) throws { slot.node = .int(Int64(value)) }
    mutating func encode(_ value: Int64) throws { slot.node = .int(value) }
    mutating func encode(_ value: UInt64) throws { slot.node = .uint(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { slot.node = try TreeEncoder.node(value).node }
}
