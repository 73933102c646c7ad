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

    struct Box: Encodable { let x: Double, y: Double, width: Double, height: Double }
    struct Signals: Encodable {
        let leftEAR: Double, rightEAR: Double, MAR: Double, smile: Double, jawOpen: Double, yaw: Double, pitch: Double, roll: Double
        let eyesClosed: Bool, mouthOpen: Bool, smiling: Bool
    }
    struct Face: Encodable {
        let box: Box, score: Double, presence: Double, keypoints: [[Double]], landmarks: [[Double]], signals: Signals
    }
    struct Report: Encodable { let width: Int, height: Int, faces: [Face] }
    struct FrameReport: Encodable { let frame: Int, width: Int, height: Int, faces: [Face] }

    static func face(_ detection: FaceDetection?, _ landmarks: FaceLandmarks, _ s: FaceSignals,
                     eyesClosed: Bool, mouthOpen: Bool, smiling: Bool) -> Face {
        let box: Box
        if let b = detection?.box {
            box = Box(x: b.x, y: b.y, width: b.width, height: b.height)
        } else {
            // Tracked frames have no detection: the mesh's bounding box stands in.
            let xs = landmarks.points.map(\.x), ys = landmarks.points.map(\.y)
            box = Box(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
        }
        return Face(box: box, score: detection?.score ?? landmarks.presence, presence: landmarks.presence,
                    keypoints: detection?.keypoints.map { [$0.x, $0.y] } ?? [], landmarks: landmarks.points.map { [$0.x, $0.y, $0.z] },
                    signals: Signals(leftEAR: s.leftEAR, rightEAR: s.rightEAR, MAR: s.mar, smile: s.smile, jawOpen: s.jawOpen, yaw: s.yaw, pitch: s.pitch,
                                     roll: s.roll, eyesClosed: eyesClosed, mouthOpen: mouthOpen, smiling: smiling))
    }

    func runVideo(_ path: String, _ choice: FaceDetector.Model) throws {
        let frames = try VideoFrames.load(path)
        let tracker = FaceTracker(landmarker: try FaceLandmarker(model: choice, minScore: minScore, refineIrises: iris, threads: threads))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            // Per frame, tracking included: the whole clip N times, reported per frame.
            let result = try Bench.run(bench) { tracker.reset(); for f in frames { _ = try tracker.track(f) } }
            let n = Double(frames.count)
            return try JSONOutput.print(Bench.Result(median_ms: result.median_ms / n, min_ms: result.min_ms / n, max_ms: result.max_ms / n, runs: bench))
        }
        var gestures = FaceGestureDetector()
        for (i, frame) in frames.enumerated() {
            let meshes = try tracker.track(frame)
            let signals = meshes.map { FaceSignals($0, imageWidth: frame.width, imageHeight: frame.height) }
            gestures.update(signals)
            let faces = zip(meshes, signals).map {
                Self.face(nil, $0, $1, eyesClosed: gestures.eyesClosed, mouthOpen: gestures.mouthOpen, smiling: gestures.smiling)
            }
            if json {
                try JSONOutput.print(FrameReport(frame: i, width: frame.width, height: frame.height, faces: faces))
            } else {
                print("frame \(i): \(faces.count) face\(faces.count == 1 ? "" : "s")"
                    + (faces.isEmpty ? "" : ", eyes \(gestures.eyesClosed ? "closed" : "open"), mouth \(gestures.mouthOpen ? "open" : "closed"), \(gestures.smiling ? "smiling" : "not smiling")"))
            }
        }
    }

    func run() throws {
        guard let choice = FaceDetector.Model(rawValue: model) else { throw ValidationError("--model is short or full") }
        if let video { return try runVideo(video, choice) }
        guard let image else { throw ValidationError("give a photo, or --video with a folder of frames or a Y4M file") }
        let photo = try ImageIO.read(image)
        let landmarker = try FaceLandmarker(model: choice, minScore: minScore, refineIrises: iris, threads: threads)
        let pipeline = { () throws -> [(FaceDetection, FaceLandmarks)] in
            try landmarker.faces(in: photo).map { ($0.detection, $0.landmarks) }
        }
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            return try Bench.report(bench) { _ = try pipeline() }
        }
        let found = try pipeline()
        let faces = found.map { face, landmarks in
            let s = FaceSignals(landmarks, imageWidth: photo.width, imageHeight: photo.height)
            return Self.face(face, landmarks, s, eyesClosed: s.eyesClosed(), mouthOpen: s.mouthOpen(openThreshold: FaceSignals.stillMouthOpen),
                             smiling: s.smile > FaceSignals.stillSmile)
        }
        if let annotate { try draw(photo, found, to: annotate) }
        if json { return try JSONOutput.print(Report(width: photo.width, height: photo.height, faces: faces)) }
        print("\(image): \(photo.width)×\(photo.height), \(faces.count) face\(faces.count == 1 ? "" : "s")")
        for (i, f) in faces.enumerated() {
            print(String(format: "  face %d: score %.2f, box (%.3f, %.3f, %.3f×%.3f), EAR %.2f/%.2f, MAR %.2f, smile %.2f, yaw %.0f° pitch %.0f° roll %.0f°",
                         i, f.score, f.box.x, f.box.y, f.box.width, f.box.height, f.signals.leftEAR, f.signals.rightEAR,
                         f.signals.MAR, f.signals.smile, f.signals.yaw, f.signals.pitch, f.signals.roll))
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
