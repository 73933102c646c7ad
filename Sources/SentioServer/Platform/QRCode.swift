import CQRencode
import Foundation

/// A QR code (libqrencode), drawn for a terminal or as SVG for a page.
public struct QRCode: Sendable {
    /// Modules, row by row; true is dark.
    public let modules: [[Bool]]

    /// The code for `text` (medium error correction); nil when the text is too long for a QR code.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// Two rows per line with half blocks, dark on light, with the 4-module quiet zone scanners
    /// need; most terminals show it square enough to scan.
    public var terminal: String {
        let n = modules.count, quiet = 2
        func dark(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < n && y < n && modules[y][x] }
        var lines: [String] = []
        var y = -quiet
        while y < n + quiet {
            var line = ""
            for x in -quiet..<(n + quiet) {
                switch (dark(x, y), dark(x, y + 1)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }

    /// An SVG of the code, one path, with a quiet zone of 4 modules.
    public var svg: String {
        let n = modules.count, size = n + 8
        var path = ""
        for (y, row) in modules.enumerated() {
            for (x, dark) in row.enumerated() where dark { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
        <rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
        """
    }
}
