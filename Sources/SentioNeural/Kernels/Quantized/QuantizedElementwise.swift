#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// TFLite's quantized ADD parameters (`add.cc`, 8-bit): both inputs are brought to a common
/// scale of 2·max(scale₁, scale₂) with 20 bits of headroom, summed, and scaled to the output.
struct QuantizedAddParameters: Sendable {
    static let leftShift = 20
    var inputZeros: (Int32, Int32)
    var inputMultipliers: (QuantizedMultiplier, QuantizedMultiplier)
    var outputMultiplier: QuantizedMultiplier
    var outputZero: Int32
    var range: ClosedRange<Int32>
    /// XNNPACK's ADD (``QuantizedArithmetic/xnnpack``): each input's scale relative to the
    /// output's, as an integer multiplier with the larger one's exponent made 20 bits; the sum
    /// is bias + a·mₐ + b·m_b shifted right (arithmetic) by `shift`, the bias holding the
    /// zero points and the rounding half.
    var xnnpack: (a: Int32, b: Int32, shift: Int32, bias: Int32)?

    init(input1: Quantization, input2: Quantization, output: Quantization, range: ClosedRange<Int32>, arithmetic: QuantizedArithmetic) throws {
        let twiceMax = 2 * max(Double(input1.scale), Double(input2.scale))
        inputZeros = (input1.zeroPoint, input2.zeroPoint)
        inputMultipliers = (QuantizedMultiplier(Double(input1.scale) / twiceMax), QuantizedMultiplier(Double(input2.scale) / twiceMax))
        outputMultiplier = QuantizedMultiplier(twiceMax / (Double(1 << QuantizedAddParameters.leftShift) * Double(output.scale)))
        outputZero = output.zeroPoint
        self.range = range
        if arithmetic == .xnnpack {
            let aScale = input1.scale / output.scale, bScale = input2.scale / output.scale
            // XNNPACK accepts input-to-output scale ratios in [2⁻¹⁰, 2⁸) only.
            guard [aScale, bScale].allSatisfy({ $0 >= 0x1p-10 && $0 < 0x1p8 }) else {
                throw ModelError.unsupportedQuantization("ADD with input/output scale ratios \(aScale) and \(bScale) (XNNPACK's arithmetic takes 2⁻¹⁰ to 2⁸)")
            }
            let exponent = Int32(max(aScale, bScale).bitPattern >> 23) - 127
            let shift = min(30, max(1, 20 - exponent))
            // scale · 2^shift rounded to nearest even (XNNPACK adds to the float's exponent).
            func multiplier(_ scale: Float) -> Int32 {
                Int32((Double(scale) * Double(1 << UInt32(shift))).rounded(.toNearestOrEven))
            }
            let (ma, mb) = (multiplier(aScale), multiplier(bScale))
            xnnpack = (ma, mb, shift, (Int32(1) << (shift - 1)) &- ma &* input1.zeroPoint &- mb &* input2.zeroPoint)
        }
    }

    @inlinable
    func add(_ a: Int32, _ b: Int32) -> Int32 {
        if let x = xnnpack {
            let v = (x.bias &+ a &* x.a &+ b &* x.b) >> x.shift
            return min(max(v, range.lowerBound - outputZero), range.upperBound - outputZero) + outputZero
        }
        let sa = inputMultipliers.0.apply((a - inputZeros.0) << Int32(QuantizedAddParameters.leftShift))
        let sb = inputMultipliers.1.apply((b - inputZeros.1) << Int32(QuantizedAddParameters.leftShift))
        return min(max(outputMultiplier.apply(sa &+ sb) &+ outputZero, range.lowerBound), range.upperBound)
    }
}

/// Reference kernels of the quantized element-wise and shape operators.
enum QuantizedReference {
    /// ADD of two tensors of the same shape.
    static func add<X: FixedWidthInteger>(_ a: UnsafePointer<X>, _ b: UnsafePointer<X>, out: UnsafeMutablePointer<X>, count: Int,
                                          parameters p: QuantizedAddParameters) {
        for i in 0 ..< count {
            out[i] = X(truncatingIfNeeded: p.add(Int32(a[i]), Int32(b[i])))
        }
    }

    /// AVERAGE_POOL_2D and MAX_POOL_2D on stored values (input and output share their
    /// quantization, as TFLite requires): the average of the taps inside the image, rounded
    /// half away from zero in integers.
    static func pool<X: FixedWidthInteger>(x: UnsafePointer<X>, xShape: [Int], out: UnsafeMutablePointer<X>, outShape: [Int],
                                           window: Window, range: ClosedRange<Int32>, max isMax: Bool) {
        let (n, h, w, c) = (xShape[0], xShape[1], xShape[2], xShape[3])
        let (oh, ow) = (outShape[1], outShape[2])
        let padT = window.vertical(input: h, filter: window.filterH).1
        let padL = window.horizontal(input: w, filter: window.filterW).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    let y0 = Swift.max(0, oy * window.strideH - padT), y1 = Swift.min(h, oy * window.strideH - padT + window.filterH)
                    let x0 = Swift.max(0, ox * window.strideW - padL), x1 = Swift.min(w, ox * window.strideW - padL + window.filterW)
                    let count = Int32(Swift.max(1, (y1 - y0) * (x1 - x0)))
                    for k in 0 ..< c {
                        var acc: Int32 = isMax ? Int32.min : 0
                        for iy in y0 ..< Swift.max(y0, y1) {
                            for ix in x0 ..< Swift.max(x0, x1) {
                                let v = Int32(x[((b * h + iy) * w + ix) * c + k])
                                acc = isMax ? Swift.max(acc, v) : acc + v
                            }
                        }
                        if !isMax { acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count }
                        out[((b * oh + oy) * ow + ox) * c + k] = X(truncatingIfNeeded: Swift.min(Swift.max(acc, range.lowerBound), range.upperBound))
                    }
                }
            }
        }
    }

    /// QUANTIZE of floats: round(x / scale) + zero point, clamped to the type.
    static func quantize<Y: FixedWidthInteger>(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Y>, count: Int,
                                               quantization q: Quantization, type: ElementType) {
        for i in 0 ..< count { out[i] = Y(truncatingIfNeeded: q.quantize(x[i], as: type)) }
    }

    /// DEQUANTIZE: scale · (q − zero point), computed in double as TFLite does.
    static func dequantize<X: FixedWidthInteger>(_ x: UnsafePointer<X>, out: UnsafeMutablePointer<Float>, count: Int, quantization q: Quantization) {
        for i in 0 ..< count { out[i] = q.dequantize(Int32(x[i])) }
    }

    /// Float SOFTMAX over the last axis (max subtracted first, so exp cannot overflow).
    static func softmax(_ x: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, rows: Int, depth: Int, beta: Float) {
        for r in 0 ..< rows {
            let row = x + r * depth
            var top = -Float.infinity
            for i in 0 ..< depth { top = max(top, row[i]) }
            var sum: Float = 0
            for i in 0 ..< depth {
                let v = expf(beta * (row[i] - top))
                out[r * depth + i] = v
                sum += v
            }
            for i in 0 ..< depth { out[r * depth + i] /= sum }
        }
    }
}
