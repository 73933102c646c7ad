/// Reference FULLY_CONNECTED: out[b, o] = act(Σ x[b, i] · w[o, i] + bias[o]), the bias added
/// after the sum (as TFLite's reference kernels do; see ReferenceConv2D).
enum ReferenceFullyConnected {
    static func run(x: FloatTensor, weights: FloatTensor, bias: FloatTensor?, out: FloatTensor, activation: Activation) {
        let outputs = weights.shape[0], inputs = weights.shape[1]
        let batches = x.count / inputs
        for b in 0 ..< batches {
            for o in 0 ..< outputs {
                var acc: Float = 0
                for i in 0 ..< inputs { acc += x.data[b * inputs + i] * weights.data[o * inputs + i] }
                out.data[b * outputs + o] = activation.apply(acc + (bias?.data[o] ?? 0))
            }
        }
    }
}
