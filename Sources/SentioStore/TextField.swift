import Foundation

/// The rule for a short free-text field a person types (a name, a title, a code): at most
/// `maximum` Unicode scalars as sent, no control characters, and not only spaces; kept without
/// its surrounding whitespace.
///
/// Scalars, not Swift's characters: the OpenAPI document states the same bound as JSON Schema's
/// `maxLength`, which counts code points, so that a client (or a fuzzer) can know from the
/// document alone whether the server will take a value (docs/hardening.md, the API fuzzer).
public enum TextField {
    /// The value to keep, or the problem, phrased to follow the field's name ("title: …").
    public static func check(_ text: String, maximum: Int) -> Result<String, Problem> {
        guard text.unicodeScalars.count <= maximum else { return .failure(Problem(description: "at most \(maximum) characters")) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure(Problem(description: "no control characters (tabs, line breaks)"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(Problem(description: "1 to \(maximum) characters, not only spaces")) }
        return .success(trimmed)
    }

    /// Why a value does not fit.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }
}
