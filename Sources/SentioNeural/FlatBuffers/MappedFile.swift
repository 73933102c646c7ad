#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory mapping of a whole file; unmapped when the last reference goes.
public final class MappedFile: @unchecked Sendable {
    // Unchecked: the mapping is read-only and never changes after init.
    public let bytes: UnsafeRawBufferPointer
    public let path: String

    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ModelError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw ModelError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(st.st_size)
        guard size > 0 else { throw ModelError.unreadable(path: path, reason: "empty file") }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw ModelError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
    }

    /// Wraps bytes already in memory (copied into an owned allocation), for tests and fuzzing.
    public init(bytes source: [UInt8], name: String = "memory") {
        path = name
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(1, source.count), alignment: 16)
        source.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: source.count) }
        bytes = UnsafeRawBufferPointer(start: base, count: source.count)
        owned = true
    }

    private var owned = false

    deinit {
        if owned {
            bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        } else if let base = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        }
    }
}
