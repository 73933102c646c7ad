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
                            arithmetic: QuantizedArithmetic = .xnnpack, memoryLimit: Int = 1 << 31) throws {
        let model = try CompiledModel(graph: graph, kernels: kernels, arithmetic: arithmetic, memoryLimit: memoryLimit)
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

    private func inputTensor(_ index: Int) throws -> Int {
        guard index >= 0, index < graph.inputs.count else {
            throw ModelError.invalidInput("input \(index) of \(graph.inputs.count)")
        }
        return graph.inputs[index]
    }

    /// The element type of graph input `index` (float32, or int8/uint8 for quantized models).
    public func inputType(_ index: Int) -> ElementType { graph.tensors[graph.inputs[index]].type }
    /// The element type of graph output `index`.
    public func outputType(_ index: Int) -> ElementType { graph.tensors[graph.outputs[index]].type }
    /// How graph input `index`'s stored values map to real ones (nil for float inputs).
    public func inputQuantization(_ index: Int) -> Quantization? { graph.tensors[graph.inputs[index]].quantization }
    /// How graph output `index`'s stored values map to real ones (nil for float outputs).
    public func outputQuantization(_ index: Int) -> Quantization? { graph.tensors[graph.outputs[index]].quantization }

    /// Copies `values` into graph input `index`; a quantized input stores each value
    /// quantized (rounded to the nearest step, clamped to the type).
    public func setInput(_ index: Int, _ values: [Float]) throws {
        let t = try inputTensor(index)
        let count = shapes[t].reduce(1, *)
        guard values.count == count else {
            throw ModelError.invalidInput("input \(index) takes \(count) values (shape \(shapes[t])), got \(values.count)")
        }
        let info = graph.tensors[t]
        if info.type.isQuantized, let q = info.quantization {
            let raw = UnsafeMutableRawPointer(memory(of: t)!)
            for (i, v) in values.enumerated() {
                raw.storeBytes(of: UInt8(truncatingIfNeeded: q.quantize(v, as: info.type)), toByteOffset: i, as: UInt8.self)
            }
            return
        }
        memory(of: t)!.update(from: values, count: count)
    }

    /// Copies raw values in the input tensor's own type (little-endian) into graph input
    /// `index`: for a uint8 image model, the pixels themselves.
    public func setInput(_ index: Int, bytes: [UInt8]) throws {
        let t = try inputTensor(index)
        let size = shapes[t].reduce(1, *) * graph.tensors[t].type.size
        guard bytes.count == size else {
            throw ModelError.invalidInput("input \(index) takes \(size) bytes (\(graph.tensors[t].type.rawValue), shape \(shapes[t])), got \(bytes.count)")
        }
        UnsafeMutableRawPointer(memory(of: t)!).copyMemory(from: bytes, byteCount: size)
    }

    /// Writes graph input `index` in place (a float32 input).
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        let t = try inputTensor(index)
        guard graph.tensors[t].type == .float32 else {
            throw ModelError.invalidInput("input \(index) is \(graph.tensors[t].type.rawValue): write it with withInputBytes")
        }
        return try body(UnsafeMutableBufferPointer(start: memory(of: t)!, count: shapes[t].reduce(1, *)))
    }

    /// Writes graph input `index`'s bytes in place, in its own type.
    public func withInputBytes<R>(_ index: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        let t = try inputTensor(index)
        let size = shapes[t].reduce(1, *) * graph.tensors[t].type.size
        return try body(UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(memory(of: t)!), count: size))
    }

    /// Runs every node once on this interpreter's pool.
    public func invoke() {
        invoke(on: pool)
    }

    /// Runs every node once, stopping between operators when the task's ``ComputeDeadline``
    /// passes or the task is cancelled; then it throws ``ComputeDeadlineExceeded`` and the
    /// outputs are not to be read. Without a deadline it is ``invoke()``.
    public func run() throws {
        guard ComputeDeadline.current != nil || Task.isCancelled else { return invoke() }
        try ComputeDeadline.check()
        let pool = pool.limited(to: threads)
        let finished = pool.withWorkers { () -> Bool in
            for step in steps {
                if ComputeDeadline.expired { return false }
                step.run(pool)
            }
            return true
        }
        if !finished {
            try ComputeDeadline.check()
            throw ComputeDeadlineExceeded(budget: ComputeDeadline.current?.budget, cancelled: Task.isCancelled)
        }
    }

    /// Runs every node once on `pool` (at most ``threads`` of its threads: scratch is sized
    /// for them).
    public func invoke(on pool: ThreadPool) {
        let pool = pool.limited(to: threads)
        pool.withWorkers {
            for step in steps { step.run(pool) }
        }
    }

    /// Graph output `index` as an array; a quantized output is dequantized (real values).
    public func output(_ index: Int) -> [Float] {
        let t = graph.outputs[index]
        let info = graph.tensors[t]
        if info.type.isQuantized, let q = info.quantization, let p = memory(of: t) {
            let raw = UnsafeRawPointer(p)
            return (0 ..< shapes[t].reduce(1, *)).map { i in
                let byte = raw.load(fromByteOffset: i, as: UInt8.self)
                return q.dequantize(info.type == .int8 ? Int32(Int8(bitPattern: byte)) : Int32(byte))
            }
        }
        if let p = memory(of: t) { return Array(UnsafeBufferPointer(start: p, count: shapes[t].reduce(1, *))) }
        // An output folded to a constant at load.
        if case let .float32(v)? = graph.tensors[t].constant { return v }
        return []
    }

    /// Graph output `index`'s raw bytes in its own type (little-endian).
    public func outputBytes(_ index: Int) -> [UInt8] {
        let t = graph.outputs[index]
        let size = shapes[t].reduce(1, *) * graph.tensors[t].type.size
        guard let p = memory(of: t) else { return [] }
        return Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(p), count: size))
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
