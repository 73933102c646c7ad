import Attendance
import Foundation
import SentioStore

/// How `sentio serve` runs.
public struct ServerConfiguration: Sendable {
    public enum TLSMode: Sendable, Equatable {
        /// Plain HTTP only.
        case off
        /// A self-signed certificate made on first start and kept in the data folder.
        case auto
        /// A certificate chain and key in PEM files.
        case files(certificate: String, key: String)

        /// Parses `auto`, `off` or `CERT,KEY`.
        public init(parsing text: String) throws {
            switch text {
            case "off": self = .off
            case "auto": self = .auto
            default:
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ServerError.configuration("--tls is auto, off, or CERT.pem,KEY.pem")
                }
                self = .files(certificate: parts[0], key: parts[1])
            }
        }
    }

    public var host = "127.0.0.1"
    /// The HTTP port; 0 picks a free one.
    public var port = 8080
    /// The HTTPS port when TLS is on; 0 picks a free one.
    public var tlsPort = 8443
    public var tls = TLSMode.off
    public var database: DatabaseLocation
    /// Where the server keeps its files (the SQLite database by default, the certificate).
    public var dataDirectory: String
    public var limits = Limits()
    /// Compute threads (default one per core).
    public var threads: Int?
    /// Serve the pages from this folder instead of the copy built into the program (for working on
    /// them: an edit shows on reload, no build needed).
    public var pagesDirectory: String?
    /// Every attendance check-in asks for this liveness challenge instead of a random one: for
    /// browser tests, whose fake cameras play a fixed clip, and demonstrations. Nil in use.
    public var fixedLivenessChallenge: LivenessChallenge?
    /// The descriptor attendance decides with (SFace; dlib stays selectable). Enrolments made
    /// with the other are left aside until the person is enrolled again (docs/attendance.md).
    public var attendanceFaceModel = FaceModel.sface

    public init(database: DatabaseLocation, dataDirectory: String) {
        self.database = database
        self.dataDirectory = dataDirectory
    }

    /// The user's data folder: `$XDG_DATA_HOME/sentio`, else `~/.local/share/sentio`.
    public static func defaultDataDirectory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/sentio" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/sentio"
    }
}

/// Why the server could not start.
public enum ServerError: Error, CustomStringConvertible, Sendable {
    case configuration(String)
    case tls(String)

    public var description: String {
        switch self {
        case .configuration(let m): m
        case .tls(let m): "TLS: \(m)"
        }
    }
}
