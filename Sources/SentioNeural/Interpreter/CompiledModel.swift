#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A model prepared once and shared by every stream that runs it: shapes checked, activation
/// memory planned, weights moved into aligned memory and packed for the fast kernels. It is
/// immutable; each ``Interpreter`` over it brings only its own working memory (the activation
/// arena and per-worker scratch), so 32 streams hold the weights once.
public final class CompiledModel: @unchecked Sendable {
    // Unchecked: every stored property is written in init only; the weight memory is read,
    // never written, by the kernels of every interpreter.

    /// The graph, without the float weights that moved into the model's own memory.
    public let graph: Graph
    /// Shapes as the kernels see them (computed and checked at init).
    public let shapes: [[Int]]
    public let kernels: KernelChoice
    /// Floats of activation memory one interpreter needs (the planned arena).
    let arenaCount: Int
    /// Each activation's offset in the arena.
    let offsets: [Int: Int]
    /// The model's float constants, in aligned memory.
    let constants: [Int: UnsafeMutablePointer<Float>]
    private let constantBlocks: [UnsafeMutablePointer<Float>]
    private let constantBytes: Int
    /// Packed weights and padded biases of the fast kernels.
    let packed: KernelMemory
    let nodes: [PreparedNode]

    /// Bytes of the activation arena each interpreter allocates.
    public var arenaBytes: Int { arenaCount * 4 }
    /// Bytes of weights held once for all interpreters (constants and their packed copies).
    public var weightBytes: Int { constantBytes + packed.bytes }

    /// Prepares `graph`. The graph is consumed: pass it without keeping a copy, and its weight
    /// arrays are freed as they move into the model's memory. `memoryLimit` bounds the
    /// activation arena (bytes).
    public init(graph input: consuming Graph, kernels: KernelChoice = .fast, memoryLimit: Int = 1 << 31) throws {
        var graph = input
        self.kernels = kernels
        var shapes = graph.tensors.map(\.shape)

        // Shapes first: everything after relies on them being consistent.
        for (i, node) in graph.nodes.enumerated() {
            guard node.outputs.count == 1 else {
                throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) has \(node.outputs.count) outputs")
            }
            for t in node.inputs where t >= 0 {
                let info = graph.tensors[t]
                if info.type != .float32 && !info.type.isQuantized && info.constant == nil {
                    throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) reads non-constant \(info.type.rawValue) tensor \(t)")
                }
                if info.sparsity != nil { throw ModelError.invalidGraph("node \(i) reads sparse tensor \(t) that was not densified") }
            }
            var view = graph
            view.tensors = zip(graph.tensors, shapes).map { var t = $0; t.shape = $1; return t }
            shapes[node.outputs[0]] = try ShapeInference.outputShape(node, index: i, graph: view)
        }
        for t in graph.inputs where graph.tensors[t].isConstant || !(graph.tensors[t].type == .float32 || graph.tensors[t].type.isQuantized) {
            throw ModelError.invalidGraph("graph input \(t) is not a float32, int8 or uint8 variable")
        }
        for t in graph.outputs where !graph.tensors[t].isConstant && !(graph.tensors[t].type == .float32 || graph.tensors[t].type.isQuantized) {
            throw ModelError.invalidGraph("graph output \(t) is \(graph.tensors[t].type.rawValue), not float32, int8 or uint8")
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
        // In floats: an int8 tensor of n values takes ⌈n / 4⌉.
        let sizes = lifetimes.keys.reduce(into: [Int: Int]()) {
            $0[$1] = (planned[$1].reduce(1, *) * graph.tensors[$1].type.size + 3) / 4
        }
        let plan = MemoryPlan(sizes: sizes, lifetimes: lifetimes)
        guard plan.size * 4 <= memoryLimit else {
            throw ModelError.invalidGraph("activations need \(plan.size * 4) bytes, over the limit of \(memoryLimit)")
        }
        arenaCount = max(16, plan.size)
        offsets = plan.offsets

        // Float constants that nodes read at run time move into aligned memory; each array is
        // released as soon as it is copied, so peak memory holds the weights about once.
        var constants: [Int: UnsafeMutablePointer<Float>] = [:]
        var blocks: [UnsafeMutablePointer<Float>] = []
        var bytes = 0
        for node in graph.nodes {
            for t in node.inputs where t >= 0 && constants[t] == nil && plan.offsets[t] == nil {
                guard case let .float32(values)? = graph.tensors[t].constant else { continue }
                let p = Interpreter.allocate(max(1, values.count))
                p.initialize(from: values, count: values.count)
                blocks.append(p)
                bytes += max(1, values.count) * 4
                constants[t] = p
                if !graph.outputs.contains(t) { graph.tensors[t].constant = nil }
            }
        }
        self.constants = constants
        constantBlocks = blocks
        constantBytes = bytes
        self.shapes = shapes
        self.graph = graph
        let packed = KernelMemory()
        self.packed = packed
        let builder = KernelBuilder(graph: graph, choice: kernels, shapes: shapes, constant: { constants[$0] }, weights: packed)
        var nodes: [PreparedNode] = []
        for (i, node) in graph.nodes.enumerated() {
            nodes.append(try builder.prepare(node, index: i, outputShape: shapes[node.outputs[0]]))
        }
        self.nodes = nodes
    }

    /// Loads and prepares the model file at `path`.
    public convenience init(path: String, kernels: KernelChoice = .fast) throws {
        try self.init(graph: ModelLoader.load(path: path), kernels: kernels)
    }

    deinit {
        for p in constantBlocks { free(p) }
    }

    /// Shape of graph input `index`.
    public func inputShape(_ index: Int) -> [Int] { shapes[graph.inputs[index]] }
    /// Shape of graph output `index`.
    public func outputShape(_ index: Int) -> [Int] { shapes[graph.outputs[index]] }
}
