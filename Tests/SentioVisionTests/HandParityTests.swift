import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// Against MediaPipe 0.10.21's legacy Hands (static image mode, model complexity 1, two hands):
/// the same number of hands, mean landmark distance ≤ 3% of the hand's size (the side of its
/// landmarks' bounding box), the same handedness.
@Suite("Hand parity with MediaPipe", .serialized)
struct HandParityTests {
    /// From scripts/reference/mediapipe_solutions.py hands.
    static let reference = Requirement.reference("mediapipe-0.10.21/hands.json")

    @Test("hands on the fixture photos match MediaPipe's", .requires(HandParityTests.reference), .requires(VisionTestData.photos.map(Requirement.fixture)))
    func hands() throws {
        let fixtures = try Fixtures.required()
        let all = try #require(VisionTestData.json(try Self.reference.path()) as? [String: [String: Any]], "\(Self.reference) is not a JSON object")
        let landmarker = try HandLandmarker(model: .full, maxHands: 2, threads: 1)
        var errors: [Double] = []
        for (key, entry) in all.sorted(by: { $0.key < $1.key }) {
            let image = try ImageIO.read(fixtures + "/" + key)
            let ours = try landmarker.hands(in: image, retry: false)  // as MediaPipe
            let theirs = entry["hands"] as? [[String: Any]] ?? []
            #expect(ours.count == theirs.count, "\(key): \(ours.count) hands, MediaPipe \(theirs.count)")
            let w = Double(image.width), h = Double(image.height)
            for hand in theirs {
                let points = try #require(hand["landmarks"] as? [[Double]])
                let xs = points.map { $0[0] * w }, ys = points.map { $0[1] * h }
                let size = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
                let matches = ours.map { o -> (Double, String) in
                    let d = zip(o.points, points).reduce(0.0) { $0 + hypot(($1.0.x - $1.1[0]) * w, ($1.0.y - $1.1[1]) * h) } / 21
                    return (d / size, o.handedness)
                }
                let best = try #require(matches.min { $0.0 < $1.0 })
                errors.append(best.0)
                #expect(best.0 <= 0.03, "\(key): mean landmark distance \(best.0) of the hand's size")
                #expect(best.1 == hand["handedness"] as? String, "\(key): handedness \(best.1)")
            }
        }
        errors.sort()
        if !errors.isEmpty { print("hand parity: \(all.count) photos, \(errors.count) hands, median \(errors[errors.count / 2]), worst \(errors.last!) of the hand size") }
    }
}
