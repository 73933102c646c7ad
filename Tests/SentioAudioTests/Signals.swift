import Foundation
import SentioAudio

/// Test signals and measurements.
enum Signals {
    /// A sine of `frequency` Hz and peak `amplitude` (full scale 1), `seconds` long.
    static func sine(_ frequency: Double, amplitude: Double = 1, seconds: Double = 1, rate: Int) -> [Float] {
        (0 ..< Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// RMS level in dB of `samples` (20·log₁₀ RMS).
    static func level(_ samples: ArraySlice<Float>) -> Double {
        10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
    }

    /// The share of the signal's power at `frequency` (Goertzel over the whole slice; 1 for a pure tone
    /// that fits a whole number of cycles).
    static func purity(_ samples: ArraySlice<Float>, frequency: Double, rate: Int) -> Double {
        var (re, im) = (0.0, 0.0)
        for (n, x) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / Double(rate)
            re += Double(x) * cos(phase)
            im -= Double(x) * sin(phase)
        }
        let tonePower = 2 * (re * re + im * im) / Double(samples.count * samples.count)
        let total = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return tonePower / total
    }
}
