/// A model as one graph of typed operators over NHWC Float32 tensors: what every loader
/// (TFLite, dlib) produces and the interpreter runs.
public struct Graph: Sendable, Equatable {
    public var tensors: [TensorInfo]
    /// Nodes in execution order.
    public var nodes: [Node]
    public var inputs: [Int]
    public var outputs: [Int]
    /// Where the graph came from ("TFLite v3", "dlib"), for `model info`.
    public var format: String

    public init(tensors: [TensorInfo], nodes: [Node], inputs: [Int], outputs: [Int], format: String) {
        self.tensors = tensors
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.format = format
    }

    /// Number of learned values (elements of float and quantized constants).
    public var parameterCount: Int {
        tensors.reduce(0) { total, t in
            switch t.constant {
            case .float32?, .int8?, .uint8?: total + t.elementCount
            default: total
            }
        }
    }

    /// Multiply-accumulates of one inference, by operator name.
    public var multiplyAccumulates: [String: Int] {
        var macs: [String: Int] = [:]
        for node in nodes {
            guard let out = node.outputs.first, out >= 0 else { continue }
            let outCount = tensors[out].elementCount
            switch node.operation {
            case .conv2D:
                let f = tensors[node.inputs[1]].shape
                macs["CONV_2D", default: 0] += outCount * f[1] * f[2] * f[3]
            case .depthwiseConv2D:
                let f = tensors[node.inputs[1]].shape
                macs["DEPTHWISE_CONV_2D", default: 0] += outCount * f[1] * f[2]
            case .fullyConnected:
                let w = tensors[node.inputs[1]].shape
                macs["FULLY_CONNECTED", default: 0] += outCount * w[1]
            case .transposeConv:
                let f = tensors[node.inputs[1]].shape
                macs["TRANSPOSE_CONV", default: 0] += tensors[node.inputs[2]].elementCount * f[0] * f[1] * f[2]
            case .transposeConvBias:
                let f = tensors[node.inputs[1]].shape
                macs["Convolution2DTransposeBias", default: 0] += tensors[node.inputs[0]].elementCount * f[0] * f[1] * f[2]
            default: break
            }
        }
        return macs
    }

    /// How many nodes use each operator.
    public var operatorCounts: [String: Int] {
        nodes.reduce(into: [:]) { $0[$1.operation.name, default: 0] += 1 }
    }

    /// Checks tensor indices of every node (loaders call it; a damaged file must not index out).
    public func validateIndices() throws {
        for (i, node) in nodes.enumerated() {
            for t in node.inputs where t < -1 || t >= tensors.count {
                throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) reads tensor \(t) of \(tensors.count)")
            }
            for t in node.outputs where t < 0 || t >= tensors.count {
                throw ModelError.invalidGraph("node \(i) (\(node.operation.name)) writes tensor \(t) of \(tensors.count)")
            }
        }
        for t in inputs + outputs where t < 0 || t >= tensors.count {
            throw ModelError.invalidGraph("graph input/output tensor \(t) of \(tensors.count)")
        }
    }
}
