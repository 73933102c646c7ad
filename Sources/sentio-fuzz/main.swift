// sentio-fuzz: seeded mutation fuzzing of the PNG, JPEG and WebP decoders over real files.
//
// Bytes are flipped, set, deleted and duplicated, files truncated, and for half the PNGs the
// chunk CRCs are repaired so the mutations reach the inflater and the row filters; for half the
// WebPs the RIFF and last chunk sizes are made to fit the bytes, so deletions, duplications and
// truncations reach libwebp's bitstream decoders instead of its size check. Every input
// must come back as an image or an ImageError: a crash ends the run, and the time and heap
// bounds below catch hangs and leaks. It runs in a process of its own so that the heap count
// (glibc's mallinfo2) sees only the decoders. `make test` runs it with 100,000 inputs each.
//
// It also loads, plans and runs 10,000 mutated TFLite models and 250 ONNX ones (bytes flipped, offsets pointed
// out of range, files truncated): errors only, no crash.
//
// Usage: sentio-fuzz [IMAGE_ITERATIONS [MODEL_ITERATIONS]] (default 100000 per decoder, 10000 models)
import Foundation
import CSentioCodecs
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision

enum Fuzz {
    // Run from the checkout (make test does): fixtures beside it.
    static let fixtures = Fixtures.directory(repository: FileManager.default.currentDirectoryPath)

    static func images(under directory: String) -> [String] { Fixtures.images(under: directory) }

    static func gradient() throws -> Image {
        var image = try Image(width: 40, height: 32, format: .rgb8)
        for y in 0 ..< 32 { for x in 0 ..< 40 { image[x, y, 0] = UInt8(x * 6); image[x, y, 1] = UInt8(y * 8); image[x, y, 2] = UInt8((x + y) * 3) } }
        return image
    }

    /// Small real seeds: fixture photos shrunk (so 100,000 decodes take seconds, not hours)
    /// and saved in every variant each decoder handles.
    static func seeds(_ format: ImageFileFormat) throws -> [[UInt8]] {
        var photos: [Image] = []
        if let fixtures = Fuzz.fixtures {
            for path in Fuzz.images(under: fixtures + "/faces/identity").prefix(4) {
                photos.append(try ImageIO.read(path).resized(to: Size(width: 40, height: 32), method: .area))
            }
        }
        // A synthetic picture too, so the seeds differ with and without fixtures.
        photos.append(try gradient())
        var seeds: [[UInt8]] = []
        for photo in photos {
            switch format {
            case .jpeg:
                seeds.append(try JPEG.encode(photo, quality: 80))
                seeds.append(try JPEG.encode(photo, quality: 60, progressive: true, orientation: .right))
                seeds.append(try JPEG.encode(photo.converted(to: .gray8), quality: 70))
                seeds.append(try JPEG.encodeCMYK(photo.converted(to: .rgba8), quality: 70))
            case .png:
                seeds.append(try PNG.encode(photo))
                seeds.append(try PNG.encode(photo.converted(to: .gray8)))
                seeds.append(try PNG.encode(photo.converted(to: .rgba8)))
            case .webp:
                // Lossy (VP8), lossless (VP8L), lossy with an ALPH chunk, and an animation.
                let withAlpha = translucent(photo)
                seeds.append(try WebP.encode(photo, quality: 75))
                seeds.append(try WebP.encode(photo, lossless: true))
                seeds.append(try WebP.encode(withAlpha, quality: 60))
                seeds.append(try WebP.encode(withAlpha, lossless: true))
                seeds.append(try WebP.encodeAnimation([photo, withAlpha], quality: 70))
            }
        }
        if format == .png {
            let suite = "Tests/SentioImageTests/Data/pngsuite/"
            for name in ["type3_depth4_adam7.png", "type0_depth16_adam7.png", "type4_depth16_plain.png", "type0_depth1_plain.png"]
                where FileManager.default.fileExists(atPath: suite + name) {
                seeds.append(try FileIO.read(suite + name))
            }
        }
        return seeds
    }

    /// `image` with an alpha ramp, so the WebP seeds carry alpha planes.
    static func translucent(_ image: Image) -> Image {
        var rgba = image.converted(to: .rgba8)
        for y in 0 ..< rgba.height { for x in 0 ..< rgba.width { rgba[x, y, 3] = UInt8(truncatingIfNeeded: x * 7 + y) } }
        return rgba
    }

    static func mutate(_ seed: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = seed
        for _ in 0 ..< 1 << Int.random(in: 0 ... 2, using: &rng) {  // 1, 2 or 4 mutations
            guard !b.isEmpty else { break }
            let at = Int.random(in: 0 ..< b.count, using: &rng)
            switch Int.random(in: 0 ..< 6, using: &rng) {
            case 0: b[at] ^= UInt8(1 << Int.random(in: 0 ..< 8, using: &rng))
            case 1: b[at] = [0, 0xFF, 0x7F, 0x80, 0x01][Int.random(in: 0 ..< 5, using: &rng)]
            case 2: b[at] = UInt8.random(in: 0 ... 255, using: &rng)
            case 3: b.removeSubrange(at ..< min(b.count, at + Int.random(in: 1 ... 16, using: &rng)))
            case 4:
                let run = Array(b[at ..< min(b.count, at + Int.random(in: 1 ... 32, using: &rng))])
                b.insert(contentsOf: run, at: Int.random(in: 0 ... b.count, using: &rng))
            default: b = Array(b.prefix(at))
            }
        }
        return b
    }

    static let crcTable: [UInt32] = (0 ..< 256).map { n in
        var c = UInt32(n)
        for _ in 0 ..< 8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Rewrites the CRC of every whole chunk so that only the mutated contents are wrong.
    static func repairCRCs(_ b: inout [UInt8]) {
        var at = 8
        while at + 12 <= b.count {
            let length = b[at ..< at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= b.count - at - 12 else { return }
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in b[at + 4 ..< at + 8 + length] { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            crc ^= 0xFFFF_FFFF
            for k in 0 ..< 4 { b[at + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
            at += 12 + length
        }
    }

    /// Makes the RIFF size, and the size of the chunk the bytes end in, fit the bytes, so that
    /// libwebp does not refuse a shortened or lengthened file before its decoders see it.
    static func repairRIFF(_ b: inout [UInt8]) {
        guard b.count >= 12 else { return }
        func put(_ value: Int, at: Int) { for k in 0 ..< 4 { b[at + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) } }
        put(b.count - 8, at: 4)
        var at = 12
        while at + 8 <= b.count {
            let size = b[at + 4 ..< at + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            if size > b.count - at - 8 { put(b.count - at - 8, at: at + 4); return }
            at += 8 + size + size % 2
        }
    }

    /// Bytes the C heap holds in use now.
    static func heapInUse() -> Int {
        Int(sentio_heap_in_use())
    }

    /// Fuzzes one decoder; returns the problems found.
    static func run(_ format: ImageFileFormat, iterations: Int) throws -> [String] {
        let seeds = try seeds(format)
        var rng = SeededRandom(seed: format == .jpeg ? 0x5E_7710 : format == .png ? 0x0B_1A5E : 0x3E_B9)
        // Small limits keep damaged headers from asking for huge images.
        let options = DecodeOptions(maxPixels: 4_000_000)
        var decoded = 0, refused = 0, heapAtTenth = 0
        let clock = ContinuousClock()
        var slowest = Duration.zero
        let started = clock.now
        for i in 0 ..< iterations {
            if i == iterations / 10 { heapAtTenth = heapInUse() }
            var input = mutate(seeds[i % seeds.count], &rng)
            // A flipped byte almost always breaks a chunk CRC and stops libpng at once; with
            // the CRCs repaired, half the inputs reach the inflater and the row filters.
            if format == .png && i % 2 == 0 { repairCRCs(&input) }
            if format == .webp && i % 2 == 0 { repairRIFF(&input) }
            let start = clock.now
            do {
                _ = try ImageIO.decode(input, source: "fuzz", options: options)
                decoded += 1
            } catch is ImageError {
                refused += 1
            }
            slowest = max(slowest, clock.now - start)
        }
        let growth = heapInUse() - heapAtTenth
        print("sentio-fuzz \(format.rawValue): \(iterations) inputs from \(seeds.count) seeds in \(clock.now - started): "
            + "\(decoded) decoded, \(refused) refused with typed errors, slowest input \(slowest), "
            + "heap growth \(growth) bytes after the first 10%")
        var problems: [String] = []
        if refused < iterations / 10 { problems.append("\(format.rawValue): too few inputs broke; the mutator is not working") }
        if slowest > .seconds(2) { problems.append("\(format.rawValue): one input took \(slowest) (a hang)") }
        // Anything the decoders keep per input would add up to megabytes over 90,000 inputs.
        if growth > 256 * 1024 { problems.append("\(format.rawValue): the heap grew by \(growth) bytes (a leak)") }
        return problems
    }
}


/// Mutated TFLite models: loading, planning and running must end in a result or a ModelError.
enum ModelFuzz {
    static func run(iterations: Int) -> [String] {
        let store = ModelStore(environment: ProcessInfo.processInfo.environment)
        let seeds = ["face_detection_short_range", "hand_recrop", "face_detection_full_range_sparse", "efficientnet_lite0"].compactMap { name in
            (try? store.path(of: name)).flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }
        }
        guard !seeds.isEmpty else { return ["no models to fuzz: run scripts/fetch-models"] }
        var rng = SeededRandom(seed: 0x7F11_7E)
        var loaded = 0
        var tally = FuzzTally()
        for i in 0 ..< iterations {
            var bytes = seeds[i % seeds.count]
            // Offsets and lengths live in the first part of a model (the tables); mutate there
            // more often than in the weights, where most flips change nothing structural.
            for _ in 0 ..< 1 << Int.random(in: 0 ... 3, using: &rng) {
                let window = Int.random(in: 0 ..< 4, using: &rng) == 0 ? bytes.count : min(bytes.count, 4096)
                let at = Int.random(in: 0 ..< window, using: &rng)
                switch Int.random(in: 0 ..< 5, using: &rng) {
                case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0 ..< 8, using: &rng))
                case 1: bytes[at] = [0, 0xFF, 0x7F, 0x80, 0x01][Int.random(in: 0 ..< 5, using: &rng)]
                case 2: bytes[at] = UInt8.random(in: 0 ... 255, using: &rng)
                case 3:
                    // Point a 32-bit offset somewhere random, possibly out of range.
                    let v = UInt32.random(in: 0 ... UInt32.max, using: &rng) >> UInt32.random(in: 0 ... 31, using: &rng)
                    for k in 0 ..< 4 where at + k < bytes.count { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) }
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { break }
            }
            tally.attempt {
                let graph = try TFLiteLoader.load(MappedFile(bytes: bytes))
                loaded += 1
                let interpreter = try Interpreter(graph: graph, threads: 1, memoryLimit: 64 << 20)
                interpreter.invoke()
            }
        }
        return tally.report("tflite", "\(iterations) mutated models", detail: "\(loaded) loaded, \(tally.completed) ran")
    }
}

/// What a fuzzing run counts: inputs that went through, inputs refused (typed errors), the
/// slowest one; and the verdicts every run shares.
struct FuzzTally {
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private(set) var completed = 0, refused = 0
    private(set) var slowest = Duration.zero

    init() { started = clock.now }

    mutating func attempt(_ body: () throws -> Void) {
        let start = clock.now
        do {
            try body()
            completed += 1
        } catch {
            refused += 1
        }
        slowest = max(slowest, clock.now - start)
    }

    /// Prints the summary line and returns the problems: too few inputs broken (the mutator
    /// is not working) or one input taking over 10 s (a hang).
    func report(_ name: String, _ what: String, detail: String) -> [String] {
        print("sentio-fuzz \(name): \(what) in \(clock.now - started): \(detail), \(refused) refused with typed errors, slowest \(slowest)")
        var problems: [String] = []
        if refused < (completed + refused) / 10 { problems.append("\(name): too few inputs broke; the mutator is not working") }
        if slowest > .seconds(10) { problems.append("\(name): one input took \(slowest)") }
        return problems
    }
}

/// Mutated ONNX models (SFace): loading, converting, planning and running must end in a result
/// or a ModelError. The graph's nodes and attributes lie in the first kilobytes (the weights
/// follow), so mutations land there three times in four.
enum ONNXFuzz {
    static func run(iterations: Int) -> [String] {
        let store = ModelStore(environment: ProcessInfo.processInfo.environment)
        guard let seed = (try? store.path(of: "face_recognition_sface_2021dec")).flatMap({ FileManager.default.contents(atPath: $0) }).map({ [UInt8]($0) }) else {
            return ["no ONNX model to fuzz: run scripts/fetch-models"]
        }
        var rng = SeededRandom(seed: 0x0_4E_58)
        var loaded = 0
        var tally = FuzzTally()
        for _ in 0 ..< iterations {
            var bytes = seed
            for _ in 0 ..< 1 << Int.random(in: 0 ... 3, using: &rng) {
                let window = Int.random(in: 0 ..< 4, using: &rng) == 0 ? bytes.count : min(bytes.count, 16_384)
                let at = Int.random(in: 0 ..< window, using: &rng)
                switch Int.random(in: 0 ..< 5, using: &rng) {
                case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0 ..< 8, using: &rng))
                case 1: bytes[at] = [0, 0xFF, 0x7F, 0x80, 0x01, 0x08, 0x0A, 0x12][Int.random(in: 0 ..< 8, using: &rng)]
                case 2: bytes[at] = UInt8.random(in: 0 ... 255, using: &rng)
                case 3:
                    // A varint made huge or a length pointed past the end.
                    for k in 0 ..< 5 where at + k < bytes.count { bytes[at + k] = k < 4 ? 0xFF : 0x0F }
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { break }
            }
            tally.attempt {
                let graph = try ONNXLoader.load(MappedFile(bytes: bytes))
                loaded += 1
                let interpreter = try Interpreter(graph: graph, threads: 1, memoryLimit: 64 << 20)
                interpreter.invoke()
            }
        }
        return tally.report("onnx", "\(iterations) mutated models", detail: "\(loaded) loaded, \(tally.completed) ran")
    }
}

enum DlibFuzz {
    static func run(iterations: Int) -> [String] {
        let store = ModelStore(environment: ProcessInfo.processInfo.environment)
        guard let net = (try? store.path(of: "dlib_face_recognition_resnet_model_v1")).flatMap({ FileManager.default.contents(atPath: $0) }),
              let sp = (try? store.path(of: "shape_predictor_5_face_landmarks")).flatMap({ FileManager.default.contents(atPath: $0) }),
              let mmod = (try? store.path(of: "mmod_human_face_detector")).flatMap({ FileManager.default.contents(atPath: $0) }) else {
            return ["no dlib models to fuzz: run scripts/fetch-models"]
        }
        let seeds = [[UInt8](net), [UInt8](sp), [UInt8](mmod)]
        let face = try? Image(width: 64, height: 64, format: .rgb8, fill: 128)
        var rng = SeededRandom(seed: 0xD11B)
        var tally = FuzzTally()
        for i in 0 ..< iterations {
            let kind = i % 3
            var bytes = seeds[kind]
            // Structure (versions, names, sizes) is spread through the file; the first
            // kilobytes hold the most of it in the net, everything is structure in the predictor.
            for _ in 0 ..< 1 << Int.random(in: 0 ... 3, using: &rng) {
                let window = Int.random(in: 0 ..< 3, using: &rng) == 0 ? bytes.count : min(bytes.count, 8192)
                let at = Int.random(in: 0 ..< window, using: &rng)
                switch Int.random(in: 0 ..< 4, using: &rng) {
                case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0 ..< 8, using: &rng))
                case 1: bytes[at] = [0, 0xFF, 0x7F, 0x80, 0x01, 0x08, 0x88][Int.random(in: 0 ..< 7, using: &rng)]
                case 2: bytes[at] = UInt8.random(in: 0 ... 255, using: &rng)
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { break }
            }
            tally.attempt {
                switch kind {
                case 0:
                    let interpreter = try Interpreter(graph: ModelLoader.load(MappedFile(bytes: bytes)), threads: 1, memoryLimit: 64 << 20)
                    interpreter.invoke()
                case 1:
                    if let face { _ = try ShapePredictor(file: MappedFile(bytes: bytes)).predict(face, box: DlibRectangle(left: 8, top: 8, right: 55, bottom: 55)) }
                default:
                    // The detector reads its options and pyramid too, and decodes what the net gives.
                    if let face { _ = try MMODFaceDetector(file: MappedFile(bytes: bytes), threads: 1).detect(face) }
                }
            }
        }
        return tally.report("dlib", "\(iterations) mutated nets, shape predictors and detectors", detail: "\(tally.completed) loaded and ran")
    }
}

let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let modelIterations = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 10_000 : 10_000
var problems: [String] = []
do {
    for format in [ImageFileFormat.jpeg, .png, .webp] { problems += try Fuzz.run(format, iterations: iterations) }
} catch {
    problems.append("could not build the seeds: \(error)")
}
problems += ModelFuzz.run(iterations: modelIterations)
problems += DlibFuzz.run(iterations: max(2, modelIterations / 20))
problems += ONNXFuzz.run(iterations: max(2, modelIterations / 40))
if problems.isEmpty {
    print("sentio-fuzz: no crash, no hang, no leak")
} else {
    for p in problems { print("sentio-fuzz: FAIL: \(p)") }
    exit(1)
}
