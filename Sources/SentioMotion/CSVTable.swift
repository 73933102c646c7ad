/// The rows of a CSV text as traces use it: blank lines and lines starting with `#` skipped,
/// fields trimmed, the first remaining line the header. One parse serves both the samples
/// (`Trace`) and the reference columns (`GroundTruth`).
struct CSVTable {
    /// Column index by name (the first column of a repeated name wins).
    let columns: [String: Int]
    /// Data rows with their 1-based line numbers in the text, for error messages.
    let rows: [(line: Int, fields: [String])]

    /// Nil when the text has no header line.
    init?(_ text: String) {
        var columns: [String: Int]?
        var rows: [(line: Int, fields: [String])] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if columns == nil {
                columns = Dictionary(fields.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
            } else {
                rows.append((lineNumber, fields))
            }
        }
        guard let columns else { return nil }
        self.columns = columns
        self.rows = rows
    }

    /// The field of `column` in `fields`, empty when the row is short.
    func field(_ column: Int, in fields: [String]) -> String { column < fields.count ? fields[column] : "" }
}
