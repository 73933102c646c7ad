/// Everything that can go wrong reading, converting or listening to audio. Each case says what
/// was wrong and where, in one line (``description``).
public enum AudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The bytes are not a RIFF/WAVE file (`detail` says what was found instead).
    case notWAV(source: String, detail: String)
    /// A chunk the format needs is absent (`"fmt "` or `"data"`).
    case missingChunk(source: String, chunk: String)
    /// A chunk claims more bytes than the file holds.
    case truncated(source: String, chunk: String, offset: Int, declaredBytes: Int, availableBytes: Int)
    /// The `fmt ` chunk is inconsistent (block size against channels and bit depth, zero channels…).
    case invalidFormat(source: String, detail: String)
    /// The samples are encoded in a way Sentio does not decode (µ-law, A-law, ADPCM, MP3…).
    case unsupportedEncoding(source: String, formatTag: Int, name: String)
    /// Integer PCM of a bit depth other than 8, 16, 24 or 32, or float of other than 32 or 64 bits.
    case unsupportedBitDepth(source: String, bits: Int, float: Bool)
    /// A sample rate outside ``PCMAudio/supportedSampleRates``.
    case unsupportedSampleRate(source: String, rate: Int)
    /// The input is larger than the stated limit.
    case tooLarge(source: String, bytes: Int, limit: Int)
    /// A float sample is NaN or infinite (`index` counts from the chunk's first sample).
    case nonFiniteSample(index: Int)
    /// A chunk's time stamp goes back before the end of the previous chunk.
    case chunkOutOfOrder(expectedTime: Double, chunkTime: Double)
    /// A chunk arrived at a rate other than the stream's.
    case sampleRateChanged(stream: Int, chunk: Int)
    /// A chunk arrived after ``ListeningSession/finish()``.
    case sessionFinished
    /// The keyword model's files are not where they were looked for.
    case modelMissing(path: String, hint: String)
    /// A word of the key phrase is not in the pronunciation dictionary.
    case wordNotInDictionary(word: String, phrase: String)
    /// The key phrase is empty or not usable (`detail` says why).
    case invalidKeyphrase(phrase: String, detail: String)
    /// A parameter is outside what the operation accepts.
    case invalidArgument(String)
    /// PocketSphinx refused a call (`call` names it).
    case decoderFailed(call: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .notWAV(source, detail): "\(source): not a RIFF/WAVE file: \(detail)"
        case let .missingChunk(source, chunk): "\(source): no \"\(chunk)\" chunk"
        case let .truncated(source, chunk, offset, declared, available):
            "\(source): truncated: the \"\(chunk)\" chunk at byte \(offset) declares \(declared) bytes but only \(available) follow"
        case let .invalidFormat(source, detail): "\(source): invalid WAVE format: \(detail)"
        case let .unsupportedEncoding(source, tag, name):
            "\(source): \(name) (format tag \(tag)) is not decoded; give integer PCM or IEEE float"
        case let .unsupportedBitDepth(source, bits, float):
            "\(source): \(bits)-bit \(float ? "float" : "integer PCM") is not decoded (8/16/24/32-bit integer, 32/64-bit float)"
        case let .unsupportedSampleRate(source, rate):
            "\(source): sample rate \(rate) Hz is outside \(PCMAudio.supportedSampleRates.lowerBound)…\(PCMAudio.supportedSampleRates.upperBound) Hz"
        case let .tooLarge(source, bytes, limit): "\(source): \(bytes) bytes exceed the limit of \(limit)"
        case let .nonFiniteSample(index): "sample \(index) of the chunk is not a finite number"
        case let .chunkOutOfOrder(expected, got):
            "chunk at \(got) s goes back before the end of the previous one (\(expected) s)"
        case let .sampleRateChanged(stream, chunk): "chunk at \(chunk) Hz in a stream at \(stream) Hz"
        case .sessionFinished: "the listening session has finished; start a new one"
        case let .modelMissing(path, hint): "keyword model not found at \(path) (\(hint))"
        case let .wordNotInDictionary(word, phrase):
            "\"\(word)\" of the key phrase \"\(phrase)\" is not in the pronunciation dictionary"
        case let .invalidKeyphrase(phrase, detail): "key phrase \"\(phrase)\": \(detail)"
        case let .invalidArgument(message): message
        case let .decoderFailed(call): "PocketSphinx failed in \(call)"
        }
    }
}
