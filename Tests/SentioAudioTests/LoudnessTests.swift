import Foundation
import Testing
import SentioAudio

@Suite("Loudness")
struct LoudnessTests {
    /// Calibrated tones and what they must read, worked out by hand:
    /// a sine of peak A has RMS A/√2, so its level is 20·log₁₀(A) − 3.0103 dB;
    /// a square wave of height A has RMS A, level 20·log₁₀(A).
    static let tones: [(name: String, samples: [Float], rate: Int, expected: Double)] = [
        ("full-scale 1 kHz sine", Signals.sine(1000, amplitude: 1, rate: 48000), 48000, -3.0103),
        ("1 kHz sine at peak 0.1: −20 − 3.01", Signals.sine(1000, amplitude: 0.1, rate: 16000), 16000, -23.0103),
        ("100 Hz sine at peak 0.01: −40 − 3.01", Signals.sine(100, amplitude: 0.01, rate: 44100), 44100, -43.0103),
        ("full-scale square wave, 500 Hz", (0 ..< 16000).map { ($0 / 16) % 2 == 0 ? 1 : -1 }, 16000, 0),
        ("square wave of height 0.5: 20·log₁₀ 0.5", (0 ..< 16000).map { ($0 / 16) % 2 == 0 ? 0.5 : -0.5 }, 16000, -6.0206),
    ]

    @Test("calibrated tones read within 0.5 dB, in every 100 ms window", arguments: 0 ..< tones.count)
    func calibratedTones(_ index: Int) throws {
        let tone = Self.tones[index]
        var meter = try LoudnessMeter(sampleRate: tone.rate)
        let levels = meter.process(tone.samples) + meter.finish()
        #expect(levels.count == 10)
        for level in levels { #expect(abs(level - tone.expected) < 0.5, "\(tone.name): \(level) dBFS, expected \(tone.expected)") }
        // The measured error, much smaller than the 0.5 dB allowed: whole cycles fit each window.
        #expect(abs(levels[0] - tone.expected) < 0.01)
    }

    @Test("silence reads the floor, −120 dBFS; clipping is counted")
    func silenceAndClipping() throws {
        var meter = try LoudnessMeter(sampleRate: 16000)
        #expect(meter.process([Float](repeating: 0, count: 1600)) == [-120])
        _ = meter.process([1, -1, 0.5, 1])
        #expect(meter.clippedSamples == 3)
    }

    @Test("a window that does not fit a whole number of samples, and a stream ending inside one")
    func partialWindow() throws {
        var meter = try LoudnessMeter(sampleRate: 44100)
        #expect(meter.windowLength == 4410)
        #expect(meter.process([Float](repeating: 0.5, count: 4410 + 100)).count == 1)
        #expect(meter.finish() == [20 * log10(0.5)])
    }

    /// IEC 61672-1:2013 Table 3, A-weighting in dB to 0.1 dB at the nominal frequencies, which stand
    /// for the exact base-ten ones, 1000·10^(n/10) Hz (31.5 is 31.62 Hz); and how close the filter at
    /// 48 kHz must come: within 0.1 dB below 2 kHz; above, the bilinear transform's cramping near
    /// Nyquist leaves it within 0.7 dB (measured +0.59 dB at 10 kHz).
    static let table: [(n: Int, nominal: Double, weight: Double, tolerance: Double)] = [
        (-15, 31.5, -39.4, 0.1), (-12, 63, -26.2, 0.1), (-10, 100, -19.1, 0.1), (-6, 250, -8.6, 0.1), (-3, 500, -3.2, 0.1),
        (0, 1000, 0, 0.01), (3, 2000, 1.2, 0.1), (6, 4000, 1.0, 0.35), (9, 8000, -1.1, 0.75), (10, 10000, -2.5, 0.7),
    ]

    @Test("A-weighting's gain matches the standard's table at 48 kHz")
    func aWeightingTable() {
        let filter = AWeightingFilter(sampleRate: 48000)
        for row in Self.table {
            let frequency = 1000 * pow(10, Double(row.n) / 10)
            let gain = filter.decibels(at: frequency)
            #expect(abs(gain - row.weight) <= row.tolerance + 0.05, "\(row.nominal) Hz: \(gain) dB, table \(row.weight) dB")
            // The table's values are the formula's, rounded to 0.1 dB.
            #expect(abs(AWeightingFilter.standard(at: frequency) - row.weight) <= 0.05)
        }
    }

    @Test("A-weighted tones: 1 kHz reads as unweighted, 100 Hz 19.1 dB lower, 10 kHz about 2.5 dB lower")
    func aWeightedTones() throws {
        // Full-scale sines at 48 kHz: −3.01 dBFS unweighted; A-weighted −3.01 + A(f).
        for (frequency, weight, tolerance) in [(1000.0, 0.0, 0.05), (100, -19.145, 0.1), (10000, -2.49, 0.7)] {
            var meter = try LoudnessMeter(sampleRate: 48000, weighting: .a)
            let levels = meter.process(Signals.sine(frequency, seconds: 2, rate: 48000))
            let settled = levels[5...]  // the 20 Hz poles take some tens of milliseconds to settle
            for level in settled { #expect(abs(level - (-3.0103 + weight)) < tolerance, "\(frequency) Hz: \(level) dBFS") }
        }
    }
}
