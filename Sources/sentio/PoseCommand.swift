import ArgumentParser
import Foundation
import SentioImage
import SentioVision

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find a person and place the 33 body landmarks (pose detection + pose landmarks).")

    @Argument(help: "A PNG or JPEG photo.") var image: String
    @Flag(help: "Print JSON (see the README for the keys).") var json = false
    @Option(help: "Write the photo with the body drawn.") var annotate: String?
    @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    func run() throws {
        let photo = try ImageIO.read(image)
        let landmarker = try PoseLandmarker(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            return try Bench.report(bench) { _ = try landmarker.pose(in: photo) }
        }
        let poses = try landmarker.pose(in: photo).map { [$0] } ?? []
        if let annotate {
            var canvas = photo.convertedForDrawing()
            let w = Double(photo.width), h = Double(photo.height), t = max(1, Double(min(photo.width, photo.height)) / 250)
            for pose in poses {
                canvas.drawRotatedRect(pose.region.pixels(width: photo.width, height: photo.height), color: .cyan, thickness: t)
                for (a, b) in BodyJoint.bones where pose.visibility[a.rawValue] > 0.5 && pose.visibility[b.rawValue] > 0.5 {
                    canvas.drawLine(from: Point(pose.point(a).x * w, pose.point(a).y * h), to: Point(pose.point(b).x * w, pose.point(b).y * h),
                                    color: .yellow, thickness: t)
                }
                for (i, p) in pose.points.enumerated() where pose.visibility[i] > 0.5 { canvas.drawPoint(Point(p.x * w, p.y * h), radius: 2 * t, color: .red) }
            }
            try ImageIO.write(canvas, to: annotate)
        }
        let report = PosesObservation(width: photo.width, height: photo.height, poses: poses.map(ObservedPose.init))
        if json { return try JSONOutput.print(report) }
        print("\(image): \(photo.width)×\(photo.height), \(poses.count) pose\(poses.count == 1 ? "" : "s")")
        for pose in poses {
            let visible = pose.visibility.filter { $0 > 0.5 }.count
            print(String(format: "  score %.2f, %d of 33 landmarks visible, nose (%.3f, %.3f)", pose.score, visible, pose.point(.nose).x, pose.point(.nose).y))
        }
    }
}
