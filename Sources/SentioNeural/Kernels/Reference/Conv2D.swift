/// Reference CONV_2D: out[n,y,x,o] = act(Σ x[n, y·s−p+ky·d, x·s−p+kx·d, c] · w[o,ky,kx,c] + bias[o]).
/// The bias is added after the sum, not used as its starting value: folded batch norms give
/// biases far larger than the result, and a sum that starts there rounds every partial sum to
/// the bias's ulp (pose_landmark_full's segmentation logits were 2–3× further from a float64
/// evaluation that way; see docs/neural-kernels.md).
enum ReferenceConv2D {
    static func run(x: FloatTensor, filter: FloatTensor, bias: FloatTensor?, out: FloatTensor, window: Window, activation: Activation) {
        let (n, h, w, c) = x.nhwc
        let (co, kh, kw, _) = filter.nhwc
        let (_, oh, ow, _) = out.nhwc
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    for o in 0 ..< co {
                        var acc: Float = 0
                        for ky in 0 ..< kh {
                            let iy = oy * window.strideH - padT + ky * window.dilationH
                            if iy < 0 || iy >= h { continue }
                            for kx in 0 ..< kw {
                                let ix = ox * window.strideW - padL + kx * window.dilationW
                                if ix < 0 || ix >= w { continue }
                                let xi = ((b * h + iy) * w + ix) * c, wi = ((o * kh + ky) * kw + kx) * c
                                for k in 0 ..< c { acc += x.data[xi + k] * filter.data[wi + k] }
                            }
                        }
                        out.data[((b * oh + oy) * ow + ox) * co + o] = activation.apply(acc + (bias?.data[o] ?? 0))
                    }
                }
            }
        }
    }
}
