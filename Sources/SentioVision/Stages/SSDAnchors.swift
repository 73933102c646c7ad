/// SSD anchor centres as MediaPipe's SsdAnchorsCalculator lays them out.
public struct SSDAnchorOptions: Sendable {
    public var inputWidth: Int
    public var inputHeight: Int
    public var minScale: Double
    public var maxScale: Double
    public var strides: [Int]
    public var aspectRatios: [Double] = [1]
    public var offsetX = 0.5
    public var offsetY = 0.5
    /// An extra anchor per location between this layer's scale and the next (MediaPipe's default 1).
    public var interpolatedScaleAspectRatio = 1.0
    /// Every anchor 1×1 (the models regress absolute sizes).
    public var fixedAnchorSize = true

    /// BlazeFace short range: 128×128, strides 8, 16, 16, 16 → 896 anchors.
    public static let faceShortRange = SSDAnchorOptions(inputWidth: 128, inputHeight: 128, minScale: 0.1484375, maxScale: 0.75,
                                                        strides: [8, 16, 16, 16])
    /// BlazeFace full range: 192×192, stride 4, no interpolated anchor → 2304 anchors.
    public static let faceFullRange = SSDAnchorOptions(inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75,
                                                       strides: [4], interpolatedScaleAspectRatio: 0)
}

/// One anchor: centre and size in normalized input coordinates.
public struct Anchor: Sendable, Hashable {
    public var xCenter: Double, yCenter: Double, width: Double, height: Double
}

extension SSDAnchorOptions {
    func scale(_ index: Int) -> Double {
        strides.count == 1 ? (minScale + maxScale) / 2 : minScale + (maxScale - minScale) * Double(index) / Double(strides.count - 1)
    }

    /// The anchors, layer by layer, row by row, anchor by anchor (the models' output order).
    public func anchors() -> [Anchor] {
        var anchors: [Anchor] = []
        var layer = 0
        while layer < strides.count {
            // Consecutive layers with the same stride share one feature map.
            var sizes: [(Double, Double)] = []
            var last = layer
            while last < strides.count && strides[last] == strides[layer] {
                let s = scale(last)
                for ratio in aspectRatios { sizes.append((s / ratio.squareRoot(), s * ratio.squareRoot())) }
                if interpolatedScaleAspectRatio > 0 {
                    let next = last == strides.count - 1 ? 1.0 : scale(last + 1)
                    let s2 = (s * next).squareRoot(), r = interpolatedScaleAspectRatio.squareRoot()
                    sizes.append((s2 / r, s2 * r))
                }
                last += 1
            }
            let stride = strides[layer]
            let rows = (inputHeight + stride - 1) / stride, columns = (inputWidth + stride - 1) / stride
            for y in 0 ..< rows {
                for x in 0 ..< columns {
                    for (h, w) in sizes {
                        anchors.append(Anchor(xCenter: (Double(x) + offsetX) / Double(columns), yCenter: (Double(y) + offsetY) / Double(rows),
                                              width: fixedAnchorSize ? 1 : w, height: fixedAnchorSize ? 1 : h))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
