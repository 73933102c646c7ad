import Foundation
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Per-stream sessions: tracking through a clip, a second face or hand picked up as it enters,
/// and sessions on compute threads giving what one session gives alone.
@Suite("Stream sessions")
struct SessionTests {
    /// A 640×480 clip on a gray background, as a webcam sees two people side by side: `first`
    /// fills the left half from frame 0, `second` the right half from frame `enters` on (it
    /// appears as a person stepping into view would). With `square`, each photo is cut to the
    /// square at its top first (a portrait's head and shoulders).
    static func twoPeopleClip(first: String, second: String, frames: Int, enters: Int, square: Bool = false) throws -> [Image] {
        func fitted(_ path: String) throws -> Image {
            var photo = try ImageIO.read(path)
            if square, photo.height > photo.width {
                photo = try photo.cropped(to: PixelRect(x: 0, y: 0, width: photo.width, height: photo.width)).compacted()
            }
            let scale = min(320 / Double(photo.width), 480 / Double(photo.height))
            return try photo.resized(to: Size(width: Int(Double(photo.width) * scale), height: Int(Double(photo.height) * scale)))
        }
        let a = try fitted(first), b = try fitted(second)
        let blank = try Image(width: 640, height: 480, format: .rgb8, fill: 128)
        var alone = blank, together = blank
        alone.paste(a, at: ((320 - a.width) / 2, (480 - a.height) / 2))
        together.paste(a, at: ((320 - a.width) / 2, (480 - a.height) / 2))
        together.paste(b, at: (320 + (320 - b.width) / 2, (480 - b.height) / 2))
        return (0 ..< frames).map { $0 < enters ? alone : together }
    }

    /// The frame the second person enters: one after a detection (frames 0, 5, 10… run it while
    /// fewer than two are tracked), the worst case for the pickup.
    static let enters = 6

    @Test("a face session picks up a second face within 10 frames of its entering",
          .requires(fixture: "faces/identity/Barack_Obama/fr_obama.jpg", "faces/identity/Joe_Biden/fr_biden.jpg"),
          .requires(model: "face_detection_full_range_sparse", "face_landmark"))
    func secondFace() throws {
        let fixtures = try Fixtures.required("faces/identity")
        let clip = try Self.twoPeopleClip(first: fixtures + "/faces/identity/Barack_Obama/fr_obama.jpg",
                                          second: fixtures + "/faces/identity/Joe_Biden/fr_biden.jpg", frames: 20, enters: Self.enters, square: true)
        // Two people at a webcam are a metre or two away: the full-range detector's distance.
        var configuration = FaceSession.Configuration()
        (configuration.maxFaces, configuration.model) = (2, .fullRange)
        let session = try FaceSession(configuration: configuration, store: ModelStore())
        var counts: [Int] = []
        for (i, frame) in clip.enumerated() { counts.append(try session.process(frame, time: Double(i) / 15).faces.count) }
        #expect(counts.prefix(Self.enters).allSatisfy { $0 == 1 }, "one face before the second enters: \(counts)")
        let picked = try #require(counts.indices.dropFirst(Self.enters).first { counts[$0] == 2 }, "the second face was never found: \(counts)")
        #expect(picked - Self.enters < 10, "found \(picked - Self.enters) frames after it entered: \(counts)")
        #expect(counts[picked...].allSatisfy { $0 == 2 }, "both stay tracked: \(counts)")
        print("SessionTests: the second face was tracked \(picked - Self.enters) frames after it entered; faces per frame \(counts)")
        // Detection ran on the first frame, then at most every 5 frames until both were tracked.
        #expect(session.tracker.detections <= 3, "\(session.tracker.detections) detections")
    }

    @Test("a hand session picks up a second hand within 10 frames of its entering",
          .requires(fixture: "faces/hands"), .requires(model: "palm_detection_full", "hand_landmark_full"))
    func secondHand() throws {
        let fixtures = try Fixtures.required("faces/hands")
        let clip = try Self.twoPeopleClip(first: fixtures + "/faces/hands/mp_gesture_call_044768ad-1709-44ba-b041-c2f8cbe4c166.jpg",
                                          second: fixtures + "/faces/hands/mp_gesture_four_06aa70cc-a12a-4b1e-85cf-e54d44c19a3a.jpg",
                                          frames: 20, enters: Self.enters)
        let session = try HandSession(maxHands: 2, store: ModelStore())
        var counts: [Int] = []
        for (i, frame) in clip.enumerated() { counts.append(try session.process(frame, time: Double(i) / 15).hands.count) }
        #expect(counts.prefix(Self.enters).allSatisfy { $0 == 1 }, "one hand before the second enters: \(counts)")
        let picked = try #require(counts.indices.dropFirst(Self.enters).first { counts[$0] == 2 }, "the second hand was never found: \(counts)")
        #expect(picked - Self.enters < 10, "found \(picked - Self.enters) frames after it entered: \(counts)")
        #expect(counts[picked...].allSatisfy { $0 == 2 }, "both stay tracked: \(counts)")
        print("SessionTests: the second hand was tracked \(picked - Self.enters) frames after it entered; hands per frame \(counts)")
    }

    @Test("six face sessions on two compute threads give what one session alone gives",
          .requires(fixture: "faces/identity/Barack_Obama/fr_obama.jpg", "faces/identity/Joe_Biden/fr_biden.jpg"),
          .requires(model: "face_detection_full_range_sparse", "face_landmark"))
    func liveSessions() async throws {
        let fixtures = try Fixtures.required("faces/identity")
        let clip = try Self.twoPeopleClip(first: fixtures + "/faces/identity/Barack_Obama/fr_obama.jpg",
                                          second: fixtures + "/faces/identity/Joe_Biden/fr_biden.jpg", frames: 12, enters: 4, square: true)
        let store = ModelStore()
        var configuration = FaceSession.Configuration()
        (configuration.maxFaces, configuration.model) = (2, .fullRange)
        let alone = try FaceSession(configuration: configuration, store: store)
        let expected = try clip.enumerated().map { try alone.process($0.element, time: Double($0.offset)) }
        let threads = ComputeThreads(count: 2)
        defer { threads.stop() }
        let sessions = try (0 ..< 6).map { _ in
            LiveSession(try FaceSession(configuration: configuration, store: store), on: threads.nextThread())
        }
        let results = try await withThrowingTaskGroup(of: (Int, [FacesObservation]).self) { group in
            for (k, live) in sessions.enumerated() {
                group.addTask {
                    var out: [FacesObservation] = []
                    for (i, frame) in clip.enumerated() { out.append(try await live.process(frame, time: Double(i))) }
                    return (k, out)
                }
            }
            return try await group.reduce(into: [Int: [FacesObservation]]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 6)
        for (k, observations) in results { #expect(observations == expected, "session \(k)") }
    }

    @Test("observations round-trip through JSON with the CLI's keys", .requires(model: "face_detection_short_range", "face_landmark"),
          .requires(fixture: "faces/identity/Barack_Obama/fr_obama.jpg"))
    func json() throws {
        let fixtures = try Fixtures.required("faces/identity")
        let photo = try ImageIO.read(fixtures + "/faces/identity/Barack_Obama/fr_obama.jpg")
        let session = try FaceSession(store: ModelStore())
        let observation = try session.process(photo, time: 0.5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(observation)
        #expect(try JSONDecoder().decode(FacesObservation.self, from: data) == observation)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["frame", "time", "width", "height", "faces"])
        let face = try #require((object["faces"] as? [[String: Any]])?.first)
        #expect(Set(face.keys) == ["box", "score", "presence", "keypoints", "landmarks", "signals"])
        #expect((face["signals"] as? [String: Any])?["MAR"] != nil)
    }
}
