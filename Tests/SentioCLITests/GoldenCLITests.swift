import Foundation
import SentioTestSupport
import Testing

/// The CLI's JSON is a vocabulary people script against: every command in
/// Golden/commands.tsv must print what it printed when the golden outputs were recorded
/// (scripts/make-golden-json, with sentio at d37f946), keys and values, save the keys listed in
/// Golden/additions.txt that were added since.
@Suite("Golden CLI JSON", .serialized)
struct GoldenCLITests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path

    struct Command: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: String
        var testDescription: String { name }
    }

    static let commands: [Command] = {
        guard let text = try? String(contentsOfFile: directory + "/commands.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let parts = line.split(separator: "\t", maxSplits: 1)
            return parts.count == 2 ? Command(name: String(parts[0]), arguments: String(parts[1])) : nil
        }
    }()

    static let additions: Set<String> = {
        let text = (try? String(contentsOfFile: directory + "/additions.txt", encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.trimmingCharacters(in: .whitespaces) })
    }()

    /// `sentio` beside the test bundle (swift test builds it with the tests).
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("sentio").path
    }

    @Test("the command list is there")
    func list() {
        #expect(Self.commands.count >= 15, "Golden/commands.tsv lists \(Self.commands.count) commands")
    }

    static let samples = NSHomeDirectory() + "/.cache/sentio/samples"

    @Test("each command prints its golden JSON", .requires(fixture: "faces", "imu/broad", "pogo/screens", "senses/speech"),
          .requires(Requirement("sample grace_hopper.jpg (scripts/fetch-models)", at: samples + "/grace_hopper.jpg")), arguments: commands)
    func golden(_ command: Command) throws {
        let fixtures = try Fixtures.required("faces", "imu/broad", "pogo/screens", "senses/speech")
        let samples = Self.samples
        let arguments = command.arguments.split(separator: " ").map {
            $0.replacingOccurrences(of: "$FIXTURES", with: fixtures).replacingOccurrences(of: "$SAMPLES", with: samples)
        }
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "no sentio at \(Self.binary)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sentio \(command.arguments) exited \(process.terminationStatus)")
        let golden = try String(contentsOfFile: Self.directory + "/\(command.name).json", encoding: .utf8)
        let expectedLines = golden.split(separator: "\n"), actualLines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(actualLines.count == expectedLines.count, "\(command.name): \(actualLines.count) lines, golden \(expectedLines.count)")
        for (i, (expected, actual)) in zip(expectedLines, actualLines).enumerated() {
            let e = try JSONDecoder().decode(JSONValue.self, from: Data(expected.utf8))
            let a = try JSONDecoder().decode(JSONValue.self, from: Data(actual.utf8))
            var differences: [String] = []
            JSONValue.compare(e, a, path: "\(command.name)[\(i)]", additions: Self.additions, into: &differences)
            #expect(differences.isEmpty, "\(differences.prefix(5).joined(separator: "\n"))")
        }
    }
}

/// A parsed JSON value; booleans, numbers and null stay apart (JSONDecoder will not read `true`
/// as a number or `1` as a boolean).
indirect enum JSONValue: Decodable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) } else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) } else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Every key of the expected object present with an equal value (numbers within 1e-9,
    /// relative), extra keys only among `additions`.
    static func compare(_ expected: JSONValue, _ actual: JSONValue, path: String, additions: Set<String>, into differences: inout [String]) {
        guard differences.count < 20 else { return }
        switch (expected, actual) {
        case let (.object(e), .object(a)):
            for (key, value) in e {
                guard let other = a[key] else { differences.append("\(path).\(key): missing"); continue }
                compare(value, other, path: "\(path).\(key)", additions: additions, into: &differences)
            }
            for key in a.keys where e[key] == nil && !additions.contains(key) { differences.append("\(path).\(key): not in the golden output") }
        case let (.array(e), .array(a)):
            guard e.count == a.count else { return differences.append("\(path): \(a.count) elements, golden \(e.count)") }
            for (i, (x, y)) in zip(e, a).enumerated() { compare(x, y, path: "\(path)[\(i)]", additions: additions, into: &differences) }
        case let (.number(e), .number(a)):
            if abs(e - a) > 1e-9 * max(1, abs(e)) { differences.append("\(path): \(a), golden \(e)") }
        case let (.bool(e), .bool(a)):
            if e != a { differences.append("\(path): \(a), golden \(e)") }
        case let (.string(e), .string(a)):
            if e != a { differences.append("\(path): \"\(a)\", golden \"\(e)\"") }
        case (.null, .null):
            break
        default:
            differences.append("\(path): \(actual), golden \(expected)")
        }
    }
}
