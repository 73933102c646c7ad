/// The files TFLite's metadata writer packs beside a model — label lists, vocabularies — as a
/// zip archive appended to the FlatBuffer. Only stored (uncompressed) members are read, which
/// is how the metadata writer packs them; every offset is checked against the file.
public enum TFLiteAssociatedFiles {
    /// The names of the packed files (empty when the model has none).
    public static func names(in file: MappedFile) throws -> [String] {
        try entries(file.bytes).map(\.name)
    }

    /// The packed file `name`, or nil when the model has no such file.
    public static func file(_ name: String, in file: MappedFile) throws -> [UInt8]? {
        guard let entry = try entries(file.bytes).first(where: { $0.name == name }) else { return nil }
        return Array(UnsafeRawBufferPointer(rebasing: file.bytes[entry.data]))
    }

    /// The lines of a packed label file: by default the first file whose name starts with
    /// "labels" (TFLite's convention); nil when there is none. A trailing empty line is dropped.
    public static func labels(in file: MappedFile, named name: String? = nil) throws -> [String]? {
        let all = try entries(file.bytes)
        guard let entry = all.first(where: { entry in name.map { entry.name == $0 } ?? entry.name.hasPrefix("labels") }) else { return nil }
        var lines = String(decoding: UnsafeRawBufferPointer(rebasing: file.bytes[entry.data]), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    struct Entry { let name: String; let data: Range<Int> }

    static func entries(_ bytes: UnsafeRawBufferPointer) throws -> [Entry] {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func fail(_ why: String) -> ModelError { .malformed("associated files: \(why)") }
        // The end-of-central-directory record, within the last 64 KiB + 22 bytes.
        guard bytes.count >= 22 else { return [] }
        // Its comment must reach exactly to the end of the file: the same four bytes inside a
        // model's weights are not a directory.
        var eocd: Int?
        var at = bytes.count - 22
        while at >= max(0, bytes.count - 22 - 65_535) {
            if u32(at) == 0x0605_4B50 && at + 22 + u16(at + 20) == bytes.count { eocd = at; break }
            at -= 1
        }
        guard let end = eocd else { return [] }
        let count = u16(end + 10), size = u32(end + 12), declared = u32(end + 16)
        // The archive is appended: its offsets count from its own start.
        let start = end - size
        guard start >= 0, declared <= start else { throw fail("central directory of \(size) bytes at \(declared) does not fit") }
        let shift = start - declared
        var entries: [Entry] = []
        var p = start
        for i in 0 ..< count {
            guard p + 46 <= end, u32(p) == 0x0201_4B50 else { throw fail("entry \(i) of the central directory is damaged") }
            let method = u16(p + 10), compressed = u32(p + 20), nameLength = u16(p + 28)
            let extra = u16(p + 30), comment = u16(p + 32), local = u32(p + 42) + shift
            guard p + 46 + nameLength <= end else { throw fail("entry \(i)'s name runs past the directory") }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[p + 46 ..< p + 46 + nameLength]), as: UTF8.self)
            guard local >= 0, local + 30 <= start, u32(local) == 0x0403_4B50 else { throw fail("\(name): local header missing") }
            let dataStart = local + 30 + u16(local + 26) + u16(local + 28)
            guard dataStart + compressed <= start else { throw fail("\(name): \(compressed) bytes run past the archive") }
            guard method == 0 else { throw ModelError.malformed("associated file \(name) is compressed (method \(method)); only stored files are read") }
            entries.append(Entry(name: name, data: dataStart ..< dataStart + compressed))
            p += 46 + nameLength + extra + comment
        }
        return entries
    }
}
