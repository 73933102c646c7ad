#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes with POSIX calls and errors that name the path.
public enum FileIO {
    /// The bytes of the file at `path`, refusing files over `limit` bytes.
    public static func read(_ path: String, limit: Int = 1 << 31) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ImageError.unreadable(path: path, reason: errnoText()) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ImageError.unreadable(path: path, reason: errnoText()) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ImageError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(st.st_size)
        guard size <= limit else {
            throw ImageError.unreadable(path: path, reason: "file of \(size) bytes exceeds the limit of \(limit)")
        }
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let n = SystemRead(fd, buffer.baseAddress! + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = n == 0 ? "file shrank while reading" : errnoText()
                    break
                }
                done += n
            }
            count = done
        }
        if let failure { throw ImageError.unreadable(path: path, reason: failure) }
        return bytes
    }

    /// Writes `bytes` to `path`, replacing it.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ImageError.unwritable(path: path, reason: errnoText()) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = SystemWrite(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw ImageError.unwritable(path: path, reason: errnoText()) }
                done += n
            }
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

#if canImport(Glibc)
private let SystemRead = Glibc.read
private let SystemWrite = Glibc.write
#elseif canImport(Musl)
private let SystemRead = Musl.read
private let SystemWrite = Musl.write
#elseif canImport(Darwin)
private let SystemRead = Darwin.read
private let SystemWrite = Darwin.write
#endif
