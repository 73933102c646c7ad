import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// Pinch and air writing on constructed landmark sequences: a hand whose geometry is set
/// joint by joint, so each frame's distances are known exactly.
@Suite("Hand gestures over frames")
struct HandGestureTests {
    /// A hand 200 px tall in a 1000×1000 frame (wrist to middle knuckle 100 px), with the
    /// thumb tip `pinchGap` px from the index tip and the middle tip `penGap` px from it.
    static func hand(at x: Double, _ y: Double, pinchGap: Double, penGap: Double = 80) -> Hand {
        var points = [Point3](repeating: Point3(x: x, y: y, z: 0), count: 21)
        func set(_ j: HandJoint, _ dx: Double, _ dy: Double) { points[j.rawValue] = Point3(x: (x * 1000 + dx) / 1000, y: (y * 1000 + dy) / 1000, z: 0) }
        set(.wrist, 0, 100)
        set(.middleMCP, 0, 0)
        set(.indexTip, -10, -100)
        set(.thumbTip, -10 - pinchGap, -100)
        set(.middleTip, -10 + penGap, -100)
        return Hand(points: points, world: points, handedness: "Right", handednessScore: 1, presence: 1, score: 1,
                    region: NormalizedRect(xCenter: x, yCenter: y, width: 0.3, height: 0.3))
    }

    @Test("pinch: held for 7 frames fires, 6 do not, parting resets; absolute and relative thresholds")
    func pinch() {
        var relative = PinchDetector()  // 25% of 100 px = 25 px
        for _ in 0 ..< 6 { relative.update(Self.hand(at: 0.5, 0.5, pinchGap: 10), imageWidth: 1000, imageHeight: 1000) }
        #expect(!relative.isPinching)
        relative.update(Self.hand(at: 0.5, 0.5, pinchGap: 10), imageWidth: 1000, imageHeight: 1000)
        #expect(relative.isPinching)
        relative.update(Self.hand(at: 0.5, 0.5, pinchGap: 60), imageWidth: 1000, imageHeight: 1000)
        #expect(!relative.isPinching)
        // The lessons' 40 points: 30 px is a pinch, 50 px is not.
        var absolute = PinchDetector(threshold: .pixels(40))
        for _ in 0 ..< 7 { absolute.update(Self.hand(at: 0.5, 0.5, pinchGap: 30), imageWidth: 1000, imageHeight: 1000) }
        #expect(absolute.isPinching)
        var far = PinchDetector(threshold: .pixels(40))
        for _ in 0 ..< 7 { far.update(Self.hand(at: 0.5, 0.5, pinchGap: 50), imageWidth: 1000, imageHeight: 1000) }
        #expect(!far.isPinching)
        // A hand half as big (farther away) with the same 30 px gap: the relative rule sees the
        // fingers apart (30 > 25% of 50 px) where the absolute one would not.
        var small = PinchDetector()
        for _ in 0 ..< 7 { small.update(Self.hand(at: 0.5, 0.5, pinchGap: 30), imageWidth: 500, imageHeight: 500) }
        #expect(!small.isPinching)
        // A fist: the index curled back to the palm in the world coordinates (its tip one
        // first bone's length from its knuckle, reach 1.0 < 1.4) is no pinch, however near the thumb.
        var fist = PinchDetector()
        var curled = Self.hand(at: 0.5, 0.5, pinchGap: 10)
        curled.world[HandJoint.indexMCP.rawValue] = Point3(x: 0, y: 0, z: 0)
        curled.world[HandJoint.indexPIP.rawValue] = Point3(x: 0.045, y: 0, z: 0)
        curled.world[HandJoint.indexTip.rawValue] = Point3(x: 0.02, y: 0.04, z: 0)
        #expect(curled.indexCurled)
        for _ in 0 ..< 10 { fist.update(curled, imageWidth: 1000, imageHeight: 1000) }
        #expect(!fist.isPinching)
        // Losing the hand resets.
        relative.update(nil, imageWidth: 1000, imageHeight: 1000)
        #expect(!relative.isPinching)
    }

    @Test("air writing: pen down while index and middle touch, mirrored trace, strokes, clear")
    func writing() {
        var writer = AirWriter()
        // Pen down, moving right (in the camera's view) across three frames.
        for x in [0.3, 0.4, 0.5] { writer.update(Self.hand(at: x, 0.5, pinchGap: 60, penGap: 5), imageWidth: 1000, imageHeight: 1000) }
        #expect(writer.penDown && writer.strokes.count == 1 && writer.strokes[0].count == 3)
        // Mirrored for a selfie view: the midpoint of the tips at x = 0.3 − 0.0075 shows at 1 − that.
        let first = writer.strokes[0][0]
        #expect(abs(first.x - (1 - (0.3 - 0.0075))) < 1e-9 && abs(first.y - 0.4) < 1e-9)
        #expect(writer.strokes[0][2].x < writer.strokes[0][0].x)
        // Fingers apart: pen up, nothing drawn; together again: a second stroke.
        writer.update(Self.hand(at: 0.6, 0.5, pinchGap: 60, penGap: 80), imageWidth: 1000, imageHeight: 1000)
        #expect(!writer.penDown && writer.strokes.count == 1)
        writer.update(Self.hand(at: 0.6, 0.6, pinchGap: 60, penGap: 5), imageWidth: 1000, imageHeight: 1000)
        #expect(writer.strokes.count == 2 && writer.strokes[1].count == 1)
        writer.clear()
        #expect(writer.strokes.isEmpty && !writer.penDown)
    }
}

@Suite("Hand tracking")
struct HandTrackingTests {
    @Test("the hand tracker follows a hand through a panning clip, detecting palms once", .requires(fixture: "faces/hands/handtrackjs_1.jpg"))
    func tracking() throws {
        let photo = try ImageIO.read(try Requirement.fixture("faces/hands/handtrackjs_1.jpg").path())
        let landmarker = try HandLandmarker(maxHands: 1, threads: 1)
        let tracker = HandTracker(landmarker: landmarker)
        for i in 0 ..< 12 {
            let frame = try photo.cropped(to: PixelRect(x: 3 * i, y: 2 * i, width: photo.width - 40, height: photo.height - 30)).compacted()
            let tracked = try #require(try tracker.track(frame).first, "frame \(i): hand lost")
            let fresh = try #require(try landmarker.hands(in: frame, retry: false).first)
            // Within 5% of the hand's size of a fresh detection.
            let w = Double(frame.width), h = Double(frame.height)
            let size = hypot((fresh.point(.wrist).x - fresh.point(.middleTip).x) * w, (fresh.point(.wrist).y - fresh.point(.middleTip).y) * h)
            let error = zip(tracked.points, fresh.points).reduce(0.0) { $0 + hypot(($1.0.x - $1.1.x) * w, ($1.0.y - $1.1.y) * h) } / 21 / size
            #expect(error < 0.05, "frame \(i): \(error)")
        }
        #expect(tracker.detections == 1)
    }
}
