/// Reference element-wise operators, with NumPy-style broadcasting for the binary ones.
enum ReferenceElementwise {
    /// Strides of `shape` broadcast to `outShape` (0 along broadcast axes).
    static func broadcastStrides(_ shape: [Int], to outShape: [Int]) -> [Int] {
        let padded = [Int](repeating: 1, count: outShape.count - shape.count) + shape
        var strides = [Int](repeating: 0, count: outShape.count)
        var running = 1
        for axis in stride(from: outShape.count - 1, through: 0, by: -1) {
            strides[axis] = padded[axis] == 1 ? 0 : running
            running *= padded[axis]
        }
        return strides
    }

    static func binary(_ a: FloatTensor, _ b: FloatTensor, out: FloatTensor, activation: Activation, _ f: (Float, Float) -> Float) {
        let shape = out.shape.isEmpty ? [1] : out.shape
        let sa = broadcastStrides(a.shape, to: shape), sb = broadcastStrides(b.shape, to: shape)
        var index = [Int](repeating: 0, count: shape.count)
        for i in 0 ..< out.count {
            var ia = 0, ib = 0
            for axis in 0 ..< shape.count { ia += index[axis] * sa[axis]; ib += index[axis] * sb[axis] }
            out.data[i] = activation.apply(f(a.data[ia], b.data[ib]))
            advance(&index, in: shape)
        }
    }

    static func unary(_ x: FloatTensor, out: FloatTensor, _ f: (Float) -> Float) {
        for i in 0 ..< out.count { out.data[i] = f(x.data[i]) }
    }

    static func logistic(_ v: Float) -> Float { 1 / (1 + cExpf(-v)) }

    static func hardSwish(_ v: Float) -> Float { v * min(6, max(0, v + 3)) / 6 }

    /// PRELU: x where positive, α·x elsewhere, α broadcast to x's shape.
    static func prelu(_ x: FloatTensor, alpha: FloatTensor, out: FloatTensor) {
        binary(x, alpha, out: out, activation: .none) { v, a in v >= 0 ? v : v * a }
    }
}

/// Steps a row-major multi-index to the next element of `shape` (the last axis fastest).
@inline(__always)
func advance(_ index: inout [Int], in shape: [Int]) {
    var axis = shape.count - 1
    while axis >= 0 {
        index[axis] += 1
        if index[axis] < shape[axis] { return }
        index[axis] = 0
        axis -= 1
    }
}
