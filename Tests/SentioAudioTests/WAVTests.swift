import Foundation
import SentioTestSupport
import Testing
import SentioAudio

@Suite("WAV files")
struct WAVTests {
    /// A WAV file with a `fmt ` chunk of the given fields and `data` as its data chunk.
    static func file(tag: Int = 1, channels: Int = 1, rate: Int = 16000, bits: Int = 16, blockAlign: Int? = nil,
                     data: [UInt8], dataSize: Int? = nil, extra: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { for i in 0 ..< 4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func u16(_ v: Int) { for i in 0 ..< 2 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        out += Array("RIFF".utf8); u32(4 + 24 + extra.count + 8 + data.count); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16); u16(tag); u16(channels); u32(rate)
        u32(rate * (blockAlign ?? channels * bits / 8)); u16(blockAlign ?? channels * bits / 8); u16(bits)
        out += extra
        out += Array("data".utf8); u32(dataSize ?? data.count); out += data
        return out
    }

    @Test("16-bit PCM survives a round trip to the sample")
    func roundTrip() throws {
        let samples = Signals.sine(440, amplitude: 0.5, seconds: 0.25, rate: 16000).map { ($0 * 32768).rounded() / 32768 }
        let audio = try PCMAudio(samples: samples, sampleRate: 16000)
        let (decoded, info) = try WAVFile.decode(WAVFile.encode16(audio))
        #expect(decoded == audio)
        #expect(info == WAVFile.Info(sampleRate: 16000, channels: 1, bitsPerSample: 16, isFloat: false))
    }

    @Test("8-bit (unsigned), 24-bit and 32-bit float decode to the same full scale")
    func depths() throws {
        // 8-bit: 0 is −1, 128 is 0, 192 is +0.5.
        #expect(try WAVFile.decode(Self.file(bits: 8, data: [0, 128, 192])).audio.samples == [-1, 0, 0.5])
        // 24-bit: 0x400000 is +0.5, 0xC00000 is −0.5 (little endian).
        #expect(try WAVFile.decode(Self.file(bits: 24, data: [0, 0, 0x40, 0, 0, 0xC0])).audio.samples == [0.5, -0.5])
        let float: [UInt8] = [Float(0.25), -1].flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        #expect(try WAVFile.decode(Self.file(tag: 3, bits: 32, data: float)).audio.samples == [0.25, -1])
    }

    @Test("stereo is averaged into mono, and said to be stereo")
    func stereo() throws {
        let data: [UInt8] = [Int16(16384), 0, -16384, -16384].flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        let (audio, info) = try WAVFile.decode(Self.file(channels: 2, data: data))
        #expect(audio.samples == [0.25, -0.5])
        #expect(info.channels == 2)
    }

    @Test("a data chunk of unknown length (0xFFFFFFFF, as a recorder that never finished leaves it) runs to the end; an odd chunk is padded")
    func lenient() throws {
        let data: [UInt8] = [0, 0x40, 0, 0xC0]
        #expect(try WAVFile.decode(Self.file(data: data, dataSize: 0xFFFF_FFFF)).audio.samples == [0.5, -0.5])
        // A LIST chunk of 3 bytes, padded to 4, before the data.
        let list: [UInt8] = Array("LIST".utf8) + [3, 0, 0, 0] + [1, 2, 3, 0]
        #expect(try WAVFile.decode(Self.file(data: data, extra: list)).audio.samples == [0.5, -0.5])
        // A last frame cut short is dropped.
        #expect(try WAVFile.decode(Self.file(data: data + [7])).audio.samples == [0.5, -0.5])
    }

    @Test("bad files are typed errors that say what and where")
    func badFiles() {
        let pcm: [UInt8] = [0, 0x40, 0, 0xC0]
        func error(_ bytes: [UInt8]) -> AudioError? {
            do { _ = try WAVFile.decode(bytes, source: "x.wav"); return nil } catch { return error }
        }
        #expect(error([]) == .notWAV(source: "x.wav", detail: "0 bytes, shorter than a RIFF header"))
        #expect(error(Array("RIFX\0\0\0\0WAVE".utf8)) == .notWAV(source: "x.wav", detail: "big-endian RIFX"))
        #expect(error(Array("ID3\u{3}\0\0\0\0\0\0\0\0".utf8))?.description.contains("not a RIFF/WAVE file") == true)
        let truncated = Array(Self.file(data: pcm, dataSize: 400).prefix(48))
        #expect(error(truncated) == .truncated(source: "x.wav", chunk: "data", offset: 36, declaredBytes: 400, availableBytes: 4))
        #expect(error(Self.file(tag: 7, bits: 8, data: pcm)) == .unsupportedEncoding(source: "x.wav", formatTag: 7, name: "µ-law"))
        #expect(error(Self.file(tag: 0x55, data: pcm)) == .unsupportedEncoding(source: "x.wav", formatTag: 0x55, name: "MP3"))
        #expect(error(Self.file(bits: 12, blockAlign: 2, data: pcm)) == .unsupportedBitDepth(source: "x.wav", bits: 12, float: false))
        #expect(error(Self.file(rate: 4000, data: pcm)) == .unsupportedSampleRate(source: "x.wav", rate: 4000))
        #expect(error(Self.file(channels: 2, blockAlign: 2, data: pcm))
            == .invalidFormat(source: "x.wav", detail: "block size 2 bytes for 2 channels of 16 bits"))
        #expect(error(Self.file(channels: 0, data: pcm)) == .invalidFormat(source: "x.wav", detail: "0 channels"))
        let nan: [UInt8] = [Float(0.5), .nan].flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        #expect(error(Self.file(tag: 3, bits: 32, data: nan)) == .invalidFormat(source: "x.wav", detail: "sample frame 1 is not a finite number"))
        let noFormat = Array("RIFF".utf8) + [12, 0, 0, 0] + Array("WAVE".utf8) + Array("data".utf8) + [0, 0, 0, 0]
        #expect(error(noFormat) == .missingChunk(source: "x.wav", chunk: "fmt "))
        let noData = Array(Self.file(data: []).prefix(36))
        #expect(error(noData) == .missingChunk(source: "x.wav", chunk: "data"))
    }

    @Test("a missing file and a folder are unreadable, not a crash")
    func unreadable() {
        #expect(throws: AudioError.unreadable(path: "/nonexistent.wav", reason: "no such file or not accessible")) {
            try WAVFile.read("/nonexistent.wav")
        }
        #expect(throws: AudioError.unreadable(path: "/tmp", reason: "not a regular file")) { try WAVFile.read("/tmp") }
    }

    @Test("5,000 mutated files decode or throw, never crash")
    func mutations() throws {
        var random = SeededRandom(seed: 24)
        let base = WAVFile.encode16(try PCMAudio(samples: Signals.sine(300, amplitude: 0.3, seconds: 0.01, rate: 16000), sampleRate: 16000))
        var decoded = 0
        for _ in 0 ..< 5000 {
            var bytes = base
            for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                bytes[Int.random(in: 0 ..< bytes.count, using: &random)] = UInt8.random(in: 0 ... 255, using: &random)
            }
            if Bool.random(using: &random) { bytes = Array(bytes.prefix(Int.random(in: 0 ... bytes.count, using: &random))) }
            if (try? WAVFile.decode(bytes)) != nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}
