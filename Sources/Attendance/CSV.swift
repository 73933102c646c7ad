/// The little CSV the register reads and writes (RFC 4180: commas, quotes doubled).
public enum CSV {
    /// A field, quoted when it holds a comma, quote or line break; a leading =, +, - or @ is
    /// prefixed with ' so a spreadsheet does not run it as a formula.
    public static func field(_ text: String) -> String {
        var text = text
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Rows of fields; quoted fields may hold commas, quotes and line breaks. An error names
    /// the line of an unterminated quote.
    public static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var quoted = false, line = 1, quoteLine = 0
        var chars = Array(text.unicodeScalars)[...]
        if chars.first == "\u{FEFF}" { chars = chars.dropFirst() }
        var i = chars.startIndex
        while i < chars.endIndex {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if chars.index(after: i) < chars.endIndex && chars[chars.index(after: i)] == "\"" { field.unicodeScalars.append("\""); i = chars.index(after: i) } else { quoted = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty {
                quoted = true
                quoteLine = line
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" || c == "\r" {
                if c == "\r", chars.index(after: i) < chars.endIndex, chars[chars.index(after: i)] == "\n" { i = chars.index(after: i) }
                row.append(field); field = ""
                if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
                row = []
                line += 1
            } else {
                field.unicodeScalars.append(c)
            }
            i = chars.index(after: i)
        }
        if quoted { throw AttendanceError.invalid("csv", "line \(quoteLine): a quoted field is not closed") }
        row.append(field)
        if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
        return rows
    }
}
