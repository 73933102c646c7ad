#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes behind one or more ``Image`` views. Large buffers are aligned to 2 MiB and
/// marked for transparent huge pages: a 12-megapixel picture is 36 MB, and touching it in
/// 4 KiB pages costs more page faults than libjpeg spends decoding (measured: 56 ms instead of
/// 36 ms per 12-megapixel JPEG).
@usableFromInline
final class PixelStorage: @unchecked Sendable {
    // Unchecked: the bytes are written only through a uniquely referenced storage (Image
    // copies on write), so no two threads ever write, or read while another writes.
    @usableFromInline let bytes: UnsafeMutablePointer<UInt8>
    @usableFromInline let count: Int

    static let hugePageSize = 2 << 20

    /// Uninitialized storage of `count` bytes.
    @usableFromInline
    init(count: Int) {
        self.count = count
        let size = max(1, count)
        var raw: UnsafeMutableRawPointer?
        if size >= 2 * PixelStorage.hugePageSize {
            let rounded = (size + PixelStorage.hugePageSize - 1) / PixelStorage.hugePageSize * PixelStorage.hugePageSize
            if posix_memalign(&raw, PixelStorage.hugePageSize, rounded) == 0, let raw {
                #if os(Linux)
                _ = madvise(raw, rounded, MADV_HUGEPAGE)
                #endif
            }
        }
        if raw == nil { raw = malloc(size) }
        guard let raw else { fatalError("out of memory allocating \(size) bytes of pixels") }
        bytes = raw.bindMemory(to: UInt8.self, capacity: size)
    }

    /// Storage filled with `value`.
    convenience init(count: Int, repeating value: UInt8) {
        self.init(count: count)
        bytes.initialize(repeating: value, count: count)
    }

    /// A copy of these bytes.
    @usableFromInline
    func copy() -> PixelStorage {
        let copy = PixelStorage(count: count)
        copy.bytes.update(from: bytes, count: count)
        return copy
    }

    deinit { free(bytes) }
}
