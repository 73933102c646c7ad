/// A streaming sample-rate converter: windowed-sinc interpolation, polyphase.
///
/// The rates' ratio is reduced to L/M (44,100 → 16,000 is 160/441). Output sample n sits at
/// input position n·M/L; it is the sum of the input around that position weighted by a
/// low-pass sinc, Kaiser-windowed (β = 8, about 80 dB down in the stop band), that is precomputed
/// for each of the L fractional positions (the polyphase table). The cut-off is 0.92 of the
/// lower rate's Nyquist frequency, so that with 32 zero crossings each side the transition band
/// (about 0.16 of the lower Nyquist wide) ends at that Nyquist: from 48 kHz to 16 kHz the pass
/// band runs to about 6.7 kHz (the keyword model's upper filter is 6.8 kHz) and nothing above
/// 8 kHz folds back. Each phase sums to exactly 1, so a constant stays that constant.
///
/// Output timing: sample n of the output is at time n / outputRate of the input's clock (the
/// filter is symmetric, so there is no delay to correct); ``process(_:)`` returns an output
/// sample once the input reaches half the filter past it (2 ms from 44.1 kHz), ``finish()``
/// the rest, as if silence followed.
public struct Resampler: Sendable {
    /// Input samples per second.
    public let inputRate: Int
    /// Output samples per second.
    public let outputRate: Int
    let up: Int, down: Int
    /// Taps on each side of the centre, in input samples.
    let halfWidth: Int
    /// L phases of 2·halfWidth taps each; phase p is for fractional position p/L.
    let table: [Float]
    /// Input not yet consumed; `buffer[0]` is input sample `bufferStart`.
    var buffer: [Float] = []
    var bufferStart = 0
    var inputCount = 0
    /// The next output sample's index.
    var next = 0

    static let zeroCrossings = 32.0
    static let beta = 8.0
    static let passFraction = 0.92

    /// A converter from `inputRate` to `outputRate` samples per second.
    public init(from inputRate: Int, to outputRate: Int) throws(AudioError) {
        guard inputRate > 0, outputRate > 0 else { throw .invalidArgument("resampling rates must be positive (\(inputRate) → \(outputRate))") }
        self.inputRate = inputRate
        self.outputRate = outputRate
        let g = Self.gcd(inputRate, outputRate)
        (up, down) = (outputRate / g, inputRate / g)
        guard up <= 4096 else {
            throw .invalidArgument("resampling \(inputRate) → \(outputRate) Hz needs \(up) filter phases (4,096 at most)")
        }
        // Cut-off in cycles per input sample: below the lower of the two Nyquist frequencies.
        let cutoff = 0.5 * min(1, Double(up) / Double(down)) * Self.passFraction
        halfWidth = up == down ? 0 : Int((Self.zeroCrossings / (2 * cutoff)).rounded(.up))
        table = up == down ? [] : Self.makeTable(up: up, halfWidth: halfWidth, cutoff: cutoff)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    static func makeTable(up: Int, halfWidth: Int, cutoff: Double) -> [Float] {
        let taps = 2 * halfWidth
        var table = [Float](repeating: 0, count: up * taps)
        let i0 = besselI0(beta)
        for phase in 0 ..< up {
            let fraction = Double(phase) / Double(up)
            var row = [Double](repeating: 0, count: taps)
            for k in 0 ..< taps {
                // Tap k multiplies input sample floor(t) − halfWidth + 1 + k; x is its distance from t.
                let x = Double(k - halfWidth + 1) - fraction
                let r = x / Double(halfWidth)
                guard abs(r) < 1 else { continue }
                let window = besselI0(beta * (1 - r * r).squareRoot()) / i0
                let arg = 2 * cutoff * x
                let sinc = arg == 0 ? 1 : sin(Double.pi * arg) / (Double.pi * arg)
                row[k] = 2 * cutoff * sinc * window
            }
            let sum = row.reduce(0, +)
            for k in 0 ..< taps { table[phase * taps + k] = Float(row[k] / sum) }
        }
        return table
    }

    /// The modified Bessel function of the first kind, order 0 (its power series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    /// The output that `input` completes (continuing the stream).
    public mutating func process(_ input: some Collection<Float>) -> [Float] {
        if up == down { inputCount += input.count; return Array(input) }
        buffer.append(contentsOf: input)
        inputCount += input.count
        return drain(until: inputCount)
    }

    /// The rest of the output, as if the input were followed by silence; the stream is over.
    public mutating func finish() -> [Float] {
        if up == down { return [] }
        // Output samples up to the input's end (exclusive), each with its full right half.
        let end = inputCount
        buffer.append(contentsOf: repeatElement(0, count: halfWidth + 1))
        inputCount += halfWidth + 1
        let lastOutput = (end * up + down - 1) / down  // outputs at positions < end
        var out: [Float] = []
        while next < lastOutput, let sample = produce(available: inputCount) { out.append(sample) }
        buffer.removeAll()
        return out
    }

    mutating func drain(until available: Int) -> [Float] {
        var out: [Float] = []
        while let sample = produce(available: available) { out.append(sample) }
        let keepFrom = max(0, (next * down) / up - halfWidth + 1)
        if keepFrom > bufferStart {
            buffer.removeFirst(min(buffer.count, keepFrom - bufferStart))
            bufferStart = keepFrom
        }
        return out
    }

    /// Output sample `next` when the input reaches far enough.
    mutating func produce(available: Int) -> Float? {
        let position = next * down  // in units of 1/up input samples
        let base = position / up, phase = position % up
        let first = base - halfWidth + 1, last = base + halfWidth
        guard last < available else { return nil }
        let taps = 2 * halfWidth
        var sum: Float = 0
        table.withUnsafeBufferPointer { coefficients in
            buffer.withUnsafeBufferPointer { samples in
                let row = phase * taps
                for k in 0 ..< taps {
                    let index = first + k - bufferStart
                    if index >= 0 { sum += coefficients[row + k] * samples[index] }  // before the stream began: silence
                }
            }
        }
        next += 1
        return sum
    }

    /// All of `samples` from `inputRate` to `outputRate` in one go.
    public static func resample(_ samples: [Float], from inputRate: Int, to outputRate: Int) throws(AudioError) -> [Float] {
        var resampler = try Resampler(from: inputRate, to: outputRate)
        return resampler.process(samples) + resampler.finish()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
