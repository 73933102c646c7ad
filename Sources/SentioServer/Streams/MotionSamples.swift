import Foundation
import Play
import SentioMotion

/// The motion stream's input: the browser's `devicemotion` events, as the page sends them.
///
/// ```json
/// {"samples": [{"t": 1532.4,
///               "accelerationIncludingGravity": {"x": 0.1, "y": 0.2, "z": 9.8},
///               "rotationRate": {"alpha": 0.0, "beta": 1.5, "gamma": -0.3}, "screen": 0}],
///  "sentAt": 1732490000123.4}
/// ```
/// `t` is the event's `timeStamp` in milliseconds; accelerations are m/s² with gravity included
/// (lying face up reads about +9.8 on z); rotation rates are °/s. A single sample may be sent
/// without the `samples` array. Browsers name the rotation rate's axes alpha, beta, gamma and
/// fill them from the gyroscope's x, y and z (Chromium and Safari both do, whatever the older
/// specification says), so that is how they are read. `screen` (optional) is
/// `screen.orientation.angle`; `sentAt` (optional, any clock of the sender's) is echoed in the
/// reply so a page can measure latency, and so is `mark` (optional, a word for the watching page). Browser differences and bad samples are dealt with in
/// one place, Play's ``MotionNormalizer``.
struct MotionMessage: Decodable, Sendable {
    struct Sample: Decodable, Sendable {
        struct XYZ: Decodable, Sendable { var x: Double?, y: Double?, z: Double? }
        struct Rates: Decodable, Sendable { var alpha: Double?, beta: Double?, gamma: Double? }
        var t: Double
        var accelerationIncludingGravity: XYZ?
        var rotationRate: Rates?
        var screen: Double?

        var browserSample: BrowserMotionSample {
            BrowserMotionSample(t: t, acceleration: accelerationIncludingGravity.map { ($0.x, $0.y, $0.z) },
                                rotationRate: rotationRate.map { ($0.alpha, $0.beta, $0.gamma) }, screenAngle: screen)
        }
    }

    var samples: [Sample]
    var sentAt: Double?
    /// A word from the phone for the page watching (the arcade's `recentre`), echoed; ≤ 32 characters.
    var mark: String?

    enum Keys: String, CodingKey { case samples, sentAt, mark }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: Keys.self), container.contains(.samples) {
            samples = try container.decode([Sample].self, forKey: .samples)
            sentAt = try container.decodeIfPresent(Double.self, forKey: .sentAt)
            mark = try container.decodeIfPresent(String.self, forKey: .mark)
        } else {
            samples = [try Sample(from: decoder)]
            sentAt = try? decoder.container(keyedBy: Keys.self).decodeIfPresent(Double.self, forKey: .sentAt)
        }
    }

    static let maxSamples = 512

    /// The message's usable samples in the library's units (g, rad/s, seconds), through the
    /// stream's normaliser, and what it did. A message that is not JSON of this shape, or none of
    /// whose samples can be used, is an error that says why.
    static func parse(_ text: String, normalizer: inout MotionNormalizer) throws(StreamError) -> (samples: [IMUSample], notes: MotionNormalizer.Notes, sentAt: Double?, mark: String?) {
        let message: MotionMessage
        do {
            message = try JSONDecoder().decode(MotionMessage.self, from: Data(text.utf8))
        } catch {
            throw StreamError(.badMessage, "expected {\"samples\": [{\"t\", \"accelerationIncludingGravity\": {x, y, z}, \"rotationRate\": {alpha, beta, gamma}}]}: \(describe(decoding: error))")
        }
        guard message.samples.count <= maxSamples else { throw StreamError(.tooLarge, "at most \(maxSamples) samples per message") }
        if let mark = message.mark, mark.count > 32 { throw StreamError(.badMessage, "mark is at most 32 characters") }
        let (samples, notes) = normalizer.normalize(message.samples.map(\.browserSample))
        if samples.isEmpty, !message.samples.isEmpty {
            throw StreamError(.badMessage, notes.missing > 0
                ? "no usable sample: accelerationIncludingGravity and rotationRate need all three finite values (the device has no motion sensors, or the page lacks permission)"
                : "no usable sample: t must increase from one sample to the next")
        }
        return (samples, notes, message.sentAt.flatMap { $0.isFinite ? $0 : nil }, message.mark)
    }
}

/// A decoding error in a sentence: which key, what was wrong.
func describe(decoding error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return keys.isEmpty ? "" : " at \(keys)"
    }
    switch error {
    case .typeMismatch(_, let c): return "wrong type\(path(c)): \(c.debugDescription)"
    case .valueNotFound(_, let c): return "missing value\(path(c))"
    case .keyNotFound(let key, let c): return "missing key '\(key.stringValue)'\(path(c))"
    case .dataCorrupted(let c): return "not JSON\(path(c)): \(c.debugDescription)"
    @unknown default: return "\(error)"
    }
}
