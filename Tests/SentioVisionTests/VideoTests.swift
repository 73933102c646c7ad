import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

@Suite("Face video: tracking, gestures, frames")
struct VideoTests {
    /// A real photo panned across: frames cut from a larger view, the face moving 4 px a frame.
    static func panningClip(frames: Int) throws -> [Image] {
        let fixtures = try Fixtures.required("reference/images/grace_hopper.png")
        let photo = try ImageIO.read(fixtures + "/reference/images/grace_hopper.png")
        return try (0 ..< frames).map { i in
            try photo.cropped(to: PixelRect(x: 4 * i, y: 2 * i, width: photo.width - 4 * frames, height: photo.height - 2 * frames)).compacted()
        }
    }

    @Test("the tracker follows a moving face from its own mesh, detecting only on the first frame",
          .requires(fixture: "reference/images/grace_hopper.png"), .requires(model: "face_detection_short_range", "face_landmark"))
    func tracking() throws {
        let clip = try Self.panningClip(frames: 20)
        let tracker = FaceTracker(landmarker: try FaceLandmarker(threads: 1))
        let landmarker = try FaceLandmarker(threads: 1)
        for frame in clip {
            let tracked = try #require(try tracker.track(frame).first)
            // Tracking must land where a fresh detection + mesh would (within 2% of the face size).
            let fresh = try #require(try landmarker.faces(in: frame).first).landmarks
            let error = meshError(tracked.points, fresh.points.map { [$0.x, $0.y] }, w: Double(frame.width), h: Double(frame.height))
            #expect(error < 0.02, "mesh drifted by \(error) of the inter-ocular distance")
        }
        #expect(tracker.detections == 1)
    }

    @Test("Y4M frames round-trip through the reader, and damaged files are errors")
    func y4m() throws {
        var frame = try Image(width: 33, height: 17, format: .rgb8)
        for y in 0 ..< 17 { for x in 0 ..< 33 { frame[x, y, 0] = UInt8(x * 7); frame[x, y, 1] = UInt8(y * 15); frame[x, y, 2] = 128 } }
        let bytes = try Y4M.encode([frame, frame, frame], fps: 25)
        let (header, frames) = try Y4M.frames(bytes)
        #expect(header.width == 33 && header.height == 17 && header.frameRate == (25, 1) && frames.count == 3)
        // 4:2:0 chroma and limited range cost a little precision; the luma detail survives.
        #expect(frames[2].meanAbsoluteDifference(frame) < 6)
        #expect(throws: ImageError.self) { try Y4M.frames(Array(bytes.dropLast(10))) }
        #expect(throws: ImageError.self) { try Y4M.frames(Array("YUV4MPEG2 W0 H10\n".utf8)) }
        #expect(throws: ImageError.self) { try Y4M.frames(Array("not a video".utf8)) }
    }

    static func signals(ear: Double, mar: Double = 0.05, smile: Double = 0) -> FaceSignals {
        FaceSignals(leftEAR: ear, rightEAR: ear, mar: mar, smile: smile, yaw: 0, pitch: 0, roll: 0, noseTip: Point2(x: 0.5, y: 0.5))
    }

    @Test("eyes closed after 15 frames under 0.24, through flickers of up to 2 frames, one face only")
    func eyesClosed() {
        var d = FaceGestureDetector()
        // 14 closed frames: not yet.
        for _ in 0 ..< 14 { d.update([Self.signals(ear: 0.15)]) }
        #expect(!d.eyesClosed)
        d.update([Self.signals(ear: 0.15)])
        #expect(d.eyesClosed)
        // Two frames open inside the run are tolerated…
        d.update([Self.signals(ear: 0.3)]); d.update([Self.signals(ear: 0.3)])
        #expect(d.eyesClosed)
        d.update([Self.signals(ear: 0.15)])
        #expect(d.eyesClosed)
        // …three are not.
        for _ in 0 ..< 3 { d.update([Self.signals(ear: 0.3)]) }
        #expect(!d.eyesClosed)
        // A run interrupted by a 3-frame opening starts again from zero.
        var e = FaceGestureDetector()
        for _ in 0 ..< 10 { e.update([Self.signals(ear: 0.15)]) }
        for _ in 0 ..< 3 { e.update([Self.signals(ear: 0.3)]) }
        for _ in 0 ..< 10 { e.update([Self.signals(ear: 0.15)]) }
        #expect(!e.eyesClosed)
        // Two faces in view: nothing fires.
        var f = FaceGestureDetector()
        for _ in 0 ..< 20 { f.update([Self.signals(ear: 0.15), Self.signals(ear: 0.15)]) }
        #expect(!f.eyesClosed)
    }

    @Test("mouth open over MAR 0.5, closed-mouth smile, and calibration to the person")
    func mouthAndSmile() {
        var d = FaceGestureDetector()
        d.update([Self.signals(ear: 0.3, mar: 0.6)])
        #expect(d.mouthOpen && !d.smiling)
        d.update([Self.signals(ear: 0.3, mar: 0.1, smile: 0.8)])
        #expect(!d.mouthOpen && d.smiling)
        d.update([Self.signals(ear: 0.3, mar: 0.4, smile: 0.8)])
        #expect(!d.smiling)  // the original game's smile is a closed-mouth smile
        // Someone whose eyes are narrow at rest: EAR 0.22 is their neutral, not closed.
        var c = FaceGestureDetector()
        c.calibrate((0 ..< 5).map { _ in Self.signals(ear: 0.22, smile: 0.2) })
        for _ in 0 ..< 20 { c.update([Self.signals(ear: 0.21)]) }
        #expect(!c.eyesClosed)
        for _ in 0 ..< 20 { c.update([Self.signals(ear: 0.12)]) }
        #expect(c.eyesClosed)
        c.update([Self.signals(ear: 0.3, mar: 0.1, smile: 0.6)])
        #expect(!c.smiling)  // 0.6 is only 0.4 above this person's neutral 0.2
    }

    @Test("named regions index the 468-point mesh without repeats")
    func regions() {
        for region in FaceRegion.allCases where region != .leftPupil && region != .rightPupil {
            #expect(region.indices.allSatisfy { $0 >= 0 && $0 < 468 })
            #expect(Set(region.indices).count == region.indices.count, "\(region)")
        }
    }
}
