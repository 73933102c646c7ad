import Foundation
import Testing
import SentioAudio

@Suite("Resampler")
struct ResamplerTests {
    @Test("a tone resampled keeps its frequency and level", arguments: [(48000, 16000), (44100, 16000), (8000, 16000), (16000, 48000), (22050, 16000)])
    func tone(_ rates: (Int, Int)) throws {
        let (from, to) = rates
        // 1 kHz at −6.02 dBFS peak (amplitude 0.5): RMS level 20·log₁₀(0.5/√2) = −9.03 dB.
        let output = try Resampler.resample(Signals.sine(1000, amplitude: 0.5, seconds: 1, rate: from), from: from, to: to)
        #expect(output.count == to)
        let middle = output[to / 10 ..< to - to / 10]  // away from the edges, where the filter meets silence
        #expect(abs(Signals.level(middle) - -9.031) < 0.05, "level \(Signals.level(middle)) dB")
        #expect(Signals.purity(middle, frequency: 1000, rate: to) > 0.999)
    }

    @Test("what lies above the new Nyquist frequency is filtered out, not folded back")
    func antiAliasing() throws {
        // 10 kHz at 48 kHz would fold to 6 kHz at 16 kHz; the filter stops it (≥ 60 dB down).
        let output = try Resampler.resample(Signals.sine(10000, seconds: 1, rate: 48000), from: 48000, to: 16000)
        #expect(Signals.level(output[1600 ..< 14400]) < -63)
        // 7.5 kHz is in the transition band: partly through, never amplified.
        let edge = try Resampler.resample(Signals.sine(7500, seconds: 1, rate: 48000), from: 48000, to: 16000)
        #expect(Signals.level(edge[1600 ..< 14400]) < -3)
        // 6 kHz is in the pass band (to about 6.7 kHz).
        let pass = try Resampler.resample(Signals.sine(6000, seconds: 1, rate: 48000), from: 48000, to: 16000)
        #expect(abs(Signals.level(pass[1600 ..< 14400]) - -3.01) < 0.1)
    }

    @Test("streaming in uneven chunks gives what one call gives; a constant stays constant")
    func streaming() throws {
        let input = Signals.sine(440, amplitude: 0.7, seconds: 0.5, rate: 44100)
        let whole = try Resampler.resample(input, from: 44100, to: 16000)
        var resampler = try Resampler(from: 44100, to: 16000)
        var pieces: [Float] = []
        var start = 0, step = 1
        while start < input.count {
            let end = min(input.count, start + step)
            pieces += resampler.process(input[start ..< end])
            start = end
            step = step * 3 % 4409 + 1
        }
        pieces += resampler.finish()
        #expect(pieces == whole)
        let dc = try Resampler.resample([Float](repeating: 0.25, count: 4800), from: 48000, to: 16000)
        #expect(dc[200 ..< 1400].allSatisfy { abs($0 - 0.25) < 1e-5 })
    }
}
