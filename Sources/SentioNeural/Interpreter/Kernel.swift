import CSentioKernels

/// The threads a model runs on: the caller's and `threads − 1` workers (see
/// CSentioKernels/pool.c). Copies share the same workers, and one pool may serve many
/// interpreters: one thread at a time owns the workers (``withWorkers(_:)``); a thread that
/// posts work while another owns them does that work alone, on its own thread. While owned,
/// the workers spin briefly between jobs; otherwise they sleep.
public struct ThreadPool: Sendable {
    /// Most threads one job runs on (the caller's included).
    public let threads: Int
    private let workers: Workers?

    final class Workers: @unchecked Sendable {
        // Unchecked: the C pool synchronises its own state and lets only its owner post jobs.
        let pool: OpaquePointer
        init(threads: Int) { pool = sentio_pool_create(Int32(threads)) }
        deinit { sentio_pool_destroy(pool) }
    }

    /// A pool of `threads` threads in all (1: the caller's only, no workers are started).
    public init(threads: Int) {
        let count = max(1, threads)
        let workers = count > 1 ? Workers(threads: count) : nil
        self.workers = workers
        // Fewer threads may have started than asked for.
        self.threads = workers.map { Int(sentio_pool_threads($0.pool)) } ?? 1
    }

    private init(threads: Int, workers: Workers?) {
        self.threads = threads
        self.workers = workers
    }

    /// The caller's thread alone.
    public static let serial = ThreadPool(threads: 1)

    /// The same workers, at most `count` threads per job.
    public func limited(to count: Int) -> ThreadPool {
        ThreadPool(threads: max(1, min(threads, count)), workers: workers)
    }

    /// Runs `body` with the workers owned by the calling thread, so the jobs it posts are
    /// shared out; when another thread owns them, those jobs run on the calling thread alone.
    public func withWorkers<R>(_ body: () throws -> R) rethrows -> R {
        guard let workers, sentio_pool_acquire(workers.pool) != 0 else { return try body() }
        defer { sentio_pool_release(workers.pool) }
        return try body()
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

/// One node bound to an interpreter's memory: `run` does the work.
struct Kernel {
    let name: String
    let run: (ThreadPool) -> Void
}

/// What binding a prepared node to one interpreter needs.
struct Binding {
    /// The memory of tensor `t`: the interpreter's arena, or the model's shared constants.
    let tensor: (Int) -> FloatTensor
    /// Most threads one run may use (per-worker scratch is sized for them).
    let threads: Int
    /// The interpreter's own scratch memory, freed with it.
    let scratch: KernelMemory
}

/// A node prepared once per model (its weights packed, shared by every interpreter); `bind`
/// gives the kernel over one interpreter's memory.
struct PreparedNode {
    let name: String
    let bind: (Binding) -> Kernel
}

/// Which kernels to use.
public enum KernelChoice: String, Sendable, CaseIterable {
    /// Reference kernels only: plain loops, the ground truth for tests.
    case reference
    /// Fast kernels where there are some (SIMD, blocking, threads), reference elsewhere.
    case fast
}
