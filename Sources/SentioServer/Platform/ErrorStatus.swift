import Hummingbird
import SentioImage
import SentioStore
import Attendance
import IVCollection
import IVScanner
import Puzzler
import SentioNeural
import SentioText
import SentioVision

/// An error that knows its own HTTP status: thrown from anywhere below a route, it reaches the
/// client as that status with its description as the message (the body HTTPError writes), and
/// `Retry-After` when it has one. One table per error type, here, instead of a wrapper at each
/// call (issue 35): a client's mistake is a 4xx, the server's trouble a 5xx.
public protocol StatusError: HTTPResponseError, CustomStringConvertible {
    /// Seconds after which trying again may succeed (503 and 429), else nil.
    var retryAfter: Int? { get }
}

extension StatusError {
    public var retryAfter: Int? { nil }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [:]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return try HTTPError(status, headers: headers, message: description).response(from: request, context: context)
    }
}

/// Work stopped at its deadline or by the shutdown: the server's limit, not the client's
/// mistake.
extension ComputeDeadlineExceeded: StatusError {
    public var status: HTTPResponse.Status { .serviceUnavailable }
    public var retryAfter: Int? { cancelled ? 5 : 2 }
}

/// An upload that is not a readable image is the client's; a file the server could not write
/// is the server's.
extension ImageError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .tooLarge: .contentTooLarge
        case .unknownFormat, .corrupt, .invalidDimensions, .invalidArgument: .unprocessableContent
        case .unreadable, .unwritable, .encodeFailed: .internalServerError
        }
    }
}

/// A model that cannot be read is the server's trouble (fetch it), never the client's.
extension ModelError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .invalidInput: .unprocessableContent
        default: .serviceUnavailable
        }
    }
}

/// A model missing from the store: the server's to fix (`scripts/fetch-models`).
extension ModelStoreError: StatusError {
    public var status: HTTPResponse.Status { .serviceUnavailable }
}

/// A face box or descriptor that makes no sense came from what the client sent.
extension RecognitionError: StatusError {
    public var status: HTTPResponse.Status { .unprocessableContent }
}

/// Tesseract that cannot start is the server's trouble.
extension TextError: StatusError {
    public var status: HTTPResponse.Status { .serviceUnavailable }
}

/// The game data is the server's; a name, form or date the client gave is the client's.
extension IVError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .unreadableTable, .malformedTable: .internalServerError
        default: .unprocessableContent
        }
    }
}

/// The store's answers: a missing row is 404, a taken name 409, a refused change 403; a
/// database that cannot be reached is the server's trouble (503), its other failures 500.
extension StoreError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .conflict: .conflict
        case .notAllowed: .forbidden
        case .unavailable, .closed: .serviceUnavailable
        case .badLocation, .schemaTooNew, .migrationFailed: .internalServerError
        }
    }
    public var retryAfter: Int? {
        switch self {
        case .unavailable, .closed: 5
        default: nil
        }
    }
}

/// The attendance rules' refusals: all the client's (4xx).
extension AttendanceError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .invalid, .faceRejected: .unprocessableContent
        case .notFound: .notFound
        case .conflict: .conflict
        case .forbidden, .faceNeeded: .forbidden
        }
    }
}

/// The IV collection's refusals: a missing Pokémon is 404, anything else the player sent 422.
extension CollectionError: StatusError {
    public var status: HTTPResponse.Status {
        if case .notFound = self { return .notFound }
        return .unprocessableContent
    }
}

/// The puzzle game's refusals over HTTP (its sockets say the same in a `StreamError`).
extension PuzzlerError: StatusError {
    public var status: HTTPResponse.Status {
        switch self {
        case .locked, .unknownLevel, .unknownRound, .unknownCode: .notFound
        case .notEnoughPoints, .noHintsLeft, .hintTaken: .conflict
        default: .unprocessableContent
        }
    }
}
