/// Mono audio as floating-point samples, full scale ±1 (an integer sample of 16 bits is
/// divided by 32,768), at a sample rate in Hz.
public struct PCMAudio: Sendable, Equatable {
    /// The rates Sentio takes: telephone (8 kHz) to studio (384 kHz).
    public static let supportedSampleRates = 8000 ... 384_000

    /// The samples, one per tick of ``sampleRate``; full scale is ±1.
    public var samples: [Float]
    /// Samples per second.
    public var sampleRate: Int

    /// Audio of `samples` at `sampleRate` Hz; the rate must be in ``supportedSampleRates``.
    public init(samples: [Float], sampleRate: Int) throws(AudioError) {
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw .unsupportedSampleRate(source: "audio", rate: sampleRate)
        }
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }

    /// The samples as signed 16-bit integers (×32,768, rounded, clamped to −32,768…32,767), as
    /// PocketSphinx takes them.
    public static func int16(_ samples: ArraySlice<Float>) -> [Int16] {
        samples.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
    }
}
