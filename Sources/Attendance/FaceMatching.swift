import Foundation

/// The descriptor a face is matched with. Descriptors of one model are never compared with
/// another's: an enrolment made with dlib is left aside when attendance decides with SFace
/// (the person enrols again, or the server re-enrols them from the photos they let it keep).
public enum FaceModel: String, Codable, Sendable, CaseIterable {
    /// OpenCV Zoo's SFace through ONNX (unit length; attendance's default): measured to
    /// separate the fixture identities dlib confuses (docs/attendance.md, "SFace").
    case sface
    /// dlib's ResNet (150×150 chips, jittered at enrolment).
    case dlib

    /// The policy measured for this model's descriptors.
    public var policy: MatchPolicy {
        switch self {
        case .sface: .sface
        case .dlib: .dlib
        }
    }
}

/// How a face is matched against enrolments: the Euclidean distance between the descriptor of
/// a check-in frame and the mean of a person's enrolment descriptors (for SFace the mean is
/// scaled back to length 1, so the distance stays √(2 − 2·cos)), and (1:1 at the kiosk) no
/// other student of the course nearer.
///
/// The thresholds come from curves measured through the server's API
/// (`scripts/attendance-curve`, docs/attendance.md): each fixture identity enrolled with half
/// its photos, the other half checked against every enrolled person, two folds. The mean is
/// taken because it measured better than the nearest photo: one odd enrolment photo cannot
/// pull a stranger in.
public struct MatchPolicy: Codable, Sendable, Equatable {
    /// The descriptor these numbers are for.
    public var model: FaceModel
    /// Accept at or under this distance.
    public var threshold: Double
    /// Identification (1:N) names someone only when the next nearest student is at least this
    /// much further away; otherwise the student is asked to pick their name.
    public var identificationMargin: Double

    /// dlib at 0.48: 1.1 % false rejects, no false accept among classmates (the cohort rule),
    /// 0.31 % for a stranger who is not enrolled.
    public static let dlib = MatchPolicy(model: .dlib, threshold: 0.48, identificationMargin: 0.06)
    /// SFace at 0.98 (docs/attendance.md, "SFace"): the middle of the span where the fixture
    /// identities' enrolment protocol has no false accept (enrolled impostors and strangers)
    /// and false rejects at their floor, 1.7 % (0.93 to 1.04; the nearest impostor 1.043); a
    /// genuine student's nearest other is at least 0.28 further than their own enrolment, so
    /// the 1:N margin of 0.12 names every one of them.
    public static let sface = MatchPolicy(model: .sface, threshold: 0.98, identificationMargin: 0.12)

    public init(model: FaceModel, threshold: Double, identificationMargin: Double) {
        self.model = model
        self.threshold = threshold
        self.identificationMargin = identificationMargin
    }
}

/// A person's enrolled face: the descriptors of their accepted photos, of one model.
public struct FaceTemplate: Sendable, Equatable {
    public var personID: String
    public var model: FaceModel
    public var descriptors: [[Float]]

    public init(personID: String, model: FaceModel, descriptors: [[Float]]) {
        self.personID = personID
        self.model = model
        self.descriptors = descriptors
    }

    /// The mean descriptor (nil without descriptors); for SFace scaled to length 1, as its
    /// descriptors are, so that distances to it mean what they mean between two photos.
    public var mean: [Float]? {
        guard let first = descriptors.first else { return nil }
        var sum = [Double](repeating: 0, count: first.count)
        for d in descriptors where d.count == first.count {
            for i in d.indices { sum[i] += Double(d[i]) }
        }
        let n = Double(descriptors.filter { $0.count == first.count }.count)
        var mean = sum.map { $0 / n }
        if model == .sface {
            let length = mean.reduce(0) { $0 + $1 * $1 }.squareRoot()
            if length > 0 { mean = mean.map { $0 / length } }
        }
        return mean.map { Float($0) }
    }
}

/// The outcome of a face check.
public struct FaceMatch: Codable, Sendable, Equatable {
    public var personID: String?
    public var distance: Double
    public var accepted: Bool
    /// The distance of the nearest other person (identification: the runner-up; verification
    /// with a cohort: the nearest classmate).
    public var runnerUp: Double?
}

extension MatchPolicy {
    /// Refuses a template of another model: its distances mean nothing on this scale.
    func check(_ template: FaceTemplate) throws {
        guard template.model == model else {
            throw AttendanceError.invalid("descriptor", "\(template.personID)'s enrolment is \(template.model.rawValue)'s, not \(model.rawValue)'s")
        }
    }
}

public enum FaceMatcher {
    /// Euclidean distance; an error when the lengths differ or a value is not finite.
    public static func distance(_ a: [Float], _ b: [Float]) throws -> Double {
        guard a.count == b.count, !a.isEmpty else {
            throw AttendanceError.invalid("descriptor", "lengths \(a.count) and \(b.count) differ")
        }
        var sum = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        guard sum.isFinite else { throw AttendanceError.invalid("descriptor", "not a finite number") }
        return sum.squareRoot()
    }

    /// 1:1: is `probe` the person of `template`? With a `cohort` (everyone with an enrolled face,
    /// the kiosk's choice), also: is nobody in it nearer? Someone enrolled who picks another's
    /// name is then refused unless they look more like that person than like themselves
    /// (measured: no such false accept on the fixture identities; docs/attendance.md).
    public static func verify(_ probe: [Float], against template: FaceTemplate, cohort: [FaceTemplate] = [],
                              policy: MatchPolicy) throws -> FaceMatch {
        guard let mean = template.mean else { throw AttendanceError.faceRejected("no face is enrolled for this person; ask the administrator") }
        try policy.check(template)
        let d = try distance(probe, mean)
        var nearestOther: Double?
        for other in cohort where other.personID != template.personID {
            try policy.check(other)
            guard let m = other.mean else { continue }
            let e = try distance(probe, m)
            nearestOther = min(nearestOther ?? e, e)
        }
        let accepted = d <= policy.threshold && (nearestOther.map { d < $0 } ?? true)
        return FaceMatch(personID: template.personID, distance: d, accepted: accepted, runnerUp: nearestOther)
    }

    /// 1:N: who among `templates` is `probe`? Accepted only when the nearest is within the
    /// threshold and the next is at least the margin further — and, with `others` (people
    /// enrolled elsewhere), when none of them is nearer than the one found: the face is then
    /// theirs, not a student's of this course.
    public static func identify(_ probe: [Float], among templates: [FaceTemplate], others: [FaceTemplate] = [],
                                policy: MatchPolicy) throws -> FaceMatch {
        var scored: [(String, Double)] = []
        for template in templates {
            try policy.check(template)
            guard let mean = template.mean else { continue }
            scored.append((template.personID, try distance(probe, mean)))
        }
        scored.sort { $0.1 < $1.1 }
        guard let best = scored.first else { throw AttendanceError.faceRejected("nobody in this course has an enrolled face") }
        let runnerUp = scored.count > 1 ? scored[1].1 : nil
        let clear = runnerUp.map { $0 - best.1 >= policy.identificationMargin } ?? true
        let candidates = Set(templates.map(\.personID))
        var someoneElse = false
        for other in others where !candidates.contains(other.personID) {
            try policy.check(other)
            guard let m = other.mean else { continue }
            if try distance(probe, m) < best.1 { someoneElse = true; break }
        }
        let accepted = best.1 <= policy.threshold && clear && !someoneElse
        return FaceMatch(personID: accepted ? best.0 : nil, distance: best.1, accepted: accepted, runnerUp: runnerUp)
    }

    /// Descriptors as stored: little-endian Float32.
    public static func encode(_ descriptor: [Float]) -> Data {
        var data = Data(capacity: descriptor.count * 4)
        for v in descriptor { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    public static func decode(_ data: Data) throws -> [Float] {
        guard data.count % 4 == 0, data.count > 0 else { throw AttendanceError.invalid("descriptor", "\(data.count) bytes is not a list of Float32") }
        return stride(from: 0, to: data.count, by: 4).map { i in
            let bits = data[data.startIndex + i..<data.startIndex + i + 4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            return Float(bitPattern: bits)
        }
    }
}
