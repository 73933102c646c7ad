import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

struct FacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Find faces, place the 468-point mesh and measure the face signals.")

    @Argument(help: "A PNG or JPEG photo.") var image: String?
    @Option(help: "A folder of frames or a Y4M file: track the face and print one JSON line per frame.") var video: String?
    @Option(help: "Detector: short (faces within about 2 m) or full (about 5 m).") var model = "short"
    @Option(help: "Minimum detection score (default 0.5 short range, 0.6 full range, as MediaPipe's graphs).") var minScore: Double?
    @Flag(help: "Refine the irises: 478 landmarks instead of 468.") var iris = false
    @Flag(help: "Print JSON (see the README for the keys).") var json = false
    @Option(help: "Write the photo with boxes, keypoints and meshes drawn.") var annotate: String?
    @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    func runVideo(_ path: String, _ choice: FaceDetector.Model) throws {
        let video = try VideoFrames.load(path)
        var configuration = FaceSession.Configuration()
        (configuration.model, configuration.minScore, configuration.irises) = (choice, minScore, iris)
        let session = try FaceSession(configuration: configuration, store: CommandEnvironment.store,
                                      pool: ThreadPool(threads: CommandEnvironment.threads(threads)))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            // Per frame, tracking included: the whole clip N times, reported per frame.
            let result = try Bench.run(bench) {
                session.reset()
                for (i, f) in video.frames.enumerated() { _ = try session.process(f, time: video.time(of: i)) }
            }
            let n = Double(video.frames.count)
            return try JSONOutput.print(Bench.Result(median_ms: result.median_ms / n, min_ms: result.min_ms / n, max_ms: result.max_ms / n, runs: bench))
        }
        for (i, frame) in video.frames.enumerated() {
            let observation = try session.process(frame, time: video.time(of: i))
            if json { try JSONOutput.print(observation); continue }
            let faces = observation.faces
            print("frame \(i): \(faces.count) face\(faces.count == 1 ? "" : "s")" + (faces.first.map { f in
                ", eyes \(f.signals.eyesClosed ? "closed" : "open"), mouth \(f.signals.mouthOpen ? "open" : "closed"), \(f.signals.smiling ? "smiling" : "not smiling")"
            } ?? ""))
        }
    }

    func run() throws {
        guard let choice = FaceDetector.Model(rawValue: model) else { throw ValidationError("--model is short or full") }
        if let video { return try runVideo(video, choice) }
        guard let image else { throw ValidationError("give a photo, or --video with a folder of frames or a Y4M file") }
        let photo = try ImageIO.read(image)
        let landmarker = try FaceLandmarker(model: choice, minScore: minScore, refineIrises: iris, store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
        let pipeline = { () throws -> [(FaceDetection, FaceLandmarks)] in
            try landmarker.faces(in: photo).map { ($0.detection, $0.landmarks) }
        }
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            return try Bench.report(bench) { _ = try pipeline() }
        }
        let found = try pipeline()
        let observation = FacesObservation(still: found.map { Face(detection: $0.0, landmarks: $0.1) }, width: photo.width, height: photo.height)
        let faces = observation.faces
        if let annotate { try draw(photo, found, to: annotate) }
        if json { return try JSONOutput.print(observation) }
        print("\(image): \(photo.width)×\(photo.height), \(faces.count) face\(faces.count == 1 ? "" : "s")")
        for (i, f) in faces.enumerated() {
            print(String(format: "  face %d: score %.2f, box (%.3f, %.3f, %.3f×%.3f), EAR %.2f/%.2f, MAR %.2f, smile %.2f, yaw %.0f° pitch %.0f° roll %.0f°",
                         i, f.score, f.box.x, f.box.y, f.box.width, f.box.height, f.signals.leftEAR, f.signals.rightEAR,
                         f.signals.mar, f.signals.smile, f.signals.yaw, f.signals.pitch, f.signals.roll))
        }
    }

    func draw(_ photo: Image, _ found: [(FaceDetection, FaceLandmarks)], to path: String) throws {
        var canvas = photo.convertedForDrawing()
        let w = Double(photo.width), h = Double(photo.height)
        let thickness = max(1, Double(min(photo.width, photo.height)) / 300)
        for (face, mesh) in found {
            canvas.drawRectangle(PixelRect(x: Int(face.box.x * w), y: Int(face.box.y * h), width: Int(face.box.width * w), height: Int(face.box.height * h)),
                                 color: .green, thickness: Int(thickness.rounded()))
            canvas.drawRotatedRect(mesh.region.pixels(width: photo.width, height: photo.height), color: .cyan, thickness: thickness)
            for p in mesh.points { canvas.drawPoint(Point(p.x * w, p.y * h), radius: thickness * 0.7, color: RGBA(255, 255, 255, 200)) }
            for region in FaceRegion.allCases where region != .leftPupil && region != .rightPupil {
                let pts = mesh.points(region).map { Point($0.x * w, $0.y * h) }
                canvas.drawPolyline(pts, closed: region.isClosed, color: .yellow, thickness: thickness)
            }
            for k in face.keypoints { canvas.drawPoint(Point(k.x * w, k.y * h), radius: thickness * 2.5, color: .red) }
        }
        try ImageIO.write(canvas, to: path)
    }
}
