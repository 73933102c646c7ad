import Foundation

/// Why an attendance operation was refused. Each case says what and where, in words a
/// professor or student can act on; the server maps them to 4xx answers.
public enum AttendanceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field's value is not acceptable: which field and why.
    case invalid(String, String)
    /// No such thing (or not one the caller may see).
    case notFound(String)
    /// The operation conflicts with the state: a confirmed lecture, a double check-in, …
    case conflict(String)
    /// The caller may not do this to this thing (a professor on another's course, …).
    case forbidden(String)
    /// A face could not serve: no usable face in the photo, no enrolment to compare with.
    case faceRejected(String)
    /// An act needs a face check of the caller's own that is missing, spent or too old.
    case faceNeeded(String)

    public var description: String {
        switch self {
        case .invalid(let field, let why): "\(field): \(why)"
        case .notFound(let what): "no \(what)"
        case .conflict(let why): why
        case .forbidden(let why): why
        case .faceRejected(let why): why
        case .faceNeeded(let why): why
        }
    }
}
