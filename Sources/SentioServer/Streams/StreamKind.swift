import Foundation
import NIOCore
import Play
import SentioImage
import SentioNeural
import SentioVision

/// The live streams the server offers, each backed by a library session.
public enum StreamKind: String, Sendable, CaseIterable {
    case faces, hands, pose, motion
    /// The gestures page: one hand tracked, its pinch, pen, strokes and digit (Play's GestureBoard).
    case gestures

    var takesImages: Bool { self != .motion }
}

/// What a stream answers for each frame or sample batch it processed (the observation is the
/// library's JSON vocabulary, docs/json.md).
struct StreamReply<Observation: Encodable & Sendable>: Encodable, Sendable {
    var type = "observation"
    var stream: String
    /// The frame's number on this connection (counting from 1, dropped frames included).
    var frame: Int
    /// Frames dropped so far on this connection because newer ones arrived first.
    var dropped: Int
    /// Server time for this frame: decoding, perception and encoding, in milliseconds.
    var serverMs: Double
    /// How long the frame waited in the server before that (ms): for its stream's previous
    /// frame and for a compute thread. waitMs + serverMs is the frame's whole time in the server.
    var waitMs: Double
    var observation: Observation
}

/// A typed error on a stream; the connection stays open unless `closing` says otherwise.
struct StreamError: Encodable, Sendable, Error {
    /// Every error a socket sends, by the `code` the pages read (docs/live-streams.md).
    enum Code: String, Codable, Sendable {
        /// A frame that is not a readable image, or not a frame of this socket's kind.
        case badFrame = "bad_frame"
        /// A sample batch or other input that does not parse.
        case badInput = "bad_input"
        /// A message of a kind or shape this socket does not take.
        case badMessage = "bad_message"
        /// An option (query parameter or control message) out of its range.
        case badOption = "bad_option"
        /// The socket ended on an error (the message says which).
        case closed
        /// The socket sent nothing for its idle time and was closed.
        case idle
        /// The lecture or level is locked.
        case locked
        /// A check-in was refused (the message says why).
        case refused
        /// A message over the socket's size limit.
        case tooLarge = "too_large"
        /// The service behind the socket cannot run (a missing model).
        case unavailable
        /// The room named does not exist or has closed.
        case unknownRoom = "unknown_room"
        /// An input of the wrong sense for the level.
        case wrongInput = "wrong_input"
    }

    var type = "error"
    var code: Code
    var message: String
    var frame: Int?

    init(_ code: Code, _ message: String, frame: Int? = nil) {
        self.code = code
        self.message = message
        self.frame = frame
    }
}

/// One image stream's session, on the compute thread it was given; decodes, perceives and
/// encodes there, so the event loop only moves bytes.
actor ImageStreamWorker {
    nonisolated let thread: ComputeThread
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    private let process: (Image, Double) throws -> any (Encodable & Sendable)
    private let resetSession: () -> Void
    /// A text command other than reset (`clear`, `undo` on the gestures stream); false if unknown.
    private let command: (String) -> Bool
    let kind: StreamKind
    let limits: Limits

    init(kind: StreamKind, options: StreamOptions, store: ModelStore, thread: ComputeThread, limits: Limits) throws {
        self.thread = thread
        self.kind = kind
        self.limits = limits
        var command: (String) -> Bool = { _ in false }
        switch kind {
        case .faces:
            var configuration = FaceSession.Configuration()
            configuration.maxFaces = options.maxFaces
            configuration.irises = options.iris
            let session = try FaceSession(configuration: configuration, store: store)
            process = { try session.process($0, time: $1) }
            resetSession = { session.reset() }
        case .hands:
            let session = try HandSession(maxHands: options.maxHands, store: store)
            process = { try session.process($0, time: $1) }
            resetSession = { session.reset() }
        case .pose:
            let session = try PoseSession(store: store)
            process = { try session.process($0, time: $1) }
            resetSession = { session.reset() }
        case .gestures:
            let session = try HandSession(maxHands: 1, store: store)
            let board = BoardBox()
            process = { image, time in
                let observed = try session.process(image, time: time).hands.first
                return board.value.update(hand: observed.map { $0.landmarks.map { BoardPoint($0.x, $0.y) } }, indexCurled: observed?.indexCurled ?? false,
                                          penFingersStraight: observed?.penFingersStraight ?? false,
                                          imageWidth: image.width, imageHeight: image.height, time: time)
            }
            resetSession = { session.reset(); board.value = GestureBoard() }
            command = { name in
                switch name {
                case "clear": board.value.clear(); return true
                case "undo": board.value.undo(); return true
                default: return false
                }
            }
        case .motion:
            preconditionFailure("motion streams take samples, not images")
        }
        self.command = command
    }

    /// The reply (or typed error) for one encoded frame, as JSON text.
    func handle(_ bytes: ByteBuffer, frame: Int, time: Double, received: ContinuousClock.Instant, dropped: Int) -> (json: String, failed: Bool) {
        let started = ContinuousClock.now
        let waited = (started - received).milliseconds
        do {
            let image = try ImageIO.decode(Array(buffer: bytes), source: "frame \(frame)",
                                           options: DecodeOptions(maxPixels: limits.maxImagePixels))
            let observation = try process(image, time)
            let ms = (ContinuousClock.now - started).milliseconds
            return (try ReplyEncoder.string(StreamReply(stream: kind.rawValue, frame: frame, dropped: dropped, serverMs: ms, waitMs: waited, observation: AnyEncodable(observation))), false)
        } catch {
            let reply = StreamError(.badFrame, "\(error)", frame: frame)
            return ((try? JSON.string(reply)) ?? #"{"type":"error","code":"bad_frame"}"#, true)
        }
    }

    func reset() { resetSession() }

    /// Runs a text command; false when this stream has no such command.
    func run(_ name: String) -> Bool { command(name) }
}

/// The gestures stream's board, held by its worker (used only on the worker's thread).
final class BoardBox { var value = GestureBoard() }

/// Options a stream takes as query parameters at connection.
struct StreamOptions: Sendable {
    var maxFaces = 1
    var iris = false
    var maxHands = 2
    var room: String?
    /// Motion: `rotationUnit=deg|rad` and `axes=device|screen` override what the User-Agent implies.
    var rotationUnit: BrowserProfile.RotationRateUnit?
    var axesFollowScreen: Bool?

    init(query: [String: String]) throws(StreamError) {
        if let text = query["maxFaces"] {
            guard let n = Int(text), (1...8).contains(n) else { throw StreamError(.badOption, "maxFaces is a whole number from 1 to 8") }
            maxFaces = n
        }
        if let text = query["maxHands"] {
            guard let n = Int(text), (1...4).contains(n) else { throw StreamError(.badOption, "maxHands is a whole number from 1 to 4") }
            maxHands = n
        }
        if let text = query["iris"] {
            guard let flag = Bool(text) else { throw StreamError(.badOption, "iris is true or false") }
            iris = flag
        }
        room = query["room"]
        if let text = query["rotationUnit"] {
            guard let unit = BrowserProfile.RotationRateUnit(rawValue: text) else { throw StreamError(.badOption, "rotationUnit is deg or rad") }
            rotationUnit = unit
        }
        if let text = query["axes"] {
            guard ["device", "screen"].contains(text) else { throw StreamError(.badOption, "axes is device or screen") }
            axesFollowScreen = text == "screen"
        }
    }

    /// The motion stream's browser profile: the User-Agent's, with the query's overrides.
    func motionProfile(userAgent: String?) -> BrowserProfile {
        var profile = BrowserProfile(userAgent: userAgent)
        if let rotationUnit { profile.rotationRateUnit = rotationUnit }
        if let axesFollowScreen { profile.axesFollowScreen = axesFollowScreen }
        return profile
    }
}

/// Wraps an existential so a generic envelope can encode it.
struct AnyEncodable: Encodable, Sendable {
    let value: any (Encodable & Sendable)
    init(_ value: any (Encodable & Sendable)) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

enum JSON {
    static func string(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func data(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
