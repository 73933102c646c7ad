#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The frequency weighting applied before loudness is measured.
public enum FrequencyWeighting: String, Sendable, Codable, CaseIterable {
    /// None (IEC 61672's "Z", zero weighting).
    case z = "Z"
    /// IEC 61672-1's A-weighting (``AWeightingFilter``).
    case a = "A"
}

/// Loudness as RMS level in dBFS over consecutive windows (100 ms by default), from a stream of
/// samples.
///
/// Convention: level = 20·log₁₀(RMS), where a sample of ±1 is full scale. A square wave at full
/// scale is 0 dBFS and a full-scale sine is −3.01 dBFS (RMS = 1/√2). This is the plain RMS
/// convention; AES17 instead adds 3.01 dB so that the full-scale sine reads 0 dBFS — to compare
/// with an AES17 meter add 3.01. Digital silence (and anything below it) reads ``floor``,
/// −120 dBFS, so the JSON never holds −∞.
///
/// Windows start at time 0 of the stream and are ``windowDuration`` long (a whole number of
/// samples, rounded); ``finish()`` returns the last, shorter window when the stream ends inside one.
public struct LoudnessMeter: Sendable {
    /// The level reported for silence: −120 dBFS, below the quietest 24-bit signal.
    public static let floor = -120.0

    /// Samples per second.
    public let sampleRate: Int
    /// The weighting applied before the RMS.
    public let weighting: FrequencyWeighting
    /// Samples per window.
    public let windowLength: Int
    var filter: AWeightingFilter?
    var sumOfSquares = 0.0
    var count = 0
    /// Samples at or beyond full scale (|x| ≥ 32,767/32,768) so far.
    public private(set) var clippedSamples = 0

    /// A meter for audio at `sampleRate` Hz, windows of `windowDuration` seconds.
    public init(sampleRate: Int, weighting: FrequencyWeighting = .z, windowDuration: Double = 0.1) throws(AudioError) {
        guard sampleRate > 0 else { throw .invalidArgument("sample rate \(sampleRate) Hz") }
        let length = Int((windowDuration * Double(sampleRate)).rounded())
        guard length > 0 else { throw .invalidArgument("a loudness window of \(windowDuration) s holds no sample at \(sampleRate) Hz") }
        self.sampleRate = sampleRate
        self.weighting = weighting
        windowLength = length
        filter = weighting == .a ? AWeightingFilter(sampleRate: sampleRate) : nil
    }

    /// The levels of the windows that `samples` complete.
    public mutating func process(_ samples: some Collection<Float>) -> [Double] {
        var levels: [Double] = []
        for x in samples {
            if abs(x) >= 32767 / 32768 { clippedSamples += 1 }
            let y = filter == nil ? x : filter!.process(x)
            sumOfSquares += Double(y) * Double(y)
            count += 1
            if count == windowLength {
                levels.append(Self.level(meanSquare: sumOfSquares / Double(count)))
                sumOfSquares = 0
                count = 0
            }
        }
        return levels
    }

    /// The last, partial window's level, if the stream ended inside one.
    public mutating func finish() -> [Double] {
        defer { sumOfSquares = 0; count = 0 }
        return count == 0 ? [] : [Self.level(meanSquare: sumOfSquares / Double(count))]
    }

    /// 20·log₁₀(RMS) = 10·log₁₀(mean square), no lower than ``floor``.
    public static func level(meanSquare: Double) -> Double {
        meanSquare > 0 ? max(floor, 10 * log10(meanSquare)) : floor
    }

    /// The level of a whole signal (one window over all of it).
    public static func level(of samples: some Collection<Float>, sampleRate: Int, weighting: FrequencyWeighting = .z) -> Double {
        var filter = weighting == .a ? AWeightingFilter(sampleRate: sampleRate) : nil
        var sum = 0.0
        for x in samples {
            let y = filter == nil ? x : filter!.process(x)
            sum += Double(y) * Double(y)
        }
        return samples.isEmpty ? floor : level(meanSquare: sum / Double(samples.count))
    }
}
