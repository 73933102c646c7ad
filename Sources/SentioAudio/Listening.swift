import Foundation

/// What `sentio listen` prints for a recording: its length, the loudness of each 100 ms and the
/// key phrases heard.
public struct ListeningResult: Sendable, Equatable, Codable {
    /// Length in seconds.
    public var duration: Double
    /// The recording's sample rate, Hz.
    public var sampleRate: Int
    /// The frequency weighting of ``loudness``.
    public var weighting: FrequencyWeighting
    /// RMS level in dBFS of each window (100 ms unless configured), from time 0; the last one is
    /// shorter when the recording ends inside it.
    public var loudness: [Double]
    /// Key phrases heard, in order.
    public var hits: [KeywordHit]
    /// Samples at full scale (clipping).
    public var clippedSamples: Int

    enum CodingKeys: String, CodingKey {
        case duration = "duration_s", sampleRate = "sample_rate_hz", weighting, loudness = "loudness_dbfs", hits
        case clippedSamples = "clipped_samples"
    }
}

/// Listening to whole recordings.
public enum Hearing {
    /// Runs a ``ListeningSession`` over `audio` in chunks of `chunkDuration` seconds, exactly as a
    /// stream would arrive, so a file and a stream give the same answer.
    public static func listen(to audio: PCMAudio, configuration: ListeningSession.Configuration = .init(),
                              chunkDuration: Double = 0.1) throws(AudioError) -> ListeningResult {
        let session = try ListeningSession(sampleRate: audio.sampleRate, configuration: configuration)
        let chunk = max(1, Int((chunkDuration * Double(audio.sampleRate)).rounded()))
        var loudness: [Double] = [], hits: [KeywordHit] = [], clipped = 0
        var start = 0
        while start < audio.samples.count {
            let end = min(start + chunk, audio.samples.count)
            let observation = try session.process(AudioChunk(samples: Array(audio.samples[start ..< end])))
            loudness += observation.loudness.map(\.level)
            hits += observation.hits
            clipped += observation.clippedSamples
            start = end
        }
        let last = session.finish()
        loudness += last.loudness.map(\.level)
        hits += last.hits
        return ListeningResult(duration: audio.duration, sampleRate: audio.sampleRate, weighting: configuration.weighting,
                               loudness: loudness, hits: hits, clippedSamples: clipped)
    }
}

extension Hearing {
    /// How strongly `audio` holds the key phrase: log₁₀ of the highest threshold at which the
    /// spotter still finds it (to within 0.1), searched between 10⁻⁴⁸ (the decoder's beam, below
    /// which it prunes the phrase anyway) and 10⁺⁴⁰; nil when it finds nothing even at 10⁻⁴⁸.
    /// This is how the default threshold was chosen (docs/hearing.md).
    public static func keywordScore(of audio: PCMAudio, keywords: KeywordSpotter.Configuration = .init()) throws(AudioError) -> Double? {
        func hits(_ exponent: Double) throws(AudioError) -> Bool {
            var k = keywords
            k.threshold = Foundation.pow(10, exponent)
            let configuration = ListeningSession.Configuration(keywords: k)
            return try !listen(to: audio, configuration: configuration).hits.isEmpty
        }
        var (low, high) = (-48.0, 40.0)
        guard try hits(low) else { return nil }
        if try hits(high) { return high }
        while high - low > 0.1 {
            let middle = (low + high) / 2
            if try hits(middle) { low = middle } else { high = middle }
        }
        return (low * 10).rounded(.down) / 10
    }
}
