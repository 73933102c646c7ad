import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

/// `sentio face embed|compare|gallery-bench`: dlib's face descriptor on SentioNeural.
struct FaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face",
        abstract: "Face recognition: 128-number descriptors (dlib's ResNet), comparison, gallery search.",
        subcommands: [Detect.self, Embed.self, Compare.self, GalleryBench.self])


    static func detector(_ name: String) throws -> FaceRecognizer.Detector {
        guard let d = FaceRecognizer.Detector(rawValue: name) else { throw ValidationError("--detector is blazeface or mmod, not '\(name)'") }
        return d
    }


    struct Detect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find faces with dlib's CNN detector (mmod, default) or BlazeFace, as boxes for the shape predictor.")

        @Argument(help: "A PNG or JPEG photo.") var image: String
        @Option(help: "Face detector: mmod (default) or blazeface.") var detector = "mmod"
        @Option(help: "mmod only: keep windows scoring above this (dlib's adjust_threshold, default 0).") var threshold = 0.0
        @Option(help: "mmod only: double the image N times first to find smaller faces (dlib's upsample_num_times, default 0).") var upsample = 0
        @Flag(help: "Print JSON (see the README for the keys).") var json = false
        @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
        @Option(help: "Threads (default: all cores).") var threads: Int?

        struct Found: Encodable { let box: FractionBox, rect: [Int], confidence: Double? }
        struct Report: Encodable { let width: Int, height: Int, faces: [Found] }

        func run() throws {
            let choice = try FaceCommand.detector(detector)
            let photo = try ImageIO.read(image)
            let rgb = photo.format == .rgb8 ? photo : photo.converted(to: .rgb8)
            var detect: () throws -> [(DlibRectangle, Double?)]
            switch choice {
            case .mmod:
                let mmod = try MMODFaceDetector(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
                detect = { try mmod.detect(rgb, upsample: upsample, threshold: threshold).map { ($0.box, $0.confidence) } }
            case .blazeFace:
                // BlazeFace alone: the recognizer's nets are not needed to find boxes.
                let blazeFace = try FaceDetector(model: .fullRange, store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
                detect = { try FaceRecognizer.dlibBoxes(blazeFace, rgb).map { ($0, nil) } }
            }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                return try Bench.report(bench) { _ = try detect() }
            }
            let faces = try detect()
            if json {
                return try JSONOutput.print(Report(width: rgb.width, height: rgb.height, faces: faces.map { r, c in
                    Found(box: FractionBox(r, width: rgb.width, height: rgb.height), rect: [r.left, r.top, r.right, r.bottom], confidence: c)
                }))
            }
            print("\(image): \(faces.count) face\(faces.count == 1 ? "" : "s")")
            for (i, (r, c)) in faces.enumerated() {
                let score = c.map { String(format: ", confidence %.3f", $0) } ?? ""
                print("  face \(i + 1): \(r.left),\(r.top) to \(r.right),\(r.bottom) (\(r.width)×\(r.height) px)\(score)")
            }
        }
    }

    /// A box given as left,top,right,bottom pixels (dlib's inclusive rectangle).
    static func box(_ text: String) throws -> DlibRectangle {
        let v = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, v[2] >= v[0], v[3] >= v[1] else {
            throw ValidationError("--box takes left,top,right,bottom in pixels (right ≥ left, bottom ≥ top), not '\(text)'")
        }
        return DlibRectangle(left: v[0], top: v[1], right: v[2], bottom: v[3])
    }

    struct Embed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the faces and print each one's box, 5 landmarks and 128-number descriptor.")

        @Argument(help: "A PNG or JPEG photo.") var image: String
        @Option(help: "The descriptor: sface (default; OpenCV Zoo's SFace through ONNX, unit length, its own detector and mesh) or dlib (ResNet; --detector, --upsample, --box and --jitter are dlib's only).")
        var model = "sface"
        @Option(help: "Face detector: blazeface (default) or mmod.") var detector = "blazeface"
        @Option(help: "mmod only: double the image N times first to find smaller faces (default 0).") var upsample = 0
        @Option(help: "Skip detection: the face's box as left,top,right,bottom pixels (as dlib's rectangle).") var box: String?
        @Option(help: "Average the descriptors of N jittered chips (slower, steadier; default 0: one chip).") var jitter = 0
        @Flag(help: "Print JSON (see the README for the keys).") var json = false
        @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
        @Option(help: "Threads (default: all cores).") var threads: Int?

        func run() throws {
            guard ["dlib", "sface"].contains(model) else { throw ValidationError("--model is dlib or sface") }
            if model == "sface" {
                guard detector == "blazeface", upsample == 0, box == nil, jitter == 0 else {
                    throw ValidationError("--detector, --upsample, --box and --jitter are dlib's: add --model dlib")
                }
                return try runSFace()
            }
            let choice = try FaceCommand.detector(detector)
            let given = try box.map(FaceCommand.box)
            let photo = try ImageIO.read(image)
            let recognizer = try FaceRecognizer(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
            func pipeline() throws -> [RecognizedFace] {
                if let given { return [try recognizer.recognize(photo, box: given, jitter: jitter)] }
                return try recognizer.recognizeAll(photo, jitter: jitter, detector: choice, upsample: upsample)
            }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                return try Bench.report(bench) { _ = try pipeline() }
            }
            let faces = try pipeline()
            if json { return try JSONOutput.print(EmbeddedFacesObservation(faces, width: photo.width, height: photo.height)) }
            print("\(image): \(faces.count) face\(faces.count == 1 ? "" : "s")")
            for (i, f) in faces.enumerated() {
                let head = f.descriptor.values.prefix(4).map { String(format: "%.3f", $0) }.joined(separator: " ")
                print("  face \(i + 1): box \(f.box.left),\(f.box.top) \(f.box.width)×\(f.box.height) px, descriptor [\(head) …]")
            }
        }

        /// SFace: BlazeFace and the mesh find the face, the ArcFace points align it; the JSON
        /// has the keys dlib's has (landmarks5: the five alignment points).
        func runSFace() throws {
            let photo = try ImageIO.read(image)
            let recognizer = try SFaceRecognizer(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                return try Bench.report(bench) { _ = try recognizer.recognizeAll(photo) }
            }
            let faces = try recognizer.recognizeAll(photo)
            if json { return try JSONOutput.print(EmbeddedFacesObservation(sface: faces, width: photo.width, height: photo.height)) }
            print("\(image): \(faces.count) face\(faces.count == 1 ? "" : "s") (SFace)")
            for (i, f) in faces.enumerated() {
                let head = f.descriptor.values.prefix(4).map { String(format: "%.3f", $0) }.joined(separator: " ")
                print("  face \(i + 1): descriptor [\(head) …]")
            }
        }
    }

    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare the largest face of two photos: descriptor distance, and whether it is the same person.")

        @Argument(help: "First photo.") var first: String
        @Argument(help: "Second photo.") var second: String
        @Option(help: "The descriptor: sface (default; OpenCV Zoo's SFace through ONNX, unit length) or dlib (ResNet, 150×150 chips).")
        var model = "sface"
        @Option(help: "Same person below this distance (SFace 1.12, cosine 0.373; dlib 0.6).") var threshold: Double?
        @Option(help: "dlib only: average the descriptors of N jittered chips.") var jitter = 0
        @Flag(help: "Print JSON: distance, same.") var json = false
        @Option(help: "Run the whole comparison N times in one process and print median/min/max ms.") var bench: Int?
        @Option(help: "Threads (default: all cores).") var threads: Int?

        func run() throws {
            guard ["dlib", "sface"].contains(model) else { throw ValidationError("--model is dlib or sface") }
            guard model == "dlib" || jitter == 0 else { throw ValidationError("--jitter is dlib's: add --model dlib") }
            let threshold = self.threshold ?? (model == "sface" ? FaceDescriptor.sfaceThreshold : FaceDescriptor.defaultThreshold)
            let photos = try [first, second].map { try ($0, ImageIO.read($0)) }
            let describe: (Image) throws -> FaceDescriptor?
            if model == "sface" {
                let recognizer = try SFaceRecognizer(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
                describe = { try recognizer.recognizeAll($0).first?.descriptor }
            } else {
                let recognizer = try FaceRecognizer(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
                describe = { try recognizer.recognizeAll($0, jitter: jitter).first?.descriptor }
            }
            func compare() throws -> Double {
                let d = try photos.map { path, photo in
                    guard let descriptor = try describe(photo) else { throw ValidationError("no face found in \(path)") }
                    return descriptor
                }
                return try d[0].distance(to: d[1])
            }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                return try Bench.report(bench) { _ = try compare() }
            }
            let distance = try compare()
            let same = distance < threshold
            if json { return try JSONOutput.print(FaceComparison(distance: distance, same: same)) }
            print(String(format: "distance %.4f: %@", distance, same ? "same person" : "different people"))
        }
    }

    struct GalleryBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gallery-bench",
            abstract: "Time a 1:N search in a gallery of random descriptors (median/min/max ms).")

        @Option(help: "People in the gallery.") var size = 100_000
        @Option(help: "Searches timed.") var runs = 50

        struct Result: Encodable { let size: Int, median_ms: Double, min_ms: Double, max_ms: Double, runs: Int }

        func run() throws {
            guard size > 0, runs > 0 else { throw ValidationError("--size and --runs must be positive") }
            var random = SystemRandomNumberGenerator()
            func descriptor() -> FaceDescriptor {
                FaceDescriptor((0 ..< 128).map { _ in Float.random(in: -0.25 ... 0.25, using: &random) })
            }
            var gallery = FaceGallery()
            for i in 0 ..< size { try gallery.add(descriptor(), name: "person \(i)") }
            let query = descriptor()
            let r = try Bench.run(runs) { _ = try gallery.identify(query, k: 5) }
            try JSONOutput.print(Result(size: size, median_ms: r.median_ms, min_ms: r.min_ms, max_ms: r.max_ms, runs: runs))
        }
    }
}
