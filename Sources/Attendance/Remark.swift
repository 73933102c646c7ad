import Foundation

/// The professor's remark on a record ("doctor's note", "came at 10:40"): free text of at
/// most ``maximum`` characters, one line, kept without surrounding whitespace.
public enum Remark {
    /// Characters (Unicode scalars, as the OpenAPI document's `maxLength` counts) of a remark.
    public static let maximum = 200

    /// The remark to keep: nil for an empty one (it clears the remark); an
    /// ``AttendanceError/invalid(_:_:)`` for one too long or holding control characters.
    public static func check(_ text: String) throws -> String? {
        // Counted as sent, as every typed field is (TextField): the API document's maxLength says
        // the same, so a client knows from it alone what the server takes.
        guard text.unicodeScalars.count <= maximum else {
            throw AttendanceError.invalid("remark", "at most \(maximum) characters (this one has \(text.unicodeScalars.count))")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // One line: the roll and the CSV show it as one cell.
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AttendanceError.invalid("remark", "one line, no control characters")
        }
        return trimmed.isEmpty ? nil : trimmed
    }
}
