/// Summed-area table of one channel: the sum over any rectangle in four look-ups.
public struct IntegralImage: Sendable {
    public let width: Int
    public let height: Int
    /// (width + 1) × (height + 1) running sums; row 0 and column 0 are zero.
    let sums: [UInt64]
    let squares: [UInt64]

    /// The table of `channel` of `image` (and of its squares, for variances).
    public init(_ image: Image, channel: Int = 0) throws {
        guard channel >= 0, channel < image.channels else {
            throw ImageError.invalidArgument("channel \(channel) is not in a \(image.format.rawValue) image")
        }
        width = image.width
        height = image.height
        let w1 = width + 1
        var s = [UInt64](repeating: 0, count: w1 * (height + 1))
        var q = s
        image.withUnsafeBytes { px in
            for y in 0 ..< image.height {
                var rowSum: UInt64 = 0, rowSquares: UInt64 = 0
                for x in 0 ..< image.width {
                    let v = UInt64(px[y * image.rowStride + x * image.channels + channel])
                    rowSum += v
                    rowSquares += v * v
                    s[(y + 1) * w1 + x + 1] = s[y * w1 + x + 1] + rowSum
                    q[(y + 1) * w1 + x + 1] = q[y * w1 + x + 1] + rowSquares
                }
            }
        }
        sums = s
        squares = q
    }

    private func boxSum(_ table: [UInt64], _ r: PixelRect) -> UInt64 {
        let w1 = width + 1
        let x0 = r.x, y0 = r.y, x1 = r.x + r.width, y1 = r.y + r.height
        return table[y1 * w1 + x1] &+ table[y0 * w1 + x0] &- table[y0 * w1 + x1] &- table[y1 * w1 + x0]
    }

    private func check(_ r: PixelRect) throws {
        guard r.width > 0, r.height > 0, r.x >= 0, r.y >= 0, r.x + r.width <= width, r.y + r.height <= height else {
            throw ImageError.invalidArgument("rectangle \(r) is outside the \(width)×\(height) image")
        }
    }

    /// Sum of the values in `rect`.
    public func sum(_ rect: PixelRect) throws -> UInt64 {
        try check(rect)
        return boxSum(sums, rect)
    }

    /// Mean of the values in `rect`.
    public func mean(_ rect: PixelRect) throws -> Double {
        try Double(sum(rect)) / Double(rect.width * rect.height)
    }

    /// Population variance of the values in `rect`.
    public func variance(_ rect: PixelRect) throws -> Double {
        try check(rect)
        let n = Double(rect.width * rect.height)
        let m = Double(boxSum(sums, rect)) / n
        return max(0, Double(boxSum(squares, rect)) / n - m * m)
    }
}
