/// A FlatBuffers reader over untrusted bytes: every offset is checked before it is followed,
/// so a damaged file gives `ModelError.malformed` naming the structure, never a crash. Reads
/// go straight to the bytes (no copy, no unpacking).
struct FlatBuffer {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func check(_ at: Int, _ size: Int, _ what: @autoclosure () -> String) throws {
        guard at >= 0, size >= 0, at <= count - size else {
            throw ModelError.malformed("\(what()) at offset \(at) (+\(size)) lies outside the \(count)-byte file")
        }
    }

    func load<T: FixedWidthInteger>(_ at: Int, as type: T.Type, _ what: @autoclosure () -> String) throws -> T {
        try check(at, MemoryLayout<T>.size, what())
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    func float(_ at: Int, _ what: @autoclosure () -> String) throws -> Float {
        Float(bitPattern: try load(at, as: UInt32.self, what()))
    }

    /// The root table (the uoffset at byte 0).
    func root() throws -> FBTable {
        let offset = Int(try load(0, as: UInt32.self, "root offset"))
        return try FBTable(self, at: offset, "root table")
    }

    /// The 4-byte file identifier after the root offset.
    var identifier: String? {
        guard count >= 8 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[4 ..< 8]), as: UTF8.self)
    }
}

/// A table: fields found through its vtable.
struct FBTable {
    let fb: FlatBuffer
    let position: Int
    let vtable: Int
    let vtableSize: Int
    let name: String

    init(_ fb: FlatBuffer, at position: Int, _ name: String) throws {
        self.fb = fb
        self.position = position
        self.name = name
        let soffset = Int(try fb.load(position, as: Int32.self, "\(name) vtable offset"))
        vtable = position - soffset
        vtableSize = Int(try fb.load(vtable, as: UInt16.self, "\(name) vtable"))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw ModelError.malformed("\(name) at offset \(position) has a vtable of \(vtableSize) bytes")
        }
        try fb.check(vtable, vtableSize, "\(name) vtable")
    }

    /// Absolute offset of field `id`, or nil when absent.
    func field(_ id: Int) throws -> Int? {
        let slot = 4 + 2 * id
        guard slot + 2 <= vtableSize else { return nil }
        let offset = Int(try fb.load(vtable + slot, as: UInt16.self, "\(name) field \(id)"))
        return offset == 0 ? nil : position + offset
    }

    func integer<T: FixedWidthInteger>(_ id: Int, _ type: T.Type, default value: T = 0) throws -> T {
        guard let at = try field(id) else { return value }
        return try fb.load(at, as: T.self, "\(name) field \(id)")
    }

    func bool(_ id: Int, default value: Bool = false) throws -> Bool {
        try integer(id, UInt8.self, default: value ? 1 : 0) != 0
    }

    func float(_ id: Int, default value: Float = 0) throws -> Float {
        guard let at = try field(id) else { return value }
        return try fb.float(at, "\(name) field \(id)")
    }

    private func indirect(_ at: Int, _ what: String) throws -> Int {
        at + Int(try fb.load(at, as: UInt32.self, what))
    }

    func table(_ id: Int, _ what: String) throws -> FBTable? {
        guard let at = try field(id) else { return nil }
        return try FBTable(fb, at: indirect(at, "\(name).\(what)"), "\(name).\(what)")
    }

    func vector(_ id: Int, elementSize: Int, _ what: String) throws -> FBVector? {
        guard let at = try field(id) else { return nil }
        return try FBVector(fb, at: indirect(at, "\(name).\(what)"), elementSize: elementSize, "\(name).\(what)")
    }

    func string(_ id: Int, _ what: String) throws -> String? {
        guard let v = try vector(id, elementSize: 1, what) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: fb.bytes[v.start ..< v.start + v.count]), as: UTF8.self)
    }

    /// A vector of 32-bit integers as an array.
    func int32s(_ id: Int, _ what: String) throws -> [Int32]? {
        guard let v = try vector(id, elementSize: 4, what) else { return nil }
        return try (0 ..< v.count).map { try v.int32($0) }
    }
}

/// A vector: a 32-bit length followed by its elements.
struct FBVector {
    let fb: FlatBuffer
    let start: Int  // first element
    let count: Int
    let elementSize: Int
    let name: String

    init(_ fb: FlatBuffer, at position: Int, elementSize: Int, _ name: String) throws {
        self.fb = fb
        self.name = name
        self.elementSize = elementSize
        count = Int(try fb.load(position, as: UInt32.self, "\(name) length"))
        start = position + 4
        let (bytes, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow else { throw ModelError.malformed("\(name) claims \(count) elements") }
        try fb.check(start, bytes, "\(name) (\(count) elements)")
    }

    func int32(_ i: Int) throws -> Int32 {
        try fb.load(start + 4 * i, as: Int32.self, "\(name)[\(i)]")
    }

    func table(_ i: Int) throws -> FBTable {
        let at = start + 4 * i
        return try FBTable(fb, at: at + Int(try fb.load(at, as: UInt32.self, "\(name)[\(i)]")), "\(name)[\(i)]")
    }

    /// The raw element bytes.
    var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: fb.bytes[start ..< start + count * elementSize]) }
}
