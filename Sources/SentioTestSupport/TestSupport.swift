import Foundation

/// What the tests, evaluation suites and fuzzers share: where the real data is, and a seeded
/// generator so that every random test reproduces.
public enum Fixtures {
    /// `$SENTIO_FIXTURES`, else `../shared/fixtures` beside the checkout (found from
    /// `repository`); nil when absent, and the tests that need it say they skip.
    public static func directory(repository: String) -> String? {
        let candidates = [ProcessInfo.processInfo.environment["SENTIO_FIXTURES"], repository + "/../shared/fixtures"].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") }
    }

    /// The repository root, from a source file's path `levels` folders below it.
    public static func repository(from file: String, levels: Int) -> String {
        var url = URL(fileURLWithPath: file)
        for _ in 0 ..< levels { url.deleteLastPathComponent() }
        return url.path
    }

    /// Every PNG and JPEG below `directory`, sorted.
    public static func images(under directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { $0 as? String }
            .filter { ["png", "jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .map { directory + "/" + $0 }
            .sorted()
    }
}

/// SplitMix64: a small deterministic generator for reproducible random tests.
public struct SeededRandom: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
