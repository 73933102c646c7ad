/// Load-time rewriting: weight-only subgraphs (sparse → dense, float16 → float32, and any
/// operator whose inputs are all constant) are evaluated once and replaced by their results.
public enum GraphOptimizer {
    public static func foldConstants(_ input: Graph) throws -> Graph {
        var graph = input
        var kept: [Node] = []
        for (index, node) in graph.nodes.enumerated() {
            let live = node.inputs.filter { $0 >= 0 }
            guard !live.isEmpty, live.allSatisfy({ graph.tensors[$0].isConstant }), node.outputs.count == 1 else {
                kept.append(node)
                continue
            }
            let out = node.outputs[0]
            switch node.operation {
            case .densify:
                let source = graph.tensors[live[0]]
                guard let format = source.sparsity, let values = source.constant else {
                    throw ModelError.invalidGraph("node \(index) DENSIFY: input tensor \(live[0]) is not sparse")
                }
                graph.tensors[out].constant = try Densify.run(values, format: format, shape: graph.tensors[out].shape, node: index)
            case .dequantize where graph.tensors[live[0]].type.isQuantized:
                graph.tensors[out].constant = .float32(try dequantized(graph.tensors[live[0]], node: index))
            case .dequantize:
                guard case let .float16(halves) = graph.tensors[live[0]].constant else {
                    throw ModelError.unsupportedOperator(name: "DEQUANTIZE of \(graph.tensors[live[0]].type.rawValue)", node: index)
                }
                guard halves.count == graph.tensors[out].elementCount else {
                    throw ModelError.invalidGraph("node \(index) DEQUANTIZE: \(halves.count) values for shape \(graph.tensors[out].shape)")
                }
                graph.tensors[out].constant = .float32(halves.map(Half.toFloat))
            case _ where live.contains(where: { graph.tensors[$0].type.isQuantized }) || graph.tensors[out].type.isQuantized:
                // Quantized constants stay as they are: their kernels read them at load.
                kept.append(node)
                continue
            default:
                // Evaluated by the reference kernels on temporary memory.
                graph.tensors[out].constant = .float32(try ConstantEvaluator.evaluate(node, index: index, graph: graph))
            }
            graph.tensors[out].type = graph.tensors[out].constant.map { if case .int32 = $0 { .int32 } else { .float32 } } ?? .float32
            graph.tensors[out].quantization = nil
            graph.tensors[out].sparsity = nil
        }
        graph.nodes = kept
        return graph
    }
}

extension GraphOptimizer {
    /// The real values of quantized weights (per-tensor or per-channel along their axis).
    static func dequantized(_ t: TensorInfo, node: Int) throws -> [Float] {
        guard let q = t.quantization else { throw ModelError.invalidGraph("node \(node) DEQUANTIZE: tensor '\(t.name)' has no quantization") }
        let values: [Int32]
        switch t.constant {
        case let .int8(v)?: values = v.map(Int32.init)
        case let .uint8(v)?: values = v.map(Int32.init)
        default: throw ModelError.invalidGraph("node \(node) DEQUANTIZE: tensor '\(t.name)' holds no quantized values")
        }
        guard values.count == t.elementCount else {
            throw ModelError.invalidGraph("node \(node) DEQUANTIZE: \(values.count) values for shape \(t.shape)")
        }
        // Elements between successive channel indices along the axis.
        let inner = t.shape.suffix(from: min(t.shape.count, q.axis + 1)).reduce(1, *)
        let channels = q.scales.count
        return values.enumerated().map { i, v in
            let c = channels > 1 ? (i / inner) % channels : 0
            return Float(Double(q.scales[c]) * Double(v - q.zeroPoints[c]))
        }
    }
}

/// IEEE 754 half precision, converted by bits (no Float16 type needed on any platform).
package enum Half {
    package static func toFloat(_ h: UInt16) -> Float {
        let sign = UInt32(h >> 15) << 31
        let exponent = Int((h >> 10) & 0x1F)
        let mantissa = UInt32(h & 0x3FF)
        switch exponent {
        case 0:
            // Subnormal: mantissa · 2⁻²⁴.
            let magnitude = Float(mantissa) * 5.960464477539063e-8
            return sign == 0 ? magnitude : -magnitude
        case 31:
            return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
        }
    }
}
