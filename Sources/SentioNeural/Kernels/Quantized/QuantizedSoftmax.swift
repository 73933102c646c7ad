/// TFLite's reference SOFTMAX for 8-bit tensors, in gemmlowp's fixed point: the differences to
/// the row's maximum are scaled by β·scale into a Q5.26 number, exponentiated by gemmlowp's
/// `exp_on_negative_values` (a Taylor polynomial on [−¼, 0) and a barrel shifter of exp(−2ᵏ)
/// constants), summed in Q12.19, and divided by a Newton–Raphson reciprocal. The output is on
/// TFLite's fixed scale of 1/256 with the zero point at the type's minimum. (Computed in
/// floating point instead, exactly or with TFLite's float32 lookup table, one of EfficientNet-
/// Lite0's outputs on the fixture photos lands a step away from LiteRT's.)
struct QuantizedSoftmax: Sendable {
    static let scaledDiffIntegerBits = 5
    static let accumulationIntegerBits = 12
    let multiplier: Int32
    let leftShift: Int
    /// Differences below this (in stored steps) contribute nothing.
    let diffMin: Int32

    /// Nil when the output is not on the scale this kernel writes (1/256 from the type's
    /// minimum), which TFLite requires too.
    init?(beta: Float, input: Quantization, output: Quantization, type: ElementType) {
        guard output.scale == 1.0 / 256, output.zeroPoint == type.integerRange.lowerBound else { return nil }
        let bits = QuantizedSoftmax.scaledDiffIntegerBits
        let real = min(Double(beta) * Double(input.scale) * Double(1 << (31 - bits)), Double((1 << 31) - 1))
        let q = QuantizedMultiplier(real)
        multiplier = q.multiplier
        leftShift = max(0, q.shift)
        let radius = Double((1 << bits) - 1) * Double(1 << (31 - bits)) / Double(1 << leftShift)
        diffMin = -Int32(radius.rounded(.down))
    }

    private static func mul(_ a: Int32, _ b: Int32) -> Int32 { FixedPoint.doublingHighMultiply(a, b) }

    /// x · 2^exponent, saturating (exponent > 0) or rounding to nearest, ties away from zero
    /// (exponent < 0).
    private static func multiplyByPOT(_ x: Int32, _ exponent: Int) -> Int32 {
        if exponent > 0 {
            let threshold = Int32((1 << (31 - exponent)) - 1)
            if x > threshold { return Int32.max }
            if x < -threshold { return Int32.min }
            return x << Int32(exponent)
        }
        return FixedPoint.roundingShiftRight(x, -exponent)
    }

    /// exp(a) for a ∈ [−¼, 0), both Q0.31: a Taylor expansion around −⅛.
    private static func expOnQuarterInterval(_ a: Int32) -> Int32 {
        let constantTerm: Int32 = 1_895_147_668  // exp(−1/8)
        let oneThird: Int32 = 715_827_883
        let x = a &+ (1 << 28)  // a + 1/8
        let x2 = mul(x, x), x3 = mul(x2, x), x4 = mul(x2, x2)
        let x4Over4 = multiplyByPOT(x4, -2)
        let poly = multiplyByPOT(mul(x4Over4 &+ x3, oneThird) &+ x2, -1)
        return constantTerm &+ mul(constantTerm, x &+ poly)
    }

    /// exp(a) for a ≤ 0 in Q5.26, as Q0.31.
    static func expOnNegativeValues(_ a: Int32) -> Int32 {
        let fractionalBits = 31 - scaledDiffIntegerBits
        let quarter = Int32(1) << Int32(fractionalBits - 2)
        let modQuarterMinusQuarter = (a & (quarter - 1)) &- quarter
        var result = expOnQuarterInterval(multiplyByPOT(modQuarterMinusQuarter, scaledDiffIntegerBits))
        let remainder = modQuarterMinusQuarter &- a
        // exp(−2ᵏ) in Q0.31 for k = −2 … 4, applied for each bit of the remainder.
        let multipliers: [(Int, Int32)] = [(-2, 1_672_461_947), (-1, 1_302_514_674), (0, 790_015_084), (1, 290_630_308),
                                           (2, 39_332_535), (3, 720_401), (4, 242)]
        for (exponent, m) in multipliers where remainder & (Int32(1) << Int32(fractionalBits + exponent)) != 0 {
            result = mul(result, m)
        }
        return a == 0 ? Int32.max : result
    }

    /// 1 / (1 + x) for x ∈ [0, 1) in Q0.31, by three Newton–Raphson steps in Q2.29.
    static func oneOverOnePlus(_ x: Int32) -> Int32 {
        let sum = Int64(x) + Int64(Int32.max)
        let halfDenominator = Int32((sum + (sum >= 0 ? 1 : -1)) / 2)
        let c48over17: Int32 = 1_515_870_810, cNeg32over17: Int32 = -1_010_580_540
        let one: Int32 = 1 << 29
        var r = c48over17 &+ mul(halfDenominator, cNeg32over17)
        for _ in 0 ..< 3 {
            let oneMinus = one &- mul(halfDenominator, r)
            r = r &+ multiplyByPOT(mul(r, oneMinus), 2)
        }
        return multiplyByPOT(r, 1)
    }

    func run<X: FixedWidthInteger, Y: FixedWidthInteger>(_ x: UnsafePointer<X>, out: UnsafeMutablePointer<Y>, rows: Int, depth: Int) {
        let (outMin, outMax) = (Int32(Y.min), Int32(Y.max))
        for r in 0 ..< rows {
            let row = x + r * depth
            var top = Int32(X.min)
            for i in 0 ..< depth { top = max(top, Int32(row[i])) }
            func scaledDiff(_ i: Int) -> Int32? {
                let diff = Int32(row[i]) - top
                guard diff >= diffMin else { return nil }
                return QuantizedSoftmax.mul(diff &* (1 << Int32(leftShift)), multiplier)
            }
            var sum: Int32 = 0
            for i in 0 ..< depth {
                if let d = scaledDiff(i) {
                    sum = sum &+ QuantizedSoftmax.multiplyByPOT(QuantizedSoftmax.expOnNegativeValues(d), -QuantizedSoftmax.accumulationIntegerBits)
                }
            }
            let headroomPlusOne = UInt32(bitPattern: sum).leadingZeroBitCount
            let bitsOverUnit = QuantizedSoftmax.accumulationIntegerBits - headroomPlusOne
            let shiftedSumMinusOne = Int32(bitPattern: (UInt32(bitPattern: sum) << UInt32(headroomPlusOne)) &- (UInt32(1) << 31))
            let scale = QuantizedSoftmax.oneOverOnePlus(shiftedSumMinusOne)
            for i in 0 ..< depth {
                guard let d = scaledDiff(i) else { out[r * depth + i] = Y(truncatingIfNeeded: outMin); continue }
                let p = QuantizedSoftmax.mul(scale, QuantizedSoftmax.expOnNegativeValues(d))
                let unsaturated = QuantizedSoftmax.multiplyByPOT(p, -(bitsOverUnit + 31 - Y.bitWidth))
                out[r * depth + i] = Y(truncatingIfNeeded: min(max(unsaturated &+ outMin, outMin), outMax))
            }
        }
    }
}
