import ArgumentParser
import Foundation
import SentioAudio

struct ListenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Loudness per 100 ms and a key phrase (PocketSphinx) in a WAV recording.",
        discussion: """
            Takes integer PCM (8/16/24/32-bit) or float WAV at 8–384 kHz, any channel count (averaged to mono). \
            Loudness is RMS in dBFS at the file's own rate (a full-scale sine reads −3.01; silence −120); the phrase is \
            looked for at 16 kHz (resampled when needed), in 100 ms chunks as a live stream would arrive. \
            JSON keys: duration_s, sample_rate_hz, weighting, loudness_dbfs, hits [{phrase, time_s}], clipped_samples. \
            See docs/hearing.md.
            """)

    enum Weighting: String, ExpressibleByArgument, CaseIterable { case z, a }

    @Argument(help: "A WAV file.") var file: String
    @Option(help: "The key phrase: words of the dictionary (\"black hole\", not \"blackhole\").") var keyphrase = "black hole"
    @Option(help: "PocketSphinx's keyword threshold, a probability ratio (lower finds more and mistakes more).")
    var threshold = KeywordSpotter.Configuration.defaultThreshold
    @Flag(help: "Measure loudness only; load no speech model.") var loudnessOnly = false
    @Option(help: "Frequency weighting of the loudness: z (none) or a (IEC 61672 A-weighting).") var weighting: Weighting = .z
    @Flag(help: "Print the phrase's score instead: log10 of the highest threshold that still finds it (null: none down to 1e-48).")
    var score = false
    @Flag(help: "Print JSON (see the README for the keys).") var json = false
    @Option(help: "Run the whole listening N times in one process; print median/min/max ms and the real-time factor.") var bench: Int?

    struct BenchResult: Encodable { let median_ms: Double, min_ms: Double, max_ms: Double, runs: Int, audio_s: Double, real_time_factor: Double }
    struct ScoreResult: Encodable {
        let file: String, keyphrase: String, score_log10: Double?
        enum CodingKeys: String, CodingKey { case file, keyphrase, score_log10 }
        /// `score_log10` is written as null when the phrase is not found, not left out.
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(file, forKey: .file)
            try c.encode(keyphrase, forKey: .keyphrase)
            try c.encode(score_log10, forKey: .score_log10)
        }
    }

    func run() throws {
        let audio = try WAVFile.read(file).audio
        let keywords = KeywordSpotter.Configuration(keyphrase: keyphrase, threshold: threshold)
        if score {
            let value = try Hearing.keywordScore(of: audio, keywords: keywords)
            if json { return try JSONOutput.print(ScoreResult(file: file, keyphrase: keyphrase, score_log10: value)) }
            return print(value.map { String(format: "%@: \"%@\" scores %.1f (found at thresholds up to 1e%.1f)", file, keyphrase, $0, $0) }
                ?? "\(file): \"\(keyphrase)\" not found even at 1e-48")
        }
        let configuration = ListeningSession.Configuration(keywords: loudnessOnly ? nil : keywords,
                                                           weighting: weighting == .a ? .a : .z)
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            let r = try Bench.run(bench) { _ = try Hearing.listen(to: audio, configuration: configuration) }
            return try JSONOutput.print(BenchResult(median_ms: r.median_ms, min_ms: r.min_ms, max_ms: r.max_ms, runs: bench,
                                                    audio_s: audio.duration, real_time_factor: r.median_ms / 1000 / audio.duration))
        }
        let result = try Hearing.listen(to: audio, configuration: configuration)
        if json { return try JSONOutput.print(result) }
        print(String(format: "%@: %.2f s at %d Hz", file, result.duration, result.sampleRate))
        print("loudness, dBFS (\(result.weighting.rawValue)-weighted) per 100 ms: " + result.loudness.map { String(format: "%.1f", $0) }.joined(separator: " "))
        if result.clippedSamples > 0 { print("\(result.clippedSamples) samples at full scale (clipped)") }
        if !loudnessOnly {
            if result.hits.isEmpty { print("\"\(keyphrase)\" not heard") }
            for hit in result.hits { print(String(format: "\"%@\" ending at %.2f s", hit.phrase, hit.time)) }
        }
    }
}
