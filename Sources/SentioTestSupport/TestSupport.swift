@_exported import struct SentioNeural.SeededGenerator
import Foundation

/// What the tests, evaluation suites and fuzzers share: where the real data is (and, in
/// Requirement.swift, how a test that lacks it is skipped or, under CI, fails), and a seeded
/// generator so that every random test reproduces.
public enum Fixtures {
    /// `$SENTIO_FIXTURES` when set, else `../shared/fixtures` beside the checkout (found from
    /// `repository`); nil when that folder has no README.md. A `SENTIO_FIXTURES` that names an
    /// empty folder means no fixtures: it does not fall back to `../shared/fixtures`.
    public static func directory(repository: String) -> String? {
        let given = ProcessInfo.processInfo.environment["SENTIO_FIXTURES"].flatMap { $0.isEmpty ? nil : $0 }
        let candidate = given ?? repository + "/../shared/fixtures"
        return FileManager.default.fileExists(atPath: candidate + "/README.md") ? candidate : nil
    }

    /// The repository root, from a source file's path `levels` folders below it.
    public static func repository(from file: String, levels: Int) -> String {
        var url = URL(fileURLWithPath: file)
        for _ in 0 ..< levels { url.deleteLastPathComponent() }
        return url.path
    }

    /// The labelled hand photos of `faces/hands.tsv` under `fixtures` (the folder
    /// ``required(_:sourceLocation:)`` gave): each photo's path and its gesture label, in the
    /// table's order. Four suites read the table (hand shapes, index reach, the pen, the V-sign level).
    public static func labelledHands(in fixtures: String) throws -> [(path: String, file: String, label: String)] {
        let table = try String(contentsOfFile: fixtures + "/faces/hands.tsv", encoding: .utf8)
        return table.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count >= 2 ? (fixtures + "/faces/" + fields[0], fields[0], fields[1]) : nil
        }
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

/// SplitMix64 for reproducible random tests: SentioNeural's seeded generator, which training
/// uses too.
public typealias SeededRandom = SeededGenerator

/// What `body` returned or threw, as a value: for tests that fire requests at once with
/// `async let` and then look at how each ended.
public func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
