import Foundation
import SentioMotion

/// The motion stream's input: the browser's `devicemotion` events, as the page sends them.
///
/// ```json
/// {"samples": [{"t": 1532.4,
///               "accelerationIncludingGravity": {"x": 0.1, "y": 0.2, "z": 9.8},
///               "rotationRate": {"alpha": 0.0, "beta": 1.5, "gamma": -0.3}}]}
/// ```
/// `t` is the event's `timeStamp` in milliseconds; accelerations are m/s² with gravity included
/// (lying face up reads about +9.8 on z); rotation rates are °/s. A single sample may be sent
/// without the `samples` array. Browsers name the rotation rate's axes alpha, beta, gamma and
/// fill them from the gyroscope's x, y and z (Chromium and Safari both do, whatever the older
/// specification says), so that is how they are read.
struct MotionMessage: Decodable, Sendable {
    struct Sample: Decodable, Sendable {
        struct XYZ: Decodable, Sendable { var x: Double?, y: Double?, z: Double? }
        struct Rates: Decodable, Sendable { var alpha: Double?, beta: Double?, gamma: Double? }
        var t: Double
        var accelerationIncludingGravity: XYZ?
        var rotationRate: Rates?
    }

    var samples: [Sample]

    enum Keys: String, CodingKey { case samples }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: Keys.self), container.contains(.samples) {
            samples = try container.decode([Sample].self, forKey: .samples)
        } else {
            samples = [try Sample(from: decoder)]
        }
    }

    static let standardGravity = 9.80665
    static let maxSamples = 512

    /// The message's samples in the library's units (g, rad/s, seconds), checked: every value
    /// present and finite, time increasing after `previous`.
    static func parse(_ text: String, after previous: Double?) throws(StreamError) -> [IMUSample] {
        let message: MotionMessage
        do {
            message = try JSONDecoder().decode(MotionMessage.self, from: Data(text.utf8))
        } catch {
            throw StreamError("bad_message", "expected {\"samples\": [{\"t\", \"accelerationIncludingGravity\": {x, y, z}, \"rotationRate\": {alpha, beta, gamma}}]}: \(describe(decoding: error))")
        }
        guard message.samples.count <= maxSamples else { throw StreamError("too_large", "at most \(maxSamples) samples per message") }
        var last = previous
        var samples: [IMUSample] = []
        samples.reserveCapacity(message.samples.count)
        for (i, s) in message.samples.enumerated() {
            guard let a = s.accelerationIncludingGravity, let ax = a.x, let ay = a.y, let az = a.z,
                  let r = s.rotationRate, let alpha = r.alpha, let beta = r.beta, let gamma = r.gamma
            else { throw StreamError("bad_message", "sample \(i): accelerationIncludingGravity and rotationRate need all three values (the device has no motion sensors, or the page lacks permission)") }
            let values = [s.t, ax, ay, az, alpha, beta, gamma]
            guard values.allSatisfy(\.isFinite), values.allSatisfy({ abs($0) < 1e12 }) else {
                throw StreamError("bad_message", "sample \(i): values must be finite numbers")
            }
            let time = s.t / 1000
            if let last, time <= last { throw StreamError("bad_message", "sample \(i): t must increase (\(s.t) ms after \(last * 1000) ms)") }
            last = time
            let radians = Double.pi / 180
            samples.append(IMUSample(time: time, gyroscope: Vector3(alpha * radians, beta * radians, gamma * radians),
                                     accelerometer: Vector3(ax / standardGravity, ay / standardGravity, az / standardGravity)))
        }
        return samples
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
