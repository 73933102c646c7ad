/// Reference transposed convolution (TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias):
/// every input pixel scatters x · w[o,ky,kx,c] to output (y·s − pad + ky, x·s − pad + kx).
package enum ReferenceTransposeConv {
    static func run(x: FloatTensor, filter: FloatTensor, bias: FloatTensor?, out: FloatTensor,
                    strideH: Int, strideW: Int, padTop: Int, padLeft: Int, activation: Activation) {
        let (n, h, w, c) = x.nhwc
        let (co, kh, kw, _) = filter.nhwc
        let (_, oh, ow, _) = out.nhwc
        for b in 0 ..< n {
            for i in 0 ..< oh * ow { for o in 0 ..< co { out.data[(b * oh * ow + i) * co + o] = bias?.data[o] ?? 0 } }
            for iy in 0 ..< h {
                for ix in 0 ..< w {
                    for ky in 0 ..< kh {
                        let oy = iy * strideH - padTop + ky
                        if oy < 0 || oy >= oh { continue }
                        for kx in 0 ..< kw {
                            let ox = ix * strideW - padLeft + kx
                            if ox < 0 || ox >= ow { continue }
                            for o in 0 ..< co {
                                var acc: Float = 0
                                let xi = ((b * h + iy) * w + ix) * c, wi = ((o * kh + ky) * kw + kx) * c
                                for k in 0 ..< c { acc += x.data[xi + k] * filter.data[wi + k] }
                                out.data[((b * oh + oy) * ow + ox) * co + o] += acc
                            }
                        }
                    }
                }
            }
            if activation != .none {
                for i in 0 ..< oh * ow * co { out.data[b * oh * ow * co + i] = activation.apply(out.data[b * oh * ow * co + i]) }
            }
        }
    }

    /// Output size and padding of TFLite's TRANSPOSE_CONV, whose output shape is given: the
    /// padding a forward convolution from that output back to the input would use.
    static func builtinPadding(input: Int, output: Int, filter: Int, stride: Int, padding: Padding) -> Int {
        Window.outputAndPad(input: output, filter: filter, stride: stride, dilation: 1, padding: padding).1
    }

    /// Output size and padding of MediaPipe's Convolution2DTransposeBias (SAME: output = input ·
    /// stride when the filter equals the stride).
    package static func mediapipeGeometry(input: Int, filter: Int, stride: Int, padding: Padding) -> (output: Int, pad: Int) {
        let total = padding == .same ? max(0, filter - (input - 1) % stride - 1) : 0
        return (stride * (input - 1) + filter - total, total / 2)
    }
}
