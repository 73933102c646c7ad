#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a ``Graph``: one arena for all activations (planned once), constants in their own
/// block, one prepared kernel per node, executed in order on a thread pool.
///
/// An interpreter is not thread-safe: use one per thread (they can share a `Graph`).
public final class Interpreter {
    /// The graph run; its float constants have moved into the interpreter's own aligned
    /// memory (so a model's weights are not held twice), int32 constants stay.
    public private(set) var graph: Graph
    public let threads: Int
    public let kernels: KernelChoice
    private let pool: ThreadPool
    private var steps: [Kernel] = []
    private let arena: UnsafeMutablePointer<Float>
    private let arenaCount: Int
    private var constants: [UnsafeMutablePointer<Float>] = []
    private var tensorMemory: [Int: UnsafeMutablePointer<Float>] = [:]
    /// Shapes as the kernels see them (computed and checked at init).
    public private(set) var shapes: [[Int]]

    /// Bytes of activation memory (the arena).
    public var arenaBytes: Int { arenaCount * 4 }

    /// Prepares `graph` for `threads` threads (default: all cores).
    ///
    /// The graph is consumed: pass it without keeping a copy, and its weight arrays are freed
    /// as they move into the interpreter.
    /// `memoryLimit` bounds the activation arena (bytes).
    public init(graph input: consuming Graph, threads: Int? = nil, kernels: KernelChoice = .fast,
                memoryLimit: Int = 1 << 31) throws {
        var graph = input
        self.graph = Graph(tensors: [], nodes: [], inputs: [], outputs: [], format: graph.format)
        self.threads = max(1, threads ?? Interpreter.coreCount)
        self.kernels = kernels
        pool = ThreadPool(threads: self.threads)
        shapes = graph.tensors.map(\.shape)

        // Shapes first: everything after relies on them being consistent.
        for (i, node) in graph.nodes.enumerated() {
            guard node.outputs.count == 1 else {
                throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) has \(node.outputs.count) outputs")
            }
            for t in node.inputs where t >= 0 {
                let info = graph.tensors[t]
                if info.type != .float32 && info.constant == nil {
                    throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) reads non-constant \(info.type.rawValue) tensor \(t)")
                }
                if info.sparsity != nil { throw ModelError.invalidGraph("node \(i) reads sparse tensor \(t) that was not densified") }
            }
            var view = graph
            view.tensors = zip(graph.tensors, shapes).map { var t = $0; t.shape = $1; return t }
            shapes[node.outputs[0]] = try ShapeInference.outputShape(node, index: i, graph: view)
        }
        for t in graph.inputs where graph.tensors[t].isConstant || graph.tensors[t].type != .float32 {
            throw ModelError.invalidGraph("graph input \(t) is not a float32 variable")
        }

        // Lifetimes of every non-constant tensor, in node positions (inputs live from −1).
        var lifetimes: [Int: ClosedRange<Int>] = [:]
        func touch(_ t: Int, _ at: Int) {
            guard t >= 0, !graph.tensors[t].isConstant else { return }
            let r = lifetimes[t] ?? at ... at
            lifetimes[t] = min(r.lowerBound, at) ... max(r.upperBound, at)
        }
        for t in graph.inputs { touch(t, -1) }
        for (i, node) in graph.nodes.enumerated() {
            for t in node.inputs { touch(t, i) }
            for t in node.outputs { touch(t, i) }
        }
        for t in graph.outputs { touch(t, graph.nodes.count) }
        let planned = shapes
        let sizes = lifetimes.keys.reduce(into: [Int: Int]()) { $0[$1] = planned[$1].reduce(1, *) }
        let plan = MemoryPlan(sizes: sizes, lifetimes: lifetimes)
        guard plan.size * 4 <= memoryLimit else {
            throw ModelError.invalidGraph("activations need \(plan.size * 4) bytes, over the limit of \(memoryLimit)")
        }
        arenaCount = max(16, plan.size)
        arena = Interpreter.allocate(arenaCount)
        arena.initialize(repeating: 0, count: arenaCount)
        for (t, offset) in plan.offsets { tensorMemory[t] = arena + offset }

        // Float constants that nodes read at run time move into aligned memory; each array is
        // released as soon as it is copied, so peak memory holds the weights about once.
        for node in graph.nodes {
            for t in node.inputs where t >= 0 && tensorMemory[t] == nil {
                guard case let .float32(values)? = graph.tensors[t].constant else { continue }
                let p = Interpreter.allocate(max(1, values.count))
                p.initialize(from: values, count: values.count)
                constants.append(p)
                tensorMemory[t] = p
                if !graph.outputs.contains(t) { graph.tensors[t].constant = nil }
            }
        }
        self.graph = graph
        let memory = tensorMemory
        var builder = KernelBuilder(graph: graph, choice: kernels) { t in
            FloatTensor(shape: planned[t], data: memory[t] ?? memory.values.first!)
        }
        builder.threads = self.threads
        for (i, node) in graph.nodes.enumerated() {
            steps.append(try builder.build(node, index: i, outputShape: shapes[node.outputs[0]]))
        }
    }

    deinit {
        free(arena)
        for p in constants { free(p) }
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
    public func inputShape(_ index: Int) -> [Int] { shapes[graph.inputs[index]] }
    /// Shape of graph output `index`.
    public func outputShape(_ index: Int) -> [Int] { shapes[graph.outputs[index]] }

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
        tensorMemory[t]!.update(from: values, count: count)
    }

    /// Writes graph input `index` in place.
    public func withInput<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        let t = graph.inputs[index]
        return try body(UnsafeMutableBufferPointer(start: tensorMemory[t]!, count: shapes[t].reduce(1, *)))
    }

    /// Runs every node once.
    public func invoke() {
        for step in steps { step.run(pool) }
    }

    /// Graph output `index` as an array.
    public func output(_ index: Int) -> [Float] {
        let t = graph.outputs[index]
        if let p = tensorMemory[t] { return Array(UnsafeBufferPointer(start: p, count: shapes[t].reduce(1, *))) }
        // An output folded to a constant at load.
        if case let .float32(v)? = graph.tensors[t].constant { return v }
        return []
    }

    /// Names of the kernels, in order (for profiling).
    public var kernelNames: [String] { steps.map(\.name) }

    /// Runs node by node and returns the time each took, in seconds.
    public func profile() -> [Double] {
        steps.map { step in
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            step.run(pool)
            clock_gettime(CLOCK_MONOTONIC, &end)
            return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) * 1e-9
        }
    }
}
