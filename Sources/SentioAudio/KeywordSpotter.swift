import CPocketSphinx
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A key phrase heard in a stream.
public struct KeywordHit: Sendable, Equatable, Codable {
    /// The phrase, as configured ("black hole").
    public var phrase: String
    /// Stream time in seconds at which the phrase ends, as the decoder aligned it.
    public var time: Double

    /// A hit of `phrase` ending at stream time `time` seconds.
    public init(phrase: String, time: Double) {
        self.phrase = phrase
        self.time = time
    }

    enum CodingKeys: String, CodingKey { case phrase, time = "time_s" }
}

/// Key-phrase spotting in one stream of 16 kHz mono audio with PocketSphinx's keyphrase search
/// (`kws`): a loop of all phones runs beside the phrase's own phones, and the phrase is reported
/// when its score beats the loop's by ``Configuration/threshold`` (see docs/hearing.md for how the
/// default was chosen).
///
/// One spotter is one stream: it holds its own decoder (PocketSphinx decoders are not
/// thread-safe and 5prealpha cannot share a loaded model between them), guarded by a mutex, so
/// the spotter may be handed between threads but processes one chunk at a time.
///
/// PocketSphinx logs to stderr by default; that log is process-wide in sphinxbase, and the
/// first spotter made turns it off for the whole process (library code prints nothing).
public final class KeywordSpotter: Sendable {
    /// What to listen for and with which model.
    public struct Configuration: Sendable, Equatable {
        /// The key phrase: words of the dictionary, separated by spaces ("black hole"; the
        /// dictionary has no "blackhole").
        public var keyphrase: String
        /// PocketSphinx's `-kws_threshold`: how much likelier than the phone loop the phrase must
        /// be, as a probability ratio. Lower finds more and mistakes more.
        public var threshold: Double
        /// The acoustic model and dictionary.
        public var model: KeywordModel

        /// The threshold chosen from the fixture clips (docs/hearing.md): 1e-20.
        public static let defaultThreshold = 1e-20

        /// Listen for `keyphrase` at `threshold` with `model` (Debian's US English by default).
        public init(keyphrase: String = "black hole", threshold: Double = defaultThreshold, model: KeywordModel = .debianEnglish) {
            self.keyphrase = keyphrase
            self.threshold = threshold
            self.model = model
        }
    }

    /// The sample rate the model takes.
    public static let sampleRate = 16000
    /// Decoder frames per second (PocketSphinx's `-frate`).
    static let framesPerSecond = 100.0
    /// Audio fed after the stream's end so that the decoder's last detections come out: its
    /// `-kws_delay` holds a detection back 10 frames.
    static let tailSamples = 3200

    /// The configuration it was made with.
    public let configuration: Configuration
    let decoder: Mutex<Decoder>

    /// A spotter for a new stream; loads the model (about 0.13 s).
    public init(configuration: Configuration = Configuration()) throws(AudioError) {
        self.configuration = configuration
        decoder = Mutex(try Decoder(configuration: configuration))
    }

    /// Feeds 16 kHz samples; returns the phrases found so far and not yet returned.
    public func process(_ samples: [Int16]) throws(AudioError) -> [KeywordHit] {
        try decoder.withLock { (d: inout Decoder) throws(AudioError) -> [KeywordHit] in try d.process(samples) }
    }

    /// Ends the stream: returns the phrases its last moments hold.
    public func finish() -> [KeywordHit] {
        decoder.withLock { $0.finish() }
    }
}

/// Turns sphinxbase's process-wide log off, once.
private let silencePocketSphinx: Void = { err_set_logfp(nil) }()

/// One PocketSphinx decoder in one utterance that lasts as long as the stream.
struct Decoder: ~Copyable {
    let handle: OpaquePointer
    let config: OpaquePointer
    let phrase: String
    /// Frames of the detections already returned end at or before this one.
    var lastReportedEnd = -1
    var finished = false

    init(configuration: KeywordSpotter.Configuration) throws(AudioError) {
        (handle, config, phrase) = try Self.open(configuration)
    }

    /// A decoder in the keyphrase search, in an utterance; its configuration; the phrase.
    static func open(_ configuration: KeywordSpotter.Configuration) throws(AudioError) -> (OpaquePointer, OpaquePointer, String) {
        _ = silencePocketSphinx
        try configuration.model.validate()
        let words = configuration.keyphrase.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { throw .invalidKeyphrase(phrase: configuration.keyphrase, detail: "no words") }
        guard configuration.threshold > 0, configuration.threshold.isFinite else {
            throw .invalidArgument("keyword threshold \(configuration.threshold) is not a positive probability ratio")
        }
        let phrase = words.joined(separator: " ")
        // -remove_silence no: 5prealpha's voice-activity detector drops the frames it takes for
        // silence, and then the decoder's frame numbers no longer count 10 ms of the stream (a
        // phrase after a pause was reported at the wrong time, and more than once).
        let arguments = ["-hmm", configuration.model.acousticModel, "-dict", configuration.model.dictionary,
                         "-kws_threshold", "\(configuration.threshold)", "-remove_silence", "no"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        guard let config = argv.withUnsafeMutableBufferPointer({ cmd_ln_parse_r(nil, ps_args(), Int32(arguments.count), $0.baseAddress, 1) }) else {
            throw .decoderFailed(call: "cmd_ln_parse_r")
        }
        guard let handle = ps_init(config) else {
            cmd_ln_free_r(config)
            throw .modelMissing(path: configuration.model.acousticModel, hint: "PocketSphinx could not load it")
        }
        for word in words {
            guard let phones = ps_lookup_word(handle, word) else {
                ps_free(handle); cmd_ln_free_r(config)
                throw .wordNotInDictionary(word: word, phrase: configuration.keyphrase)
            }
            free(phones)
        }
        guard ps_set_keyphrase(handle, "kws", phrase) >= 0, ps_set_search(handle, "kws") >= 0, ps_start_utt(handle) >= 0 else {
            ps_free(handle); cmd_ln_free_r(config)
            throw .decoderFailed(call: "ps_set_keyphrase")
        }
        return (handle, config, phrase)
    }

    deinit {
        ps_free(handle)
        cmd_ln_free_r(config)
    }

    mutating func process(_ samples: [Int16]) throws(AudioError) -> [KeywordHit] {
        guard !finished else { throw .sessionFinished }
        guard !samples.isEmpty else { return [] }
        let status = samples.withUnsafeBufferPointer { ps_process_raw(handle, $0.baseAddress, $0.count, 0, 0) }
        guard status >= 0 else { throw .decoderFailed(call: "ps_process_raw") }
        return newHits()
    }

    mutating func finish() -> [KeywordHit] {
        guard !finished else { return [] }
        let tail = [Int16](repeating: 0, count: KeywordSpotter.tailSamples)
        _ = tail.withUnsafeBufferPointer { ps_process_raw(handle, $0.baseAddress, $0.count, 0, 0) }
        let hits = newHits()
        ps_end_utt(handle)
        finished = true
        return hits
    }

    /// Detections the decoder has released (its `-kws_delay` after they end) and that do not
    /// overlap one already returned: the decoder keeps improving a detection's alignment while
    /// the phrase's last phone goes on, so the same utterance can show up more than once.
    mutating func newHits() -> [KeywordHit] {
        var spans: [(start: Int, end: Int)] = []
        var segment = ps_seg_iter(handle)
        while let current = segment {
            var start: Int32 = 0, end: Int32 = 0
            ps_seg_frames(current, &start, &end)
            spans.append((Int(start), Int(end)))
            segment = ps_seg_next(current)  // frees the iterator after the last
        }
        var hits: [KeywordHit] = []
        for span in spans.sorted(by: { $0.start < $1.start }) where span.start > lastReportedEnd {
            hits.append(KeywordHit(phrase: phrase, time: Double(span.end) / KeywordSpotter.framesPerSecond))
            lastReportedEnd = span.end
        }
        return hits
    }
}
