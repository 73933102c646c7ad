/// Reference DEPTHWISE_CONV_2D: output channel c·M + m filters input channel c alone; the bias
/// is added after the sum (see ReferenceConv2D).
enum ReferenceDepthwiseConv2D {
    static func run(x: FloatTensor, filter: FloatTensor, bias: FloatTensor?, out: FloatTensor, window: Window,
                    multiplier: Int, activation: Activation) {
        let (n, h, w, c) = x.nhwc
        let (_, kh, kw, co) = filter.nhwc
        let (_, oh, ow, _) = out.nhwc
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    for o in 0 ..< co {
                        let ic = o / multiplier
                        var acc: Float = 0
                        for ky in 0 ..< kh {
                            let iy = oy * window.strideH - padT + ky * window.dilationH
                            if iy < 0 || iy >= h { continue }
                            for kx in 0 ..< kw {
                                let ix = ox * window.strideW - padL + kx * window.dilationW
                                if ix < 0 || ix >= w { continue }
                                acc += x.data[((b * h + iy) * w + ix) * c + ic] * filter.data[(ky * kw + kx) * co + o]
                            }
                        }
                        out.data[((b * oh + oy) * ow + ox) * co + o] = activation.apply(acc + (bias?.data[o] ?? 0))
                    }
                }
            }
        }
    }
}
