import Synchronization

/// A piece of a live stream: mono float samples (full scale ±1) at the session's rate.
public struct AudioChunk: Sendable, Equatable {
    /// The samples.
    public var samples: [Float]
    /// Stream time of the first sample in seconds, when the sender stamps its chunks; nil
    /// continues where the previous chunk ended.
    public var time: Double?

    /// A chunk of `samples`, the first at stream time `time` (nil: right after the previous chunk).
    public init(samples: [Float], time: Double? = nil) {
        self.samples = samples
        self.time = time
    }

    /// A chunk of 16-bit integer samples.
    public init(int16 samples: [Int16], time: Double? = nil) {
        self.init(samples: samples.map { Float($0) / 32768 }, time: time)
    }
}

/// A loudness window: where it starts in the stream and its level.
public struct LoudnessWindow: Sendable, Equatable, Codable {
    /// Stream time of the window's first sample, seconds.
    public var start: Double
    /// RMS level in dBFS (``LoudnessMeter``'s convention: a full-scale sine is −3.01).
    public var level: Double

    /// A window starting at `start` seconds with `level` dBFS.
    public init(start: Double, level: Double) {
        self.start = start
        self.level = level
    }

    enum CodingKeys: String, CodingKey { case start = "start_s", level = "dbfs" }
}

/// What a session heard in a chunk: the loudness windows the chunk completed and the key
/// phrases the decoder released.
public struct HearingObservation: Sendable, Equatable, Codable {
    /// Stream time at the end of the audio taken so far, seconds.
    public var time: Double
    /// Loudness windows completed by this chunk, in order.
    public var loudness: [LoudnessWindow]
    /// Key phrases found, each once, in order.
    public var hits: [KeywordHit]
    /// Samples of this chunk at full scale (clipping), counted before any weighting.
    public var clippedSamples: Int

    /// An observation at stream time `time`.
    public init(time: Double, loudness: [LoudnessWindow] = [], hits: [KeywordHit] = [], clippedSamples: Int = 0) {
        self.time = time
        self.loudness = loudness
        self.hits = hits
        self.clippedSamples = clippedSamples
    }

    enum CodingKeys: String, CodingKey { case time = "time_s", loudness, hits, clippedSamples = "clipped_samples" }
}

/// Listening to one stream: chunks in (at the stream's own rate, e.g. a browser's 48 kHz
/// float), an observation out for each. Loudness is measured at the stream's rate (so
/// A-weighting is right up to 10 kHz and more); the key phrase is looked for in the stream
/// resampled to 16 kHz (``Resampler``).
///
/// A session is one stream and holds one decoder; it is `Sendable` (a mutex guards it) and
/// processes one chunk at a time. Make one per connection.
public final class ListeningSession: Sendable {
    /// What to measure and what to listen for.
    public struct Configuration: Sendable, Equatable {
        /// The key phrase and model; nil measures loudness only (no decoder is loaded).
        public var keywords: KeywordSpotter.Configuration?
        /// Frequency weighting for loudness.
        public var weighting: FrequencyWeighting
        /// Loudness window, seconds.
        public var windowDuration: Double
        /// The longest gap between stamped chunks that is filled with silence; a longer one is
        /// an error (the sender lost the stream's clock).
        public var maximumGap: Double

        /// "black hole" at the default threshold, unweighted loudness per 100 ms, gaps up to 5 s filled.
        public init(keywords: KeywordSpotter.Configuration? = .init(), weighting: FrequencyWeighting = .z,
                    windowDuration: Double = 0.1, maximumGap: Double = 5) {
            self.keywords = keywords
            self.weighting = weighting
            self.windowDuration = windowDuration
            self.maximumGap = maximumGap
        }
    }

    struct State: ~Copyable {
        var meter: LoudnessMeter
        var resampler: Resampler?
        /// Stream time of sample 0 (the first chunk's stamp, else 0).
        var origin: Double?
        var samplesTaken = 0
        var windowsReported = 0
        var finished = false
    }

    /// Samples per second of the stream.
    public let sampleRate: Int
    /// The configuration it was made with.
    public let configuration: Configuration
    let spotter: KeywordSpotter?
    let state: Mutex<State>

    /// A session for a stream at `sampleRate` Hz (in ``PCMAudio/supportedSampleRates``).
    public init(sampleRate: Int, configuration: Configuration = Configuration()) throws(AudioError) {
        guard PCMAudio.supportedSampleRates.contains(sampleRate) else { throw .unsupportedSampleRate(source: "stream", rate: sampleRate) }
        guard configuration.windowDuration > 0, configuration.windowDuration <= 60 else {
            throw .invalidArgument("loudness window of \(configuration.windowDuration) s (0…60 s)")
        }
        self.sampleRate = sampleRate
        self.configuration = configuration
        spotter = try configuration.keywords.map { (c) throws(AudioError) in try KeywordSpotter(configuration: c) }
        let meter = try LoudnessMeter(sampleRate: sampleRate, weighting: configuration.weighting, windowDuration: configuration.windowDuration)
        let resampler = spotter != nil && sampleRate != KeywordSpotter.sampleRate
            ? try Resampler(from: sampleRate, to: KeywordSpotter.sampleRate) : nil
        state = Mutex(State(meter: meter, resampler: resampler))
    }

    /// Takes the next chunk of the stream.
    public func process(_ chunk: AudioChunk) throws(AudioError) -> HearingObservation {
        if let index = chunk.samples.firstIndex(where: { !$0.isFinite }) { throw .nonFiniteSample(index: index) }
        return try state.withLock { (s: inout State) throws(AudioError) -> HearingObservation in
            guard !s.finished else { throw .sessionFinished }
            var samples = chunk.samples
            if let time = chunk.time {
                if let origin = s.origin {
                    let expected = origin + Double(s.samplesTaken) / Double(sampleRate)
                    let gap = time - expected
                    if gap < -0.001 { throw .chunkOutOfOrder(expectedTime: expected, chunkTime: time) }
                    if gap > configuration.maximumGap {
                        throw .invalidArgument("a gap of \(gap) s before the chunk at \(time) s (at most \(configuration.maximumGap) s is filled)")
                    }
                    let missing = Int((gap * Double(sampleRate)).rounded())
                    if missing > 0 { samples = [Float](repeating: 0, count: missing) + samples }  // lost audio: silence
                } else {
                    s.origin = time
                }
            } else if s.origin == nil {
                s.origin = 0
            }
            let clippedBefore = s.meter.clippedSamples
            let levels = s.meter.process(samples)
            s.samplesTaken += samples.count
            var hits: [KeywordHit] = []
            if let spotter {
                var input = samples
                if s.resampler != nil { input = s.resampler!.process(samples) }
                hits = try spotter.process(PCMAudio.int16(input[...]))
            }
            return observation(&s, levels: levels, hits: hits, clipped: s.meter.clippedSamples - clippedBefore)
        }
    }

    /// Ends the stream: the last, partial loudness window and the phrases of its last moments.
    /// Further chunks are refused.
    public func finish() -> HearingObservation {
        state.withLock { (s: inout State) -> HearingObservation in
            guard !s.finished else { return HearingObservation(time: s.origin ?? 0) }
            s.finished = true
            if s.origin == nil { s.origin = 0 }
            let levels = s.meter.finish()
            var hits: [KeywordHit] = []
            if let spotter {
                if s.resampler != nil {
                    let tail = s.resampler!.finish()
                    hits = (try? spotter.process(PCMAudio.int16(tail[...]))) ?? []
                }
                hits += spotter.finish()
            }
            return observation(&s, levels: levels, hits: hits, clipped: 0)
        }
    }

    func observation(_ s: inout State, levels: [Double], hits: [KeywordHit], clipped: Int) -> HearingObservation {
        let origin = s.origin ?? 0
        let window = Double(s.meter.windowLength) / Double(sampleRate)
        var windows: [LoudnessWindow] = []
        for level in levels {
            windows.append(LoudnessWindow(start: origin + Double(s.windowsReported) * window, level: level))
            s.windowsReported += 1
        }
        let shifted = hits.map { KeywordHit(phrase: $0.phrase, time: origin + $0.time) }
        return HearingObservation(time: origin + Double(s.samplesTaken) / Double(sampleRate), loudness: windows,
                                  hits: shifted, clippedSamples: clipped)
    }
}
