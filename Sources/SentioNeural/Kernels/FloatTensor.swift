/// A Float32 tensor during execution: a shape and the memory it lives in (arena or constant).
public struct FloatTensor: @unchecked Sendable {
    // Unchecked: kernels write a tensor's memory only while no other kernel reads it (the
    // interpreter runs nodes in order and gives overlapping lifetimes disjoint memory).
    public var shape: [Int]
    public var data: UnsafeMutablePointer<Float>

    public init(shape: [Int], data: UnsafeMutablePointer<Float>) {
        self.shape = shape
        self.data = data
    }

    public var count: Int { shape.reduce(1, *) }

    /// The shape padded with leading ones to four dimensions (N, H, W, C).
    public var nhwc: (n: Int, h: Int, w: Int, c: Int) {
        let s = [Int](repeating: 1, count: max(0, 4 - shape.count)) + shape.suffix(4)
        return (s[0], s[1], s[2], s[3])
    }
}
