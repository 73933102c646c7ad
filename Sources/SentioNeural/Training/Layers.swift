import CSentioKernels

/// A learned tensor and the gradient of the loss with respect to it.
public final class Parameter {
    public let name: String
    public let shape: [Int]
    public var value: [Float]
    public var gradient: [Float]

    init(name: String, shape: [Int], value: [Float]) {
        self.name = name
        self.shape = shape
        self.value = value
        gradient = [Float](repeating: 0, count: value.count)
    }
}

/// A layer of a trainable network. Shapes are per sample (H, W, C or a flat count); values go
/// batch-first, NHWC, as TFLite stores them. `forward` keeps what `backward` needs.
public protocol TrainableLayer: AnyObject {
    /// The output shape for an input of `input` (per sample).
    func outputShape(_ input: [Int]) -> [Int]
    /// Prepares for inputs of `input` per sample: allocates parameters (seeded).
    func build(input: [Int], random: inout SeededGenerator)
    func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float]
    /// Accumulates the parameters' gradients and returns the gradient for the input.
    func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float]
    var parameters: [Parameter] { get }
}

/// Keras's default initializer: uniform in ±√(6 / (fan in + fan out)).
func glorotUniform(count: Int, fanIn: Int, fanOut: Int, random: inout SeededGenerator) -> [Float] {
    let limit = (6.0 / Double(fanIn + fanOut)).squareRoot()
    return (0 ..< count).map { _ in Float(random.nextUnit() * 2 * limit - limit) }
}

/// Runs `body(range)` over contiguous shares of `0..<count` on the pool's threads.
func parallelSamples(_ count: Int, pool: ThreadPool, _ body: (Int, Range<Int>) -> Void) {
    pool.forEachWorker(limit: count) { worker, workers in
        body(worker, count * worker / workers ..< count * (worker + 1) / workers)
    }
}

/// A 2-D convolution, VALID padding, stride 1, with a bias; filter [filters, k, k, channels]
/// (TFLite's OHWI order).
public final class Conv2DLayer: TrainableLayer {
    public let filters: Int, kernel: Int
    private var inShape: [Int] = []
    private var weight: Parameter!
    private var bias: Parameter!
    private var input: [Float] = []

    public init(filters: Int, kernel: Int) {
        self.filters = filters
        self.kernel = kernel
    }

    public func outputShape(_ input: [Int]) -> [Int] { [input[0] - kernel + 1, input[1] - kernel + 1, filters] }

    public func build(input: [Int], random: inout SeededGenerator) {
        inShape = input
        let k = kernel * kernel * input[2]
        weight = Parameter(name: "kernel", shape: [filters, kernel, kernel, input[2]],
                           value: glorotUniform(count: filters * k, fanIn: k, fanOut: kernel * kernel * filters, random: &random))
        bias = Parameter(name: "bias", shape: [filters], value: [Float](repeating: 0, count: filters))
    }

    public var parameters: [Parameter] { [weight, bias] }

    /// The patches of one sample as rows [oh · ow][k · k · c].
    private func im2col(_ x: UnsafePointer<Float>, _ col: UnsafeMutablePointer<Float>) {
        let (h, w, c) = (inShape[0], inShape[1], inShape[2])
        let (oh, ow) = (h - kernel + 1, w - kernel + 1)
        var at = 0
        for oy in 0 ..< oh {
            for ox in 0 ..< ow {
                for ky in 0 ..< kernel {
                    let row = x + ((oy + ky) * w + ox) * c
                    col.advanced(by: at).update(from: row, count: kernel * c)
                    at += kernel * c
                }
            }
        }
    }

    public func forward(_ x: [Float], batch: Int, training: Bool, pool: ThreadPool, random: inout SeededGenerator) -> [Float] {
        if training { input = x }
        let (oh, ow) = (inShape[0] - kernel + 1, inShape[1] - kernel + 1)
        let (p, k, inCount) = (oh * ow, kernel * kernel * inShape[2], inShape.reduce(1, *))
        var y = [Float](repeating: 0, count: batch * p * filters)
        let (wv, bv) = (weight.value, bias.value)
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                let (xb, yb) = (UncheckedBox(xs.baseAddress!), UncheckedBox(ys.baseAddress!))
                parallelSamples(batch, pool: pool) { _, samples in
                    var col = [Float](repeating: 0, count: p * k)
                    col.withUnsafeMutableBufferPointer { cs in
                        for s in samples {
                            im2col(xb.value + s * inCount, cs.baseAddress!)
                            let out = yb.value + s * p * filters
                            for i in 0 ..< p { out.advanced(by: i * filters).update(from: bv, count: filters) }
                            sentio_sgemm(0, 1, 0, Int32(p), Int32(filters), Int32(k), cs.baseAddress!, Int32(k), wv, Int32(k), out, Int32(filters), 1)
                        }
                    }
                }
            }
        }
        return y
    }

    public func backward(_ dy: [Float], batch: Int, pool: ThreadPool) -> [Float] {
        let (h, w, c) = (inShape[0], inShape[1], inShape[2])
        let (oh, ow) = (h - kernel + 1, w - kernel + 1)
        let (p, k, inCount) = (oh * ow, kernel * kernel * c, inShape.reduce(1, *))
        let workers = max(1, min(pool.threads, batch))
        // Each worker sums its samples' weight and bias gradients apart; added up after.
        let share = filters * k + filters
        let partial = UnsafeMutableBufferPointer<Float>.allocate(capacity: workers * share)
        partial.initialize(repeating: 0)
        defer { partial.deallocate() }
        let dx = UnsafeMutableBufferPointer<Float>.allocate(capacity: batch * inCount)
        dx.initialize(repeating: 0)
        defer { dx.deallocate() }
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: workers * 2 * p * k)
        defer { scratch.deallocate() }
        let shared = UncheckedBox((partial.baseAddress!, dx.baseAddress!, scratch.baseAddress!))
        weight.value.withUnsafeBufferPointer { wv in
            input.withUnsafeBufferPointer { xs in
                dy.withUnsafeBufferPointer { dys in
                    let (wp, xp, dyp) = (UncheckedBox(wv.baseAddress!), UncheckedBox(xs.baseAddress!), UncheckedBox(dys.baseAddress!))
                    parallelSamples(batch, pool: pool.limited(to: workers)) { worker, samples in
                        let (partial, dx, scratch) = shared.value
                        let (gw, gb) = (partial + worker * share, partial + worker * share + filters * k)
                        let (col, dcol) = (scratch + worker * 2 * p * k, scratch + worker * 2 * p * k + p * k)
                        for s in samples {
                            let g = dyp.value + s * p * filters
                            im2col(xp.value + s * inCount, col)
                            // dW[f][j] += Σ_i dy[i][f] · col[i][j]; db[f] += Σ_i dy[i][f]
                            sentio_sgemm(1, 0, 0, Int32(filters), Int32(k), Int32(p), g, Int32(filters), col, Int32(k), gw, Int32(k), 1)
                            for i in 0 ..< p { for f in 0 ..< filters { gb[f] += g[i * filters + f] } }
                            // dcol[i][j] = Σ_f dy[i][f] · W[f][j], scattered back onto the input.
                            sentio_sgemm(0, 0, 0, Int32(p), Int32(k), Int32(filters), g, Int32(filters), wp.value, Int32(k), dcol, Int32(k), 0)
                            let d = dx + s * inCount
                            var at = 0
                            for oy in 0 ..< oh {
                                for ox in 0 ..< ow {
                                    for ky in 0 ..< kernel {
                                        let row = d + ((oy + ky) * w + ox) * c
                                        for j in 0 ..< kernel * c { row[j] += dcol[at + j] }
                                        at += kernel * c
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for worker in 0 ..< workers {
            let base = worker * share
            for i in 0 ..< filters * k { weight.gradient[i] += partial[base + i] }
            for f in 0 ..< filters { bias.gradient[f] += partial[base + filters * k + f] }
        }
        return Array(dx)
    }
}
