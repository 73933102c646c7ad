/// Errors of face recognition's descriptors and gallery.
public enum RecognitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A descriptor with `got` numbers where `expected` are needed (another model's, or cut
    /// short): distances between descriptors of different lengths mean nothing.
    case descriptorLength(expected: Int, got: Int)
    /// A gallery needs descriptors of at least one number.
    case galleryDimension(Int)
    /// A detector's face box that makes no box (not finite, negative in size, or far outside
    /// any image).
    case faceBox(String)

    public var description: String {
        switch self {
        case let .descriptorLength(expected, got): "a face descriptor of \(got) numbers where \(expected) are needed"
        case let .galleryDimension(n): "a face gallery's descriptors have at least 1 number, not \(n)"
        case let .faceBox(box): "a face box that makes no box: \(box)"
        }
    }
}

/// dlib's 128-number face descriptor: two photos of one person lie within about 0.6 of each
/// other (Euclidean distance), photos of different people further apart.
public struct FaceDescriptor: Sendable, Equatable, Hashable {
    /// dlib's threshold: below it, two descriptors are taken for the same person (99.38% on LFW).
    public static let defaultThreshold = 0.6
    /// SFace's threshold for two single photos (unit-length descriptors, so √(2 − 2·cos)):
    /// 1.12 (cosine 0.373), where the fixtures' 698 same and 20,008 different pairs give false
    /// rejects 1.43 % and false accepts 0.065 %, the point with the most room under both bars
    /// of 2 % and 0.1 % (OpenCV's published cosine 0.363, 1.129, leaves 0.080 %;
    /// docs/face-recognition.md, "SFace").
    public static let sfaceThreshold = 1.12

    public var values: [Float]

    public init(_ values: [Float]) {
        self.values = values
    }

    /// Euclidean distance (0 for identical faces; dlib's descriptors have length about 1). An
    /// error when the two have different lengths.
    public func distance(to other: FaceDescriptor) throws -> Double {
        guard values.count == other.values.count else {
            throw RecognitionError.descriptorLength(expected: values.count, got: other.values.count)
        }
        var sum: Float = 0
        for i in values.indices {
            let d = values[i] - other.values[i]
            sum += d * d
        }
        return Double(sum).squareRoot()
    }
}

/// Whether `a` and `b` show the same person: distance below `threshold` (dlib's 0.6 by
/// default). An error when the two have different lengths.
public func verify(_ a: FaceDescriptor, _ b: FaceDescriptor, threshold: Double = FaceDescriptor.defaultThreshold) throws -> Bool {
    try a.distance(to: b) < threshold
}
