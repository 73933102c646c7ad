import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// The index finger's reach (``IndexReach``), which keeps a fist from counting as a pinch, on
/// the labelled photos of hands.tsv. A thumb up or down curls the index by definition; pointing,
/// victory, four, rock and an open palm hold it out. A photo counts when the landmarks read its
/// labelled shape (``HandShape``): the rule judges landmarks, and a misread hand (one thumbs-down
/// photo reads as an open palm) says nothing about it.
@Suite("Index reach", .serialized)
struct HandReachTests {
    static let curled: Set<HandShape> = [.thumbsUp, .thumbsDown]
    static let extended: Set<HandShape> = [.pointing, .victory, .four, .rock, .openPalm]

    @Test("a thumb up or down curls the index under the limit; pointing, victory, four, rock and open palms do not",
          .requires(fixture: "faces/hands.tsv"), .requires(model: "palm_detection_full", "hand_landmark_full"))
    func labelledPhotos() throws {
        let fixtures = try Fixtures.required("faces/hands.tsv")
        let landmarker = try HandLandmarker(maxHands: 1, threads: 1)
        var judged = [HandShape: [Double]]()
        for photo in try Fixtures.labelledHands(in: fixtures) {
            guard let want = HandShapeTests.labels[photo.label], Self.curled.contains(want) || Self.extended.contains(want) else { continue }
            guard let hand = try landmarker.hands(in: ImageIO.read(photo.path)).first, HandShape(hand) == want,
                  let reach = IndexReach.of(world: hand.world) else { continue }
            judged[want, default: []].append(reach)
            #expect(hand.indexCurled == Self.curled.contains(want), "\(photo.file) (\(want)): reach \(reach)")
        }
        print("index reach by shape: " + judged.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue) \($0.value.map { String(format: "%.2f", $0) }.joined(separator: " "))" }.joined(separator: "; "))
        #expect(judged.filter { Self.curled.contains($0.key) }.values.joined().count >= 3, "thumbs read: \(judged)")
        #expect(judged.filter { Self.extended.contains($0.key) }.values.joined().count >= 15, "extended read: \(judged)")
    }

    @Test("the fixtures' pinch (thumb and index tips nearly touching) holds the index out", .requires(fixture: "faces/hands/mp_gesture_call_17d804b5-7118-462d-8191-58d764f591b8.jpg"),
          .requires(model: "palm_detection_full", "hand_landmark_full"))
    func pinch() throws {
        let fixtures = try Fixtures.required("faces/hands")
        // The crop the gestures page's test clip uses for its pinch frames (tests/browser/hand_clip.py).
        let photo = try ImageIO.read(fixtures + "/faces/hands/mp_gesture_call_17d804b5-7118-462d-8191-58d764f591b8.jpg")
        let crop = try photo.cropped(to: PixelRect(x: 211, y: 150, width: 173, height: 362))
        let hand = try #require(try HandLandmarker(maxHands: 1, threads: 1).hands(in: crop).first)
        let reach = try #require(IndexReach.of(world: hand.world))
        #expect(!hand.indexCurled, "reach \(reach)")
        #expect(reach > IndexReach.curled + 0.5, "a clear margin: \(reach)")
    }

    @Test("a constructed hand with a bone of no length has no reach and is not curled")
    func degenerate() {
        let points = [Point3](repeating: Point3(x: 0.5, y: 0.5, z: 0), count: 21)
        #expect(IndexReach.of(world: points) == nil && !IndexReach.isCurled(world: points))
        #expect(IndexReach.of(world: []) == nil)
    }
}
