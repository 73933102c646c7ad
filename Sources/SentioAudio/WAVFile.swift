import Foundation

/// RIFF/WAVE files: integer PCM (8-, 16-, 24- and 32-bit), IEEE float (32- and 64-bit), plain or
/// in `WAVE_FORMAT_EXTENSIBLE`, any number of channels.
///
/// What bad input gets (see docs/hearing.md): several channels are averaged into one (a
/// conversion, reported in ``Info/channels``); a last sample frame cut short is dropped; a
/// `data` chunk whose size is 0 or 0xFFFFFFFF (what a recorder that never finished writes) runs to
/// the end of the file. Everything else is a typed ``AudioError``: not RIFF/WAVE, a chunk longer
/// than the file, no `fmt ` or `data`, µ-law, A-law, ADPCM and other compressed encodings, odd
/// bit depths, sample rates outside ``PCMAudio/supportedSampleRates``, float samples that are NaN
/// or infinite.
public enum WAVFile {
    /// What the `fmt ` chunk said.
    public struct Info: Sendable, Equatable, Codable {
        /// Samples per second per channel.
        public var sampleRate: Int
        /// Channels in the file (the decoded audio is their average).
        public var channels: Int
        /// Bits per sample.
        public var bitsPerSample: Int
        /// Whether the samples are IEEE floats rather than integers.
        public var isFloat: Bool

        /// What a `fmt ` chunk says.
        public init(sampleRate: Int, channels: Int, bitsPerSample: Int, isFloat: Bool) {
            self.sampleRate = sampleRate
            self.channels = channels
            self.bitsPerSample = bitsPerSample
            self.isFloat = isFloat
        }
    }

    /// The largest file ``read(_:limit:)`` takes by default: 256 MiB, 2 h of 16 kHz 16-bit stereo.
    public static let defaultLimit = 256 << 20

    /// Decodes the file at `path` (see ``decode(_:source:)``).
    public static func read(_ path: String, limit: Int = defaultLimit) throws(AudioError) -> (audio: PCMAudio, info: Info) {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw .unreadable(path: path, reason: "no such file or not accessible")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .unreadable(path: path, reason: "not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else { throw .tooLarge(source: path, bytes: size, limit: limit) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path, reason: "read failed") }
        return try decode([UInt8](data), source: path)
    }

    /// Decodes a whole file held in memory; `source` names it in errors.
    public static func decode(_ bytes: [UInt8], source: String = "WAV") throws(AudioError) -> (audio: PCMAudio, info: Info) {
        var reader = ChunkReader(bytes: bytes, source: source)
        let (format, data) = try reader.formatAndData()
        let info = try format.info(source: source)
        let samples = try decodeSamples(bytes[data], format: format, info: info, source: source)
        if info.isFloat, let index = samples.firstIndex(where: { !$0.isFinite }) {
            throw .invalidFormat(source: source, detail: "sample frame \(index) is not a finite number")
        }
        let audio = try PCMAudio(samples: samples, sampleRate: info.sampleRate)
        return (audio, info)
    }

    /// The interleaved samples of `data`, averaged over channels into mono.
    static func decodeSamples(_ data: ArraySlice<UInt8>, format: FormatChunk, info: Info, source: String) throws(AudioError) -> [Float] {
        let bytesPerSample = info.bitsPerSample / 8
        let frameBytes = bytesPerSample * info.channels
        let frames = data.count / frameBytes  // a frame cut short at the end is dropped
        let scale = 1 / Float(info.channels)
        var out = [Float](repeating: 0, count: frames)
        data.withUnsafeBytes { raw in
            for frame in 0 ..< frames {
                var sum: Float = 0
                for channel in 0 ..< info.channels {
                    let offset = frame * frameBytes + channel * bytesPerSample
                    sum += sample(raw, at: offset, bits: info.bitsPerSample, isFloat: info.isFloat)
                }
                out[frame] = sum * scale
            }
        }
        return out
    }

    /// One little-endian sample at `offset`, full scale ±1.
    @inline(__always)
    static func sample(_ raw: UnsafeRawBufferPointer, at offset: Int, bits: Int, isFloat: Bool) -> Float {
        if isFloat {
            if bits == 32 { return Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian) }
            return Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian))
        }
        switch bits {
        case 8: return (Float(raw[offset]) - 128) / 128  // 8-bit WAV is unsigned, 128 is zero
        case 16: return Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int16.self))) / 32768
        case 24:
            let value = Int32(raw[offset]) << 8 | Int32(raw[offset + 1]) << 16 | Int32(raw[offset + 2]) << 24
            return Float(value >> 8) / 8_388_608
        default: return Float(Double(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self))) / 2_147_483_648)
        }
    }
}

/// The fields of a `fmt ` chunk that decoding needs.
struct FormatChunk {
    var formatTag: Int
    var channels: Int
    var sampleRate: Int
    var blockAlign: Int
    var bitsPerSample: Int
    /// The sub-format of `WAVE_FORMAT_EXTENSIBLE` (the first two bytes of its GUID).
    var subFormat: Int?

    static let names = [2: "Microsoft ADPCM", 6: "A-law", 7: "µ-law", 0x11: "IMA ADPCM", 0x31: "GSM 6.10", 0x50: "MPEG", 0x55: "MP3"]

    func info(source: String) throws(AudioError) -> WAVFile.Info {
        let tag = formatTag == 0xFFFE ? (subFormat ?? 0) : formatTag
        guard tag == 1 || tag == 3 else {
            throw .unsupportedEncoding(source: source, formatTag: tag, name: Self.names[tag] ?? "an unknown encoding")
        }
        let isFloat = tag == 3
        guard channels > 0, channels <= 64 else { throw .invalidFormat(source: source, detail: "\(channels) channels") }
        guard isFloat ? [32, 64].contains(bitsPerSample) : [8, 16, 24, 32].contains(bitsPerSample) else {
            throw .unsupportedBitDepth(source: source, bits: bitsPerSample, float: isFloat)
        }
        guard blockAlign == channels * bitsPerSample / 8 else {
            throw .invalidFormat(source: source, detail: "block size \(blockAlign) bytes for \(channels) channels of \(bitsPerSample) bits")
        }
        guard PCMAudio.supportedSampleRates.contains(sampleRate) else { throw .unsupportedSampleRate(source: source, rate: sampleRate) }
        return WAVFile.Info(sampleRate: sampleRate, channels: channels, bitsPerSample: bitsPerSample, isFloat: isFloat)
    }
}

/// Walks the RIFF chunks, checking every size against the bytes there are.
struct ChunkReader {
    let bytes: [UInt8]
    let source: String

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
    func tag(_ at: Int) -> String { String(decoding: bytes[at ..< at + 4], as: UTF8.self) }

    mutating func formatAndData() throws(AudioError) -> (FormatChunk, Range<Int>) {
        guard bytes.count >= 12 else { throw .notWAV(source: source, detail: "\(bytes.count) bytes, shorter than a RIFF header") }
        let riff = tag(0)
        guard riff == "RIFF" else {
            let what = riff == "RIFX" ? "big-endian RIFX" : riff == "RF64" ? "RF64 (64-bit sizes)" : "starts with \(riff.debugDescription)"
            throw .notWAV(source: source, detail: what)
        }
        guard tag(8) == "WAVE" else { throw .notWAV(source: source, detail: "a RIFF \(tag(8).debugDescription) file") }
        var offset = 12
        var format: FormatChunk?
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            var size = u32(offset + 4)
            let available = bytes.count - offset - 8
            if id == "data", format != nil, size == 0 || size == 0xFFFF_FFFF {
                size = available  // a recorder that never went back to write the size
            }
            guard size <= available else {
                throw .truncated(source: source, chunk: id, offset: offset, declaredBytes: size, availableBytes: available)
            }
            let body = offset + 8
            switch id {
            case "fmt ":
                guard size >= 16 else { throw .invalidFormat(source: source, detail: "a fmt chunk of \(size) bytes (16 at least)") }
                var chunk = FormatChunk(formatTag: u16(body), channels: u16(body + 2), sampleRate: u32(body + 4),
                                        blockAlign: u16(body + 12), bitsPerSample: u16(body + 14))
                if chunk.formatTag == 0xFFFE {
                    guard size >= 40 else { throw .invalidFormat(source: source, detail: "an extensible fmt chunk of \(size) bytes (40 at least)") }
                    chunk.subFormat = u16(body + 24)
                }
                format = chunk
            case "data":
                guard let format else { throw .missingChunk(source: source, chunk: "fmt ") }
                return (format, body ..< body + size)
            default: break
            }
            offset = body + size + (size & 1)  // chunks are padded to an even length
        }
        throw .missingChunk(source: source, chunk: format == nil ? "fmt " : "data")
    }
}

extension WAVFile {
    /// A 16-bit integer PCM mono WAV file of `audio` (samples clamped to full scale), in memory.
    public static func encode16(_ audio: PCMAudio) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(44 + audio.samples.count * 2)
        func u32(_ v: Int) { for i in 0 ..< 4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func u16(_ v: Int) { for i in 0 ..< 2 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        out += Array("RIFF".utf8); u32(36 + audio.samples.count * 2); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16); u16(1); u16(1); u32(audio.sampleRate); u32(audio.sampleRate * 2); u16(2); u16(16)
        out += Array("data".utf8); u32(audio.samples.count * 2)
        for s in PCMAudio.int16(audio.samples[...]) { u16(Int(UInt16(bitPattern: s))) }
        return out
    }
}
