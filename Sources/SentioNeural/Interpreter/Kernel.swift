import Dispatch

/// Runs `count` chunks of work on up to `threads` threads (the caller's among them).
public struct ThreadPool: Sendable {
    public let threads: Int

    public init(threads: Int) {
        self.threads = max(1, threads)
    }

    /// Calls `body(chunk)` for chunk in 0..<count, spread over the threads; returns when all are done.
    @inlinable
    public func parallelFor(_ count: Int, _ body: (Int) -> Void) {
        if threads == 1 || count <= 1 {
            for i in 0 ..< count { body(i) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            DispatchQueue.concurrentPerform(iterations: min(threads, count)) { worker in
                var i = worker
                while i < count {
                    box.value(i)
                    i += threads
                }
            }
        }
    }
}

extension ThreadPool {
    /// Calls `body(worker, workers)` once on each of `min(threads, limit)` threads, so each can
    /// take its own share of the work and its own scratch memory.
    @inlinable
    public func forEachWorker(limit: Int, _ body: (Int, Int) -> Void) {
        let workers = max(1, min(threads, limit))
        if workers == 1 { return body(0, 1) }
        withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            DispatchQueue.concurrentPerform(iterations: workers) { box.value($0, workers) }
        }
    }
}

/// Hands a non-Sendable value to `concurrentPerform`: the kernels split their output into
/// disjoint parts per chunk, so the closures never write the same memory.
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
