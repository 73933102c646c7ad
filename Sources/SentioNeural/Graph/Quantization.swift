/// TFLite's affine quantization: a stored integer q stands for the real value
/// `scale · (q − zeroPoint)`. Per-tensor (one scale) or per-channel (one scale and zero point
/// per index along `axis`, as int8 convolution filters are stored).
public struct Quantization: Sendable, Equatable {
    public var scales: [Float]
    public var zeroPoints: [Int32]
    /// The axis the per-channel parameters run along (0 for per-tensor).
    public var axis: Int

    public init(scales: [Float], zeroPoints: [Int32], axis: Int = 0) {
        self.scales = scales
        self.zeroPoints = zeroPoints
        self.axis = axis
    }

    /// One scale for the whole tensor.
    public init(scale: Float, zeroPoint: Int32) {
        self.init(scales: [scale], zeroPoints: [zeroPoint])
    }

    public var isPerChannel: Bool { scales.count > 1 }
    /// The per-tensor scale (the first one of a per-channel tensor).
    public var scale: Float { scales.first ?? 1 }
    /// The per-tensor zero point.
    public var zeroPoint: Int32 { zeroPoints.first ?? 0 }

    /// The real value of `q` (per-tensor parameters).
    public func dequantize(_ q: Int32) -> Float {
        Float(Double(scale) * Double(q - zeroPoint))
    }

    /// The nearest stored value of `x` in `type`'s range (TFLite's rounding: half away from
    /// zero).
    public func quantize(_ x: Float, as type: ElementType) -> Int32 {
        let q = (Double(x) / Double(scale)).rounded(.toNearestOrAwayFromZero)
        let range = type.integerRange
        guard q.isFinite else { return x < 0 ? range.lowerBound : range.upperBound }
        let v = Int64(max(-1e12, min(1e12, q))) + Int64(zeroPoint)
        return Int32(min(max(v, Int64(range.lowerBound)), Int64(range.upperBound)))
    }
}
