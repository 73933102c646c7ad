/// People known by their face descriptors, searched 1:N: "who is this?".
///
/// Descriptors are kept in one contiguous array and searched exhaustively (a few milliseconds
/// for 100,000 people on one core — `sentio face gallery-bench` measures it); a person may be
/// enrolled with several photos, and the search reports each person once, at their closest.
public struct FaceGallery: Sendable {
    /// One candidate of an identification.
    public struct Match: Sendable, Equatable {
        public var name: String
        public var distance: Double
    }

    /// The result of ``identify(_:k:threshold:)``.
    public struct Identification: Sendable, Equatable {
        /// Up to k people, closest first.
        public var candidates: [Match]
        /// The closest person if within the threshold; nil means unknown.
        public var identity: String?
    }

    public private(set) var names: [String] = []
    private var owners: [Int32] = []
    private var values: [Float] = []
    public let dimension: Int

    /// A gallery of dlib's 128-number descriptors.
    public init() {
        dimension = 128
    }

    /// A gallery of `dimension`-number descriptors (another model's); an error below 1.
    public init(dimension: Int) throws {
        guard dimension >= 1 else { throw RecognitionError.galleryDimension(dimension) }
        self.dimension = dimension
    }

    /// Number of enrolled descriptors.
    public var count: Int { owners.count }

    /// Enrolls one descriptor of `name` (a person may have several). An error, the gallery
    /// unchanged, when the descriptor's length is not the gallery's dimension.
    public mutating func add(_ descriptor: FaceDescriptor, name: String) throws {
        guard descriptor.values.count == dimension else {
            throw RecognitionError.descriptorLength(expected: dimension, got: descriptor.values.count)
        }
        let person: Int
        if let existing = index[name] {
            person = existing
        } else {
            person = names.count
            names.append(name)
            index[name] = person
        }
        owners.append(Int32(person))
        values += descriptor.values
    }

    private var index: [String: Int] = [:]

    /// The k closest people to `descriptor`, and the closest one's name if nearer than
    /// `threshold` (dlib's 0.6 by default), else unknown. An error when the descriptor's
    /// length is not the gallery's dimension.
    public func identify(_ descriptor: FaceDescriptor, k: Int = 5, threshold: Double = FaceDescriptor.defaultThreshold) throws -> Identification {
        guard descriptor.values.count == dimension else {
            throw RecognitionError.descriptorLength(expected: dimension, got: descriptor.values.count)
        }
        var best = [Float](repeating: .infinity, count: names.count)
        let d = dimension
        values.withUnsafeBufferPointer { all in
            descriptor.values.withUnsafeBufferPointer { q in
                // Both hold d ≥ 1 numbers per row (checked on the way in): neither is empty
                // once a descriptor is enrolled.
                guard let start = all.baseAddress, q.count == d else { return }
                for row in 0 ..< owners.count {
                    let base = start + row * d
                    var sum: Float = 0
                    for i in 0 ..< d {
                        let diff = base[i] - q[i]
                        sum += diff * diff
                    }
                    let person = Int(owners[row])
                    if sum < best[person] { best[person] = sum }
                }
            }
        }
        // Partial selection of the k smallest.
        var top: [(Float, Int)] = []
        for (person, squared) in best.enumerated() {
            if top.count < k {
                top.append((squared, person))
                top.sort { $0.0 < $1.0 }
            } else if let last = top.last, squared < last.0 {
                top[top.count - 1] = (squared, person)
                top.sort { $0.0 < $1.0 }
            }
        }
        let candidates = top.map { Match(name: names[$0.1], distance: Double($0.0).squareRoot()) }
        let identity = candidates.first.flatMap { $0.distance < threshold ? $0.name : nil }
        return Identification(candidates: candidates, identity: identity)
    }
}
