import CSentioKernels

/// The threads a model runs on: the caller's and `threads − 1` workers that wait, spinning
/// briefly, for the next job (see CSentioKernels/pool.c). Copies share the same workers.
public struct ThreadPool: Sendable {
    public let threads: Int
    private let workers: Workers?

    final class Workers: @unchecked Sendable {
        // Unchecked: the C pool synchronises its own state; jobs are submitted by one thread.
        let pool: OpaquePointer
        init(threads: Int) { pool = sentio_pool_create(Int32(threads)) }
        deinit { sentio_pool_destroy(pool) }
    }

    public init(threads: Int) {
        self.threads = max(1, threads)
        workers = self.threads > 1 ? Workers(threads: self.threads) : nil
    }

    /// Calls `body(worker, workers)` once on each of `min(threads, limit)` threads, so each can
    /// take its own share of the work (and its own scratch memory); returns when all are done.
    public func forEachWorker(limit: Int, _ body: (Int, Int) -> Void) {
        let count = max(1, min(threads, limit))
        guard count > 1, let workers else { return body(0, 1) }
        withoutActuallyEscaping(body) { body in
            var job = body
            withUnsafeMutablePointer(to: &job) { pointer in
                sentio_pool_run(workers.pool, { context, worker, total in
                    context!.assumingMemoryBound(to: ((Int, Int) -> Void).self).pointee(Int(worker), Int(total))
                }, pointer, Int32(count))
            }
        }
    }
}

/// Hands a non-Sendable value (a pointer, a C parameter block) to the workers: kernels split
/// their output into disjoint parts per worker, so no two threads write the same memory.
@usableFromInline
struct UncheckedBox<T>: @unchecked Sendable {
    @usableFromInline let value: T
    @usableFromInline init(_ value: T) { self.value = value }
}

/// One prepared node: tensors resolved to memory, weights packed; `run` does the work.
struct Kernel {
    let name: String
    let run: (ThreadPool) -> Void
}

/// Which kernels to use.
public enum KernelChoice: String, Sendable, CaseIterable {
    /// Reference kernels only: plain loops, the ground truth for tests.
    case reference
    /// Fast kernels where there are some (SIMD, blocking, threads), reference elsewhere.
    case fast
}
