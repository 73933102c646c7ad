/// Evaluates a node whose inputs are all constant with the reference kernels, at load.
enum ConstantEvaluator {
    static func evaluate(_ node: Node, index: Int, graph: Graph) throws -> [Float] {
        let shape = try ShapeInference.outputShape(node, index: index, graph: graph)
        var buffers: [Int: UnsafeMutablePointer<Float>] = [:]
        defer { for p in buffers.values { p.deallocate() } }
        for t in node.inputs where t >= 0 && buffers[t] == nil {
            guard case let .float32(values)? = graph.tensors[t].constant else { continue }
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, values.count))
            p.initialize(from: values, count: values.count)
            buffers[t] = p
        }
        let count = shape.reduce(1, *)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: max(1, count))
        output.initialize(repeating: 0, count: count)
        buffers[node.outputs[0]] = output
        let shapes = graph.tensors.enumerated().map { $0.offset == node.outputs[0] ? shape : $0.element.shape }
        let builder = KernelBuilder(graph: graph, choice: .reference, shapes: shapes, constant: { buffers[$0] }, weights: KernelMemory())
        let binding = Binding(tensor: { t in FloatTensor(shape: shapes[t], data: buffers[t] ?? output) }, threads: 1, scratch: KernelMemory())
        try builder.prepare(node, index: index, outputShape: shape).bind(binding).run(.serial)
        return Array(UnsafeBufferPointer(start: output, count: count))
    }
}
