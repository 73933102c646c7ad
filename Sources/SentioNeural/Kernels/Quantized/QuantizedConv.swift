/// What a quantized convolution (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) needs besides
/// its tensors, worked out once at load as TFLite's `PopulateConvolutionQuantizationParams`
/// does: per output channel, the filter's zero point, the bias and the multiplier
/// input scale · filter scale / output scale (in double, then ``QuantizedMultiplier``).
struct QuantizedConvParameters: Sendable {
    var inputZero: Int32
    /// Per output channel (a per-tensor filter repeats its one zero point).
    var filterZeros: [Int32]
    /// Per output channel; zeros when the operator has no bias.
    var bias: [Int32]
    var multipliers: [QuantizedMultiplier]
    var outputZero: Int32
    /// The stored range the fused activation clamps to.
    var range: ClosedRange<Int32>
    /// Round the scaled sum once (LiteRT's FULLY_CONNECTED) rather than twice (its
    /// convolutions); see ``QuantizedMultiplier``.
    var roundsOnce = false

    /// acc (the sum of products of zero-point-free values, bias included) as a stored output.
    @inlinable
    func requantize(_ acc: Int32, channel o: Int) -> Int32 {
        let scaled = roundsOnce ? multipliers[o].applyRoundingOnce(acc) : multipliers[o].apply(acc)
        return min(max(scaled &+ outputZero, range.lowerBound), range.upperBound)
    }
}

/// Reference int8/uint8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: the plain loops of
/// TFLite's `reference_integer_ops`. Taps outside the image are skipped, which is padding with
/// the input's zero point (a real 0).
enum QuantizedReferenceConv {
    static func conv2D<X: FixedWidthInteger, W: FixedWidthInteger>(
        x: UnsafePointer<X>, xShape: [Int], filter: UnsafePointer<W>, filterShape: [Int],
        out: UnsafeMutablePointer<X>, outShape: [Int], window: Window, parameters p: QuantizedConvParameters
    ) {
        let (n, h, w, c) = (xShape[0], xShape[1], xShape[2], xShape[3])
        let (co, kh, kw) = (filterShape[0], filterShape[1], filterShape[2])
        let (oh, ow) = (outShape[1], outShape[2])
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    for o in 0 ..< co {
                        var acc: Int32 = 0
                        for ky in 0 ..< kh {
                            let iy = oy * window.strideH - padT + ky * window.dilationH
                            if iy < 0 || iy >= h { continue }
                            for kx in 0 ..< kw {
                                let ix = ox * window.strideW - padL + kx * window.dilationW
                                if ix < 0 || ix >= w { continue }
                                let xi = ((b * h + iy) * w + ix) * c, wi = ((o * kh + ky) * kw + kx) * c
                                for k in 0 ..< c {
                                    acc &+= (Int32(x[xi + k]) - p.inputZero) * (Int32(filter[wi + k]) - p.filterZeros[o])
                                }
                            }
                        }
                        out[((b * oh + oy) * ow + ox) * co + o] = X(truncatingIfNeeded: p.requantize(acc &+ p.bias[o], channel: o))
                    }
                }
            }
        }
    }

    /// Filter [1, KH, KW, C·M]: output channel c·M + m reads input channel c.
    static func depthwise<X: FixedWidthInteger, W: FixedWidthInteger>(
        x: UnsafePointer<X>, xShape: [Int], filter: UnsafePointer<W>, filterShape: [Int],
        out: UnsafeMutablePointer<X>, outShape: [Int], window: Window, multiplier: Int, parameters p: QuantizedConvParameters
    ) {
        let (n, h, w, c) = (xShape[0], xShape[1], xShape[2], xShape[3])
        let (kh, kw, co) = (filterShape[1], filterShape[2], filterShape[3])
        let (oh, ow) = (outShape[1], outShape[2])
        let padT = window.vertical(input: h, filter: kh).1
        let padL = window.horizontal(input: w, filter: kw).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    for o in 0 ..< co {
                        let ic = o / multiplier
                        var acc: Int32 = 0
                        for ky in 0 ..< kh {
                            let iy = oy * window.strideH - padT + ky * window.dilationH
                            if iy < 0 || iy >= h { continue }
                            for kx in 0 ..< kw {
                                let ix = ox * window.strideW - padL + kx * window.dilationW
                                if ix < 0 || ix >= w { continue }
                                acc &+= (Int32(x[((b * h + iy) * w + ix) * c + ic]) - p.inputZero)
                                    * (Int32(filter[(ky * kw + kx) * co + o]) - p.filterZeros[o])
                            }
                        }
                        out[((b * oh + oy) * ow + ox) * co + o] = X(truncatingIfNeeded: p.requantize(acc &+ p.bias[o], channel: o))
                    }
                }
            }
        }
    }

    /// x [batch, In] (flattened), weights [Out, In].
    static func fullyConnected<X: FixedWidthInteger, W: FixedWidthInteger>(
        x: UnsafePointer<X>, batch: Int, inputs: Int, weights: UnsafePointer<W>, outputs: Int,
        out: UnsafeMutablePointer<X>, parameters p: QuantizedConvParameters
    ) {
        for b in 0 ..< batch {
            for o in 0 ..< outputs {
                var acc: Int32 = 0
                for k in 0 ..< inputs {
                    acc &+= (Int32(x[b * inputs + k]) - p.inputZero) * (Int32(weights[o * inputs + k]) - p.filterZeros[o])
                }
                out[b * outputs + o] = X(truncatingIfNeeded: p.requantize(acc &+ p.bias[o], channel: o))
            }
        }
    }
}
