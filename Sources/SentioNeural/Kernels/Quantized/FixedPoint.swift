/// Which of LiteRT's two integer arithmetics quantized kernels reproduce. Their outputs part:
/// one step of difference at an early layer of EfficientNet-Lite0 grows to up to 41 steps of
/// 1/256 at its output (docs/quantized-models.md), so Sentio follows one of them exactly.
public enum QuantizedArithmetic: String, Sendable, CaseIterable {
    /// LiteRT's default path (the XNNPACK delegate): a convolution's int32 sum is scaled in
    /// float32 by input scale · filter scale / output scale and rounded to nearest even; ADD
    /// uses XNNPACK's integer multipliers. Also the cheaper of the two.
    case xnnpack
    /// LiteRT's reference kernels (`BUILTIN_REF`): TFLite's fixed-point multipliers and
    /// gemmlowp's rounding.
    case tfliteReference
}

/// TFLite's integer arithmetic for quantized kernels (its `quantization_util`), stated
/// plainly so every quantized kernel rounds as LiteRT does.
///
/// A real multiplier m > 0 is stored as a 32-bit fixed-point fraction q ∈ [2³⁰, 2³¹) with a
/// power-of-two exponent: m = q · 2^(shift − 31).
public struct QuantizedMultiplier: Sendable, Equatable {
    public var multiplier: Int32
    public var shift: Int

    public init(multiplier: Int32, shift: Int) {
        self.multiplier = multiplier
        self.shift = shift
    }

    /// TFLite's `QuantizeMultiplier`: frexp, the fraction rounded half away from zero to 31
    /// bits; a fraction that rounds up to 1 takes the next exponent; too small gives zero;
    /// too large saturates.
    public init(_ real: Double) {
        guard real > 0, real.isFinite else { self.init(multiplier: 0, shift: 0); return }
        let exponent = real.exponent + 1  // frexp: real = fraction · 2^exponent, fraction ∈ [0.5, 1)
        let fraction = real.significand / 2
        var q = (fraction * Double(1 << 31)).rounded(.toNearestOrAwayFromZero)
        var shift = exponent
        if q == Double(1 << 31) {
            q /= 2
            shift += 1
        }
        if shift < -31 {
            self.init(multiplier: 0, shift: 0)
        } else if shift > 30 {
            self.init(multiplier: Int32.max, shift: 30)
        } else {
            self.init(multiplier: Int32(q), shift: shift)
        }
    }

    /// x · m as TFLite's classic `MultiplyByQuantizedMultiplier` rounds it, twice: gemmlowp's
    /// rounding doubling high multiply (a nudge of ±2³⁰ and a division truncating toward
    /// zero), then a rounding right shift (ties away from zero). LiteRT
    /// 2.3.0's convolutions and ADD round this way.
    @inlinable
    public func apply(_ x: Int32) -> Int32 {
        let left = shift > 0 ? shift : 0
        let right = shift > 0 ? 0 : -shift
        return FixedPoint.roundingShiftRight(FixedPoint.doublingHighMultiply(x &* (1 << left), multiplier), right)
    }

    /// x · m rounded once, ties toward +∞: (x · q + 2^(30 − shift)) >> (31 − shift) in 64
    /// bits. LiteRT 2.3.0's int8 FULLY_CONNECTED rounds this way: on EfficientNet-Lite0's
    /// classifier over the 111 fixture photos, all 111,000 logits agree, against 109 that
    /// differ by one when rounded twice (22987 · m = 22.4998: twice gives 23, once 22).
    @inlinable
    public func applyRoundingOnce(_ x: Int32) -> Int32 {
        let total = Int64(31 - shift)
        return Int32(truncatingIfNeeded: (Int64(x) * Int64(multiplier) + (Int64(1) << (total - 1))) >> total)
    }
}

/// gemmlowp's two fixed-point primitives, shared by the requantization and the softmax.
@usableFromInline
enum FixedPoint {
    /// a · b · 2 / 2³², rounded by gemmlowp's nudge (±2³⁰, then a division truncating toward
    /// zero); the one overflowing case (both Int32.min) saturates.
    @inlinable
    static func doublingHighMultiply(_ a: Int32, _ b: Int32) -> Int32 {
        if a == Int32.min && b == Int32.min { return Int32.max }
        let ab = Int64(a) * Int64(b)
        return Int32(truncatingIfNeeded: (ab + (ab >= 0 ? 1 << 30 : 1 - (1 << 30))) / (1 << 31))
    }

    /// x / 2^exponent rounded to nearest, ties away from zero. In 64 bits, so exponents of 32
    /// and more (which TFLite's 32-bit arithmetic leaves undefined) give 0 or −1, not a trap.
    @inlinable
    static func roundingShiftRight(_ x: Int32, _ exponent: Int) -> Int32 {
        guard exponent > 0 else { return x }
        let e = Int64(min(exponent, 62))
        let mask = (Int64(1) << e) - 1
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return Int32((Int64(x) >> e) + ((Int64(x) & mask) > threshold ? 1 : 0))
    }
}

extension Quantization {
    /// The stored range an activation fused into a quantized operator with this output
    /// quantization clamps to (TFLite's `CalculateActivationRangeQuantized`).
    public func activationRange(_ activation: Activation, type: ElementType) throws -> ClosedRange<Int32> {
        let range = type.integerRange
        func quantize(_ x: Float) -> Int32 {
            let q = max(-1e12, min(1e12, (Double(x) / Double(scale)).rounded(.toNearestOrAwayFromZero)))
            return Int32(clamping: Int64(q) + Int64(zeroPoint))
        }
        let (low, high): (Int32, Int32)
        switch activation {
        case .none: (low, high) = (range.lowerBound, range.upperBound)
        case .relu: (low, high) = (max(range.lowerBound, quantize(0)), range.upperBound)
        case .relu6: (low, high) = (max(range.lowerBound, quantize(0)), min(range.upperBound, quantize(6)))
        case .reluN1To1: (low, high) = (max(range.lowerBound, quantize(-1)), min(range.upperBound, quantize(1)))
        case .tanh: throw ModelError.unsupportedQuantization("a fused TANH on a quantized operator")
        }
        guard low <= high else {
            throw ModelError.unsupportedQuantization("\(activation.rawValue) leaves no values of \(type.rawValue) (scale \(scale), zero point \(zeroPoint))")
        }
        return low ... high
    }
}
