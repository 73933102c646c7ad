/// Reference shape operators: MEAN, PAD, CONCATENATION, RESIZE_BILINEAR, DEPTH_TO_SPACE,
/// STRIDED_SLICE (RESHAPE is a copy).
enum ReferenceShape {
    /// Mean over `axes` (normalized, sorted).
    static func mean(x: FloatTensor, axes: Set<Int>, out: FloatTensor) {
        let shape = x.shape
        var outIndexStrides = [Int](repeating: 0, count: shape.count)
        var running = 1
        for axis in stride(from: shape.count - 1, through: 0, by: -1) where !axes.contains(axis) {
            outIndexStrides[axis] = running
            running *= shape[axis]
        }
        for i in 0 ..< out.count { out.data[i] = 0 }
        var index = [Int](repeating: 0, count: shape.count)
        for i in 0 ..< x.count {
            var o = 0
            for axis in 0 ..< shape.count { o += index[axis] * outIndexStrides[axis] }
            out.data[o] += x.data[i]
            advance(&index, in: shape)
        }
        let reduced = axes.reduce(1) { $0 * shape[$1] }
        for i in 0 ..< out.count { out.data[i] /= Float(reduced) }
    }

    /// Zero padding; `before[axis]` leading elements per axis.
    static func pad(x: FloatTensor, before: [Int], out: FloatTensor) {
        for i in 0 ..< out.count { out.data[i] = 0 }
        let shape = x.shape, outShape = out.shape
        var index = [Int](repeating: 0, count: shape.count)
        for i in 0 ..< x.count {
            var o = 0
            for axis in 0 ..< shape.count { o = o * outShape[axis] + index[axis] + before[axis] }
            out.data[o] = x.data[i]
            advance(&index, in: shape)
        }
    }

    static func concatenation(_ inputs: [FloatTensor], axis: Int, out: FloatTensor, activation: Activation) {
        let outer = out.shape[..<axis].reduce(1, *)
        let inner = out.shape[(axis + 1)...].reduce(1, *)
        var offset = 0
        for x in inputs {
            let block = x.shape[axis] * inner
            for o in 0 ..< outer {
                for i in 0 ..< block {
                    out.data[o * out.shape[axis] * inner + offset + i] = activation.apply(x.data[o * block + i])
                }
            }
            offset += block
        }
    }

    /// TFLite's RESIZE_BILINEAR, both corner conventions.
    static func resizeBilinear(x: FloatTensor, out: FloatTensor, alignCorners: Bool, halfPixelCenters: Bool) {
        let (n, h, w, c) = x.nhwc
        let (_, oh, ow, _) = out.nhwc
        func scale(_ input: Int, _ output: Int) -> Float {
            alignCorners && output > 1 ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
        }
        let sy = scale(h, oh), sx = scale(w, ow)
        func source(_ i: Int, _ s: Float, _ size: Int) -> (Int, Int, Float) {
            let v = halfPixelCenters ? (Float(i) + 0.5) * s - 0.5 : Float(i) * s
            let f = v.rounded(.down)
            let lo = max(Int(f), 0), hi = min(Int(v.rounded(.up)), size - 1)
            return (lo, hi, v - f)
        }
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                let (y0, y1, fy) = source(oy, sy, h)
                for ox in 0 ..< ow {
                    let (x0, x1, fx) = source(ox, sx, w)
                    for k in 0 ..< c {
                        func at(_ y: Int, _ xx: Int) -> Float { x.data[((b * h + y) * w + xx) * c + k] }
                        let v = at(y0, x0) * (1 - fy) * (1 - fx) + at(y1, x0) * fy * (1 - fx)
                            + at(y0, x1) * (1 - fy) * fx + at(y1, x1) * fy * fx
                        out.data[((b * oh + oy) * ow + ox) * c + k] = v
                    }
                }
            }
        }
    }

    static func depthToSpace(x: FloatTensor, block: Int, out: FloatTensor) {
        let (n, h, w, c) = x.nhwc
        let oc = c / (block * block)
        for b in 0 ..< n {
            for y in 0 ..< h {
                for xx in 0 ..< w {
                    for by in 0 ..< block {
                        for bx in 0 ..< block {
                            for k in 0 ..< oc {
                                let src = ((b * h + y) * w + xx) * c + (by * block + bx) * oc + k
                                let dst = ((b * h * block + y * block + by) * w * block + xx * block + bx) * oc + k
                                out.data[dst] = x.data[src]
                            }
                        }
                    }
                }
            }
        }
    }

    /// Copies x[begin[a] + i·stride[a] …] along every axis (begin/stride already resolved).
    static func stridedSlice(x: FloatTensor, begin: [Int], strides: [Int], sizes: [Int], out: FloatTensor) {
        let shape = x.shape
        var index = [Int](repeating: 0, count: sizes.count)
        for i in 0 ..< out.count {
            var src = 0
            for axis in 0 ..< shape.count { src = src * shape[axis] + begin[axis] + index[axis] * strides[axis] }
            out.data[i] = x.data[src]
            advance(&index, in: sizes)
        }
    }
}
