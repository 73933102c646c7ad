import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

@Suite("Hand shapes", .serialized)
struct HandShapeTests {
    /// hands.tsv's labels for the shapes Sentio names.
    static let labels: [String: HandShape] = [
        "rock(index+pinky)": .rock, "four(open palm, thumb folded)": .four, "call(thumb+pinky)": .call,
        "pointing_up": .pointing, "thumb_down": .thumbsDown, "thumb_up": .thumbsUp, "open_palm": .openPalm, "victory": .victory,
    ]

    @Test("static hand shapes on the labelled photos of hands.tsv: ≥ 85% right", .requires(fixture: "faces/hands.tsv"))
    func labelledPhotos() throws {
        let fixtures = try Fixtures.required("faces/hands.tsv")
        let landmarker = try HandLandmarker(maxHands: 5, threads: 1)
        landmarker.pose = try PoseLandmarker(threads: 1)
        var right = 0, total = 0
        for photo in try Fixtures.labelledHands(in: fixtures) {
            guard let want = Self.labels[photo.label] else { continue }
            let shapes = try landmarker.hands(in: ImageIO.read(photo.path)).compactMap(HandShape.init)
            total += 1
            if shapes.contains(want) { right += 1 } else { print("hand shape: \(photo.file) is \(want), found \(shapes)") }
        }
        let rate = Double(right) / Double(max(1, total))
        print("hand shapes: \(right) of \(total) labelled photos right (\(rate))")
        #expect(total >= 30 && rate >= 0.85)
    }
}
