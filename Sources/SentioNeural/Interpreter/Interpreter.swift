#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``CompiledModel`` for one stream: its own activation arena and scratch, the model's
/// shared weights, one kernel per node executed in order.
///
/// An interpreter is not thread-safe: use one per stream (many can share one model). Threads
/// are chosen per call: ``invoke(on:)`` runs on any ``ThreadPool`` (several interpreters may
/// share one; a pool owned by another thread at the moment runs the call on the caller's
/// thread alone).
public final class Interpreter {
    /// The shared model.
    public let model: CompiledModel
    /// Most threads one call may use (per-worker scratch is sized for them).
    public let threads: Int
    /// The pool `invoke()` runs on.
    public let pool: ThreadPool
    private var steps: [Kernel] = []
    private let arena: UnsafeMutablePointer<Float>
    private let scratch = KernelMemory()

    /// The graph run (its float weights live in the model's memory).
    public var graph: Graph { model.graph }
    public var kernels: KernelChoice { model.kernels }
    /// Shapes as the kernels see them.
    public var shapes: [[Int]] { model.shapes }
    /// Bytes of activation memory (the arena).
    public var arenaBytes: Int { model.arenaBytes }
    /// Bytes of this interpreter's own memory: the arena and the kernels' scratch.
    public var workingBytes: Int { model.arenaBytes + scratch.bytes }

    /// An interpreter of `model` whose `invoke()` runs on `pool` (default: the calling thread
    /// alone).
    public init(model: CompiledModel, pool: ThreadPool = .serial) {
        self.model = model
        self.pool = pool
        threads = pool.threads
        arena = Interpreter.allocate(model.arenaCount)
        arena.initialize(repeating: 0, count: model.arenaCount)
        let (arena, offsets, constants, shapes) = (arena, model.offsets, model.constants, model.shapes)
        let binding = Binding(tensor: { t in
            FloatTensor(shape: shapes[t], data: offsets[t].map { arena + $0 } ?? constants[t] ?? arena)
        }, threads: threads, scratch: scratch)
        steps = model.nodes.map { $0.bind(binding) }
    }

    /// An interpreter of `model` with a pool of its own of `threads` threads.
    public convenience init(model: CompiledModel, threads: Int) {
        self.init(model: model, pool: ThreadPool(threads: threads))
    }

    /// Prepares `graph` for this interpreter alone (`threads`: default all cores). To share a
    /// model between streams, make a ``CompiledModel`` (or ask a ``ModelStore``) and pass it.
    public convenience init(graph: consuming Graph, threads: Int? = nil, kernels: KernelChoice = .fast,
                            memoryLimit: Int = 1 << 31) throws {
        let model = try CompiledModel(graph: graph, kernels: kernels, memoryLimit: memoryLimit)
        self.init(model: model, threads: threads ?? Interpreter.coreCount)
    }

    deinit {
        free(arena)
    }

    static func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, 64, count * 4) == 0, let raw else { fatalError("out of memory: \(count * 4) bytes") }
        return raw.bindMemory(to: Float.self, capacity: count)
    }

    /// Number of cores available to this process.
    public static var coreCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Shape of graph input `index`.
    public func inputShape(_ index: Int) -> [Int] { model.inputShape(index) }
    /// Shape of graph output `index`.
    public func outputShape(_ index: Int) -> [Int] { model.outputShape(index) }

    private func memory(of t: Int) -> UnsafeMutablePointer<Float>? {
        model.offsets[t].map { arena + $0 }
    }

    /// Copies `values` into graph input `index`.
    public func setInput(_ index: Int, _ values: [Float]) throws {
        guard index >= 0, index < graph.inputs.count else {
            throw ModelError.invalidInput("input \(index) of \(graph.inputs.count)")
        }
        let t = graph.inputs[index]
        let count = shapes[t].reduce(1, *)
        guard values.count == count else {
            throw ModelError.invalidInput("input \(index) takes \(count) values (shape \(shapes[t])), got \(values.count)")
        }
        memory(of: t)!.update(from: values, count: count)
    }

    /// Writes graph input `index` in place.
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        guard index >= 0, index < graph.inputs.count else {
            throw ModelError.invalidInput("input \(index) of \(graph.inputs.count)")
        }
        let t = graph.inputs[index]
        return try body(UnsafeMutableBufferPointer(start: memory(of: t)!, count: shapes[t].reduce(1, *)))
    }

    /// Runs every node once on this interpreter's pool.
    public func invoke() {
        invoke(on: pool)
    }

    /// Runs every node once on `pool` (at most ``threads`` of its threads: scratch is sized
    /// for them).
    public func invoke(on pool: ThreadPool) {
        let pool = pool.limited(to: threads)
        pool.withWorkers {
            for step in steps { step.run(pool) }
        }
    }

    /// Graph output `index` as an array.
    public func output(_ index: Int) -> [Float] {
        let t = graph.outputs[index]
        if let p = memory(of: t) { return Array(UnsafeBufferPointer(start: p, count: shapes[t].reduce(1, *))) }
        // An output folded to a constant at load.
        if case let .float32(v)? = graph.tensors[t].constant { return v }
        return []
    }

    /// Names of the kernels, in order (for profiling).
    public var kernelNames: [String] { steps.map(\.name) }

    /// Runs node by node and returns the time each took, in seconds.
    public func profile() -> [Double] {
        pool.withWorkers {
            steps.map { step in
                var start = timespec(), end = timespec()
                clock_gettime(CLOCK_MONOTONIC, &start)
                step.run(pool)
                clock_gettime(CLOCK_MONOTONIC, &end)
                return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) * 1e-9
            }
        }
    }
}
