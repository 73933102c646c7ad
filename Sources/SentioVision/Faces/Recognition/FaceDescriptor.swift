/// dlib's 128-number face descriptor: two photos of one person lie within about 0.6 of each
/// other (Euclidean distance), photos of different people further apart.
public struct FaceDescriptor: Sendable, Equatable, Hashable {
    /// dlib's threshold: below it, two descriptors are taken for the same person (99.38% on LFW).
    public static let defaultThreshold = 0.6

    public var values: [Float]

    public init(_ values: [Float]) {
        self.values = values
    }

    /// Euclidean distance (0 for identical faces; dlib's descriptors have length about 1).
    public func distance(to other: FaceDescriptor) -> Double {
        precondition(values.count == other.values.count, "descriptors of \(values.count) and \(other.values.count) numbers")
        var sum: Float = 0
        for i in values.indices {
            let d = values[i] - other.values[i]
            sum += d * d
        }
        return Double(sum).squareRoot()
    }
}

/// Whether `a` and `b` show the same person: distance below `threshold` (dlib's 0.6 by default).
public func verify(_ a: FaceDescriptor, _ b: FaceDescriptor, threshold: Double = FaceDescriptor.defaultThreshold) -> Bool {
    a.distance(to: b) < threshold
}
