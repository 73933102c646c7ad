import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

struct FacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Find faces, place the 468-point mesh and measure the face signals.")

    @Argument(help: "A PNG or JPEG photo.") var image: String
    @Option(help: "Detector: short (faces within about 2 m) or full (about 5 m).") var model = "short"
    @Option(help: "Minimum detection score (default 0.5 short range, 0.6 full range, as MediaPipe's graphs).") var minScore: Double?
    @Flag(help: "Print JSON (see the README for the keys).") var json = false
    @Option(help: "Write the photo with boxes, keypoints and meshes drawn.") var annotate: String?
    @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    struct Box: Encodable { let x: Double, y: Double, width: Double, height: Double }
    struct Signals: Encodable {
        let leftEAR: Double, rightEAR: Double, MAR: Double, smile: Double, yaw: Double, pitch: Double, roll: Double
        let eyesClosed: Bool, mouthOpen: Bool, smiling: Bool
    }
    struct Face: Encodable {
        let box: Box, score: Double, presence: Double, keypoints: [[Double]], landmarks: [[Double]], signals: Signals
    }
    struct Report: Encodable { let width: Int, height: Int, faces: [Face] }

    func run() throws {
        guard let choice = FaceDetector.Model(rawValue: model) else { throw ValidationError("--model is short or full") }
        let photo = try ImageIO.read(image)
        let landmarker = try FaceLandmarker(model: choice, minScore: minScore, threads: threads)
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
            return Face(box: Box(x: face.box.x, y: face.box.y, width: face.box.width, height: face.box.height), score: face.score, presence: landmarks.presence,
                        keypoints: face.keypoints.map { [$0.x, $0.y] }, landmarks: landmarks.points.map { [$0.x, $0.y, $0.z] },
                        signals: Signals(leftEAR: s.leftEAR, rightEAR: s.rightEAR, MAR: s.mar, smile: s.smile, yaw: s.yaw, pitch: s.pitch,
                                         roll: s.roll, eyesClosed: s.eyesClosed(), mouthOpen: s.mouthOpen(openThreshold: FaceSignals.stillMouthOpen),
                                         smiling: s.smile > FaceSignals.stillSmile))
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
