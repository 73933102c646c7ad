import CSentioKernels

/// max(0, x).
public final class ReLULayer: TrainableLayer {
    private var output: [Float] = []
    public init() {}
    public func outputShape(_ input: [Int]) -> [Int] { input }
    public func build(input: [Int], random: inout SeededGenerator) {}
    public var parameters: [Parameter] { [] }

    public func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float] {
        let y = x.map { max(0, $0) }
        if training { output = y }
        return y
    }

    public func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float] {
        zip(dy, output).map { $1 > 0 ? $0 : 0 }
    }
}

/// 2×2 max pooling, stride 2, VALID (an odd last row or column is dropped, as Keras does).
public final class MaxPoolLayer: TrainableLayer {
    private var inShape: [Int] = []
    /// Index into the input of each output's maximum.
    private var argmax: [Int32] = []
    public init() {}
    public func outputShape(_ input: [Int]) -> [Int] { [input[0] / 2, input[1] / 2, input[2]] }
    public func build(input: [Int], random: inout SeededGenerator) { inShape = input }
    public var parameters: [Parameter] { [] }

    public func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float] {
        let (h, w, c) = (inShape[0], inShape[1], inShape[2])
        let (oh, ow) = (h / 2, w / 2)
        var y = [Float](repeating: 0, count: batch * oh * ow * c)
        var best = [Int32](repeating: 0, count: y.count)
        for b in 0 ..< batch {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    for ch in 0 ..< c {
                        var top = -Float.infinity, at = 0
                        for dy in 0 ..< 2 {
                            for dx in 0 ..< 2 {
                                let i = ((b * h + 2 * oy + dy) * w + 2 * ox + dx) * c + ch
                                // The first of equal values wins, as in TensorFlow.
                                if x[i] > top { top = x[i]; at = i }
                            }
                        }
                        let o = ((b * oh + oy) * ow + ox) * c + ch
                        y[o] = top
                        best[o] = Int32(at)
                    }
                }
            }
        }
        if training { argmax = best }
        return y
    }

    public func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float] {
        var dx = [Float](repeating: 0, count: batch * inShape.reduce(1, *))
        for (o, i) in argmax.enumerated() { dx[Int(i)] += dy[o] }
        return dx
    }
}

/// Inverted dropout: in training each value is kept with probability 1 − rate and scaled by
/// 1 / (1 − rate), so inference uses the values as they are (and a TFLite export drops it).
public final class DropoutLayer: TrainableLayer {
    public let rate: Float
    private var mask: [Float] = []
    public init(rate: Float) { self.rate = rate }
    public func outputShape(_ input: [Int]) -> [Int] { input }
    public func build(input: [Int], random: inout SeededGenerator) {}
    public var parameters: [Parameter] { [] }

    public func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float] {
        guard training, rate > 0 else { return x }
        let scale = 1 / (1 - rate)
        mask = x.map { _ in random.nextUnit() < Double(rate) ? 0 : scale }
        return zip(x, mask).map { $0 * $1 }
    }

    public func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float] {
        guard rate > 0 else { return dy }
        return zip(dy, mask).map { $0 * $1 }
    }
}

/// A fully connected layer on the flattened input: weights [outputs, inputs] (TFLite's
/// FULLY_CONNECTED order) and a bias.
public final class DenseLayer: TrainableLayer {
    public let units: Int
    private var inputs = 0
    private var weight: Parameter!
    private var bias: Parameter!
    private var input: [Float] = []

    public init(units: Int) { self.units = units }
    public func outputShape(_ input: [Int]) -> [Int] { [units] }

    public func build(input: [Int], random: inout SeededGenerator) {
        inputs = input.reduce(1, *)
        weight = Parameter(name: "kernel", shape: [units, inputs],
                           value: glorotUniform(count: units * inputs, fanIn: inputs, fanOut: units, random: &random))
        bias = Parameter(name: "bias", shape: [units], value: [Float](repeating: 0, count: units))
    }

    public var parameters: [Parameter] { [weight, bias] }

    public func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float] {
        if training { input = x }
        var y = [Float](repeating: 0, count: batch * units)
        for b in 0 ..< batch { for o in 0 ..< units { y[b * units + o] = bias.value[o] } }
        sentio_sgemm(0, 1, 0, Int32(batch), Int32(units), Int32(inputs), x, Int32(inputs), weight.value, Int32(inputs), &y, Int32(units), 1)
        return y
    }

    public func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float] {
        // dW[o][i] += Σ_b dy[b][o] · x[b][i]; db[o] += Σ_b dy[b][o]; dx = dy · W.
        sentio_sgemm(1, 0, 0, Int32(units), Int32(inputs), Int32(batch), dy, Int32(units), input, Int32(inputs), &weight.gradient, Int32(inputs), 1)
        for b in 0 ..< batch { for o in 0 ..< units { bias.gradient[o] += dy[b * units + o] } }
        var dx = [Float](repeating: 0, count: batch * inputs)
        sentio_sgemm(0, 0, 0, Int32(batch), Int32(inputs), Int32(units), dy, Int32(units), weight.value, Int32(inputs), &dx, Int32(inputs), 0)
        return dx
    }
}
