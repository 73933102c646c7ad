import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Data a test reads that the repository does not hold — a fixture, a peer implementation's
/// reference output, a model file — with where it is looked for and what puts it there.
///
/// A test names what it needs in a trait, and takes it in its body with ``path(sourceLocation:)``
/// (or ``Fixtures/required(_:sourceLocation:)`` for the fixtures folder):
///
/// ```swift
/// @Test("hands match MediaPipe's", .requires(fixture: "faces/hands"), .requires(reference: "mediapipe-0.10.21/hands.json"))
/// func hands() throws {
///     let fixtures = try Fixtures.required("faces/hands")
///     let outputs = try Requirement.reference("mediapipe-0.10.21/hands.json").path()
/// ```
///
/// Everything there: the test runs. Something missing: the run reports the test as skipped, and
/// the reason names what is missing and how to get it. Something missing under CI (`CI=true`):
/// the test runs anyway and fails where its body asks for the data, in the same words — CI
/// never passes on data it did not have. (Data that `make test` does not produce is marked
/// `requiredUnderCI: false` and is reported as skipped under CI too.)
public struct Requirement: Sendable, CustomStringConvertible {
    /// Where the data is looked for; nil when the folder it would be in is not there at all.
    public let location: String?
    /// What is needed, where and what provides it: "fixture faces/hands in ../shared/fixtures
    /// (or set SENTIO_FIXTURES)".
    public let description: String
    /// Whether the data was there when the requirement was made.
    public let isMet: Bool
    /// Whether a run under CI must have it (everything `make test` provides).
    public let requiredUnderCI: Bool

    /// A requirement on `location` (met when a file or folder is there, unless `isMet` says
    /// otherwise), described by `description`.
    public init(_ description: String, at location: String?, isMet: Bool? = nil, requiredUnderCI: Bool = true) {
        self.description = description
        self.location = location
        self.isMet = isMet ?? location.map { FileManager.default.fileExists(atPath: $0) } ?? false
        self.requiredUnderCI = requiredUnderCI
    }

    /// A file or folder below the fixtures folder (``Fixtures/defaultDirectory``).
    public static func fixture(_ relativePath: String) -> Requirement {
        Requirement("fixture \(relativePath) in \(Fixtures.whereToFind)", at: Fixtures.defaultDirectory.map { $0 + "/" + relativePath })
    }

    /// A peer implementation's output below `directory` (by default ``References/directory``,
    /// which `make reference` fills).
    public static func reference(_ relativePath: String, in directory: String = References.directory) -> Requirement {
        Requirement("reference output \(relativePath) in \(directory) (make reference)", at: directory + "/" + relativePath)
    }

    /// A model file of the default model store (`~/.cache/sentio/models`, where `ModelStore()`
    /// looks), by name without extension.
    public static func model(_ name: String) -> Requirement {
        let directory = Self.modelDirectory
        let file = ["tflite", "dat", "onnx"].lazy.map { "\(directory)/\(name).\($0)" }.first { FileManager.default.fileExists(atPath: $0) }
        return Requirement("model \(name) in \(directory) (scripts/fetch-models)", at: file ?? "\(directory)/\(name).tflite")
    }

    /// `CI` is set to `true` (or `1`, `yes`): missing data fails instead of skipping.
    public static var isCI: Bool {
        ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// Whether a test needing this is to be skipped: missing, and not asked for by CI.
    public var skips: Bool { !isMet && !(Self.isCI && requiredUnderCI) }

    /// The data's path; when it is missing (a test running under CI, or one without its
    /// `.requires` trait), a failed `#require` that names it.
    public func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let found = isMet ? location : nil
        let why = Self.isCI && requiredUnderCI ? " (CI=true: missing data fails the test)" : ""
        return try #require(found, Comment(rawValue: "missing \(description)\(why)"), sourceLocation: sourceLocation)
    }

    /// `ModelStore.userCacheDirectory`, which `ModelStore()` searches: the home directory from
    /// the password database, not the environment.
    static var modelDirectory: String {
        var home = NSHomeDirectory()
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { home = String(cString: dir) }
        return home + "/.cache/sentio/models"
    }
}

/// Where the peer implementations' outputs for the parity tests are.
public enum References {
    /// `~/.cache/sentio/reference`: `make reference` runs scripts/reference/ into it (LiteRT's in
    /// `litert-2.3.0/`, MediaPipe's in `mediapipe-0.10.21/`, dlib's in `dlib-20.0.1/`).
    public static let directory = NSHomeDirectory() + "/.cache/sentio/reference"
}

extension Fixtures {
    /// The fixtures folder of this checkout (``directory(repository:)``), nil when absent.
    public static let defaultDirectory = directory(repository: repository(from: #filePath, levels: 3))

    /// Where the fixtures are looked for, in words for a skip or failure message.
    static var whereToFind: String {
        if let given = ProcessInfo.processInfo.environment["SENTIO_FIXTURES"], !given.isEmpty { return "\(given) (SENTIO_FIXTURES)" }
        return "../shared/fixtures (or set SENTIO_FIXTURES)"
    }

    /// The fixtures folder, having checked that each of `relativePaths` is in it; a failed
    /// `#require` naming the first one missing (see ``Requirement/path(sourceLocation:)``).
    public static func required(_ relativePaths: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        for relativePath in relativePaths { _ = try Requirement.fixture(relativePath).path(sourceLocation: sourceLocation) }
        return try #require(defaultDirectory, Comment(rawValue: "missing the fixtures folder, \(whereToFind)"), sourceLocation: sourceLocation)
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips the test, with the reason, when any of `requirements` is missing — except under CI,
    /// where the test runs and fails on the missing data (see ``Requirement``).
    public static func requires(_ requirements: [Requirement], sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let skipping = requirements.filter(\.skips)
        let shown = skipping.isEmpty ? requirements : skipping
        var reason = "needs " + shown.prefix(3).map(\.description).joined(separator: "; ")
        if shown.count > 3 { reason += "; and \(shown.count - 3) more" }
        return .enabled(if: skipping.isEmpty, Comment(rawValue: reason), sourceLocation: sourceLocation)
    }

    /// The same, for requirements written out one by one.
    public static func requires(_ requirements: Requirement..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        requires(requirements, sourceLocation: sourceLocation)
    }

    /// Requires files or folders below the fixtures folder: `.requires(fixture: "faces/identity")`.
    public static func requires(fixture relativePaths: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        requires(relativePaths.map(Requirement.fixture), sourceLocation: sourceLocation)
    }

    /// Requires reference outputs: `.requires(reference: "mediapipe-0.10.21/pose.json")`.
    public static func requires(reference relativePaths: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        requires(relativePaths.map { Requirement.reference($0) }, sourceLocation: sourceLocation)
    }

    /// Requires models of the default model store: `.requires(model: "face_landmark")`.
    public static func requires(model names: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        requires(names.map(Requirement.model), sourceLocation: sourceLocation)
    }
}

extension Requirement {
    /// A PostgreSQL server for tests, as `postgres://…` in `SENTIO_TEST_POSTGRES`; `make test` runs
    /// the suites that need one under `scripts/with-postgres`, which starts a throwaway server.
    public static var postgres: Requirement {
        let address = ProcessInfo.processInfo.environment["SENTIO_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
        return Requirement("a PostgreSQL server in SENTIO_TEST_POSTGRES (run under scripts/with-postgres)", at: address, isMet: address != nil)
    }
}
