import Foundation
import SentioNeural

/// JSON printing with stable, sorted keys, as every `--json` output promises.
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}

/// What the commands take from the process: the model store (`$SENTIO_MODELS`, else
/// `~/.cache/sentio/models`) and the default thread count. The library reads no environment;
/// the command line does, here.
enum CommandEnvironment {
    static let store = ModelStore(environment: ProcessInfo.processInfo.environment)

    /// `--threads`, or every core.
    static func threads(_ option: Int?) -> Int { option ?? Interpreter.coreCount }
}

/// `--bench N`: runs the whole pipeline N times after one warm-up run, in one process.
typealias SentioBench = Bench

enum Bench {
    struct Result: Encodable {
        let median_ms: Double
        let min_ms: Double
        let max_ms: Double
        let runs: Int
    }

    static func run(_ runs: Int, warmup: Bool = true, _ body: () throws -> Void) throws -> Result {
        precondition(runs > 0)
        if warmup { try body() }  // page in code, caches, lazily built tables
        var times: [Double] = []
        let clock = ContinuousClock()
        for _ in 0 ..< runs {
            let start = clock.now
            try body()
            let elapsed = clock.now - start
            times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) * 1e-15)
        }
        times.sort()
        let median = runs % 2 == 1 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2
        return Result(median_ms: median, min_ms: times[0], max_ms: times[runs - 1], runs: runs)
    }

    /// Runs and prints the JSON line.
    static func report(_ runs: Int, _ body: () throws -> Void) throws {
        try JSONOutput.print(run(runs, body))
    }
}
