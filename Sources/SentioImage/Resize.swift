/// How ``Image/resized(to:method:)`` samples.
public enum ResizeMethod: String, Sendable, CaseIterable {
    /// Bilinear with half-pixel centres (as OpenCV's INTER_LINEAR and TensorFlow's
    /// `half_pixel_centers`); aliases when shrinking by more than 2×.
    case bilinear
    /// Area average: each output pixel is the mean of the source pixels it covers, weighted by
    /// coverage; the right choice for shrinking.
    case area
}

/// One output sample's source indices and weights along one axis.
struct ResampleTaps {
    var start: [Int32] = []    // first index per output
    var count: [Int32] = []    // taps per output
    var weights: [Float] = []  // `maxTaps` per output
    var maxTaps = 0

    init(source: Int, destination: Int, method: ResizeMethod) {
        let scale = Double(source) / Double(destination)
        var lists: [(Int, [Float])] = []
        lists.reserveCapacity(destination)
        for d in 0 ..< destination {
            switch method {
            case .bilinear:
                let s = max(0, min(Double(source - 1), (Double(d) + 0.5) * scale - 0.5))
                let i0 = Int(s), i1 = min(i0 + 1, source - 1)
                let f = Float(s - Double(i0))
                lists.append(i1 == i0 ? (i0, [1]) : (i0, [1 - f, f]))
            case .area:
                let lo = Double(d) * scale, hi = Double(d + 1) * scale
                let first = Int(lo), last = min(source - 1, Int((hi - 1e-9).rounded(.down)))
                var w: [Float] = []
                for i in first ... max(first, last) {
                    let overlap = min(hi, Double(i + 1)) - max(lo, Double(i))
                    w.append(Float(max(0, overlap) / (hi - lo)))
                }
                lists.append((first, w))
            }
        }
        maxTaps = lists.map { $0.1.count }.max() ?? 1
        for (s, w) in lists {
            start.append(Int32(s))
            count.append(Int32(w.count))
            weights += w + [Float](repeating: 0, count: maxTaps - w.count)
        }
    }
}

extension Image {
    /// This image resampled to `size`.
    public func resized(to size: Size, method: ResizeMethod = .bilinear) throws -> Image {
        guard size.width > 0, size.height > 0, size.width <= 1 << 16, size.height <= 1 << 16 else {
            throw ImageError.invalidArgument("resize target \(size.width)×\(size.height) is not a valid size")
        }
        if size.width == width && size.height == height { return self }
        let c = channels
        let xTaps = ResampleTaps(source: width, destination: size.width, method: method)
        let yTaps = ResampleTaps(source: height, destination: size.height, method: method)
        // Horizontal pass into floats, then vertical pass into bytes.
        let rowLength = size.width * c
        var horizontal = [Float](repeating: 0, count: height * rowLength)
        withUnsafeBytes { src in
            horizontal.withUnsafeMutableBufferPointer { h in
                for y in 0 ..< height {
                    let row = y * rowStride, out = y * rowLength
                    for x in 0 ..< size.width {
                        let s = Int(xTaps.start[x]), n = Int(xTaps.count[x]), wBase = x * xTaps.maxTaps
                        for k in 0 ..< c {
                            var acc: Float = 0
                            for t in 0 ..< n {
                                acc += xTaps.weights[wBase + t] * Float(src[row + (s + t) * c + k])
                            }
                            h[out + x * c + k] = acc
                        }
                    }
                }
            }
        }
        return horizontal.withUnsafeBufferPointer { h in
            Image(uninitializedWidth: size.width, height: size.height, format: format) { dst in
                var acc = [Float](repeating: 0, count: rowLength)
                for y in 0 ..< size.height {
                    let s = Int(yTaps.start[y]), n = Int(yTaps.count[y]), wBase = y * yTaps.maxTaps
                    for i in 0 ..< rowLength { acc[i] = 0 }
                    for t in 0 ..< n {
                        let w = yTaps.weights[wBase + t], row = (s + t) * rowLength
                        for i in 0 ..< rowLength { acc[i] += w * h[row + i] }
                    }
                    let out = y * rowLength
                    for i in 0 ..< rowLength { dst[out + i] = UInt8(clamping: Int((acc[i] + 0.5).rounded(.down))) }
                }
            }
        }
    }
}
