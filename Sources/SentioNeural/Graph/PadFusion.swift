extension GraphOptimizer {
    /// Folds a PAD of height and width only into the VALID convolution that alone reads it, as
    /// explicit padding: the padded copy is never made. (BlazeFace-style detectors pad before
    /// every strided depthwise convolution; the copies cost more than the convolutions.)
    public static func fusePadding(_ input: Graph) -> Graph {
        var graph = input
        var readers: [Int: Int] = [:]
        for node in graph.nodes { for t in node.inputs where t >= 0 { readers[t, default: 0] += 1 } }
        let outputs = Set(graph.outputs)
        var producer: [Int: Int] = [:]
        for (i, node) in graph.nodes.enumerated() { for t in node.outputs { producer[t] = i } }
        var removed = Set<Int>()
        for (i, node) in graph.nodes.enumerated() {
            let window: Window
            switch node.operation {
            case let .conv2D(w, _), let .depthwiseConv2D(w, _, _): window = w
            default: continue
            }
            guard window.padding == .valid, let source = node.inputs.first, source >= 0,
                  readers[source] == 1, !outputs.contains(source),
                  let p = producer[source], case .pad = graph.nodes[p].operation,
                  graph.nodes[p].inputs.count >= 2, case let .int32(pads)? = graph.tensors[graph.nodes[p].inputs[1]].constant,
                  pads.count == 8, pads[0] == 0, pads[1] == 0, pads[6] == 0, pads[7] == 0
            else { continue }
            var fused = window
            fused.padding = .explicit(top: Int(pads[2]), bottom: Int(pads[3]), left: Int(pads[4]), right: Int(pads[5]))
            var rewritten = node
            rewritten.inputs[0] = graph.nodes[p].inputs[0]
            switch node.operation {
            case let .conv2D(_, act): rewritten.operation = .conv2D(fused, act)
            case let .depthwiseConv2D(_, m, act): rewritten.operation = .depthwiseConv2D(fused, multiplier: m, act)
            default: continue
            }
            graph.nodes[i] = rewritten
            removed.insert(p)
        }
        graph.nodes = graph.nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        return graph
    }
}
