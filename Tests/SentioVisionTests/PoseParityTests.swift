import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// Against MediaPipe 0.10.21's legacy Pose (static image mode, model complexity 1): the same
/// number of poses, mean landmark distance ≤ 3% of the torso's size (the longer of shoulder
/// width and shoulder-to-hip height).
@Suite("Pose parity with MediaPipe", .serialized)
struct PoseParityTests {
    /// From scripts/reference/mediapipe_solutions.py pose.
    static let reference = Requirement.reference("mediapipe-0.10.21/pose.json")

    @Test("poses on the fixture photos match MediaPipe's", .requires(PoseParityTests.reference), .requires(VisionTestData.photos.map(Requirement.fixture)))
    func poses() throws {
        let fixtures = try Fixtures.required()
        let all = try #require(VisionTestData.json(try Self.reference.path()) as? [String: [String: Any]], "\(Self.reference) is not a JSON object")
        let landmarker = try PoseLandmarker(threads: 1)
        var errors: [Double] = []
        for (key, entry) in all.sorted(by: { $0.key < $1.key }) {
            let image = try ImageIO.read(fixtures + "/" + key)
            let ours = try landmarker.pose(in: image)
            let theirs = entry["poses"] as? [[[Double]]] ?? []
            #expect((ours == nil ? 0 : 1) == theirs.count, "\(key): \(ours == nil ? 0 : 1) poses, MediaPipe \(theirs.count)")
            guard let ours, let points = theirs.first else { continue }
            let w = Double(image.width), h = Double(image.height)
            func p(_ i: Int) -> (Double, Double) { (points[i][0] * w, points[i][1] * h) }
            let shoulders = hypot(p(11).0 - p(12).0, p(11).1 - p(12).1)
            let height = hypot((p(11).0 + p(12).0 - p(23).0 - p(24).0) / 2, (p(11).1 + p(12).1 - p(23).1 - p(24).1) / 2)
            let mean = zip(ours.points, points).reduce(0.0) { $0 + hypot(($1.0.x - $1.1[0]) * w, ($1.0.y - $1.1[1]) * h) } / 33
            let error = mean / max(shoulders, height)
            errors.append(error)
            #expect(error <= 0.03, "\(key): mean landmark distance \(error) of the torso")
        }
        errors.sort()
        if !errors.isEmpty { print("pose parity: \(all.count) photos, \(errors.count) poses, median \(errors[errors.count / 2]), worst \(errors.last!) of the torso") }
    }
}
