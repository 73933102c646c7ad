import Attendance
import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// Readings of real fixture photos, taken with Sentio's face mesh (the same signals the kiosk
/// gets): sequences of the same person built from them are what a live student does; a single
/// photo repeated is what a photo held to the camera does.
enum PhotoReadings {
    nonisolated(unsafe) static var cache: [String: FaceReading] = [:]
    static let lock = NSLock()

    static func reading(_ relativePath: String, mirrored: Bool = false) throws -> FaceReading {
        let key = relativePath + (mirrored ? " mirrored" : "")
        if let cached = lock.withLock({ cache[key] }) { return cached }
        let fixtures = try Fixtures.required("faces/identity")
        var image = try ImageIO.read(fixtures + "/faces/" + relativePath)
        if mirrored { image = image.mirrored() }
        let landmarker = try FaceLandmarker(threads: 1)
        let face = try #require(try landmarker.faces(in: image).first, "no face in \(relativePath)")
        let s = FaceSignals(face.landmarks, imageWidth: image.width, imageHeight: image.height)
        let reading = FaceReading(ear: (s.leftEAR + s.rightEAR) / 2, mar: s.mar, yaw: s.yaw, pitch: s.pitch,
                                  widthPixels: face.detection.box.width * Double(image.width))
        lock.withLock { cache[key] = reading }
        return reading
    }
}

/// Frames at 10 per second: each reading held for `hold` frames.
func clip(_ readings: [(FaceReading, Int)], start: Double = 0, fps: Double = 10) -> [KioskFrame] {
    var frames: [KioskFrame] = [], t = start
    for (reading, hold) in readings {
        for _ in 0..<hold {
            frames.append(KioskFrame(time: t, faces: [reading]))
            t += 1 / fps
        }
    }
    return frames
}

func judge(_ actions: [LivenessAction], _ frames: [KioskFrame]) throws -> LivenessJudge {
    var judge = LivenessJudge(challenge: try LivenessChallenge(actions: actions))
    for frame in frames { judge.observe(frame) }
    return judge
}

@Suite("Liveness on fixture photos", .requires(fixture: "faces/identity"), .requires(.model("face_landmark")))
struct LivenessPhotoTests {
    // Yale subject 01: neutral (normal, noglasses, sad), eyes closed (sleepy), mouth open (surprised).
    static let yale = "identity/Yale_subject01/yale_subject01_"
    // Stock emotions A: neutral (1, 3, 5), head turned to her left (2, yaw +36°), mouth open (6);
    // mirrored, the same photos turn her head to her right.
    static let stock = "identity/Stock_Emotions_A_woman/human_stock-emotions-a-"

    func yale(_ name: String) throws -> FaceReading { try PhotoReadings.reading(Self.yale + name + ".png") }
    func stock(_ n: Int, mirrored: Bool = false) throws -> FaceReading { try PhotoReadings.reading(Self.stock + "\(n).jpg", mirrored: mirrored) }

    @Test("genuine sequences pass: blink then open the mouth, and the reverse (Yale 01)")
    func yaleGenuine() throws {
        let neutral = try yale("normal"), closed = try yale("sleepy"), open = try yale("surprised")
        let blinkThenMouth = clip([(neutral, 5), (closed, 2), (neutral, 5), (open, 4), (neutral, 3)])
        let a = try judge([.blink, .openMouth], blinkThenMouth)
        #expect(a.verdict == .passed, "\(a.summary)")
        let mouthThenBlink = clip([(neutral, 5), (open, 4), (neutral, 5), (closed, 2), (neutral, 3)])
        let b = try judge([.openMouth, .blink], mouthThenBlink)
        #expect(b.verdict == .passed, "\(b.summary)")
    }

    @Test("genuine sequences pass: turn left, turn right, open the mouth (stock emotions A, mirrored for the right)")
    func turnsGenuine() throws {
        let n1 = try stock(1), n3 = try stock(3), n5 = try stock(5), left = try stock(2), open = try stock(6)
        let left2right = clip([(n1, 2), (n3, 2), (n5, 2), (left, 3), (n1, 3), (try stock(2, mirrored: true), 3), (n5, 2)])
        let a = try judge([.turnLeft, .turnRight], left2right)
        #expect(a.verdict == .passed, "\(a.summary)")
        let mouthLeft = clip([(n1, 3), (n3, 2), (open, 3), (n5, 3), (left, 3), (n1, 2)])
        let b = try judge([.openMouth, .turnLeft], mouthLeft)
        #expect(b.verdict == .passed, "\(b.summary)")
    }

    @Test("the same frames in the wrong order fail")
    func wrongOrder() throws {
        let neutral = try yale("normal"), closed = try yale("sleepy"), open = try yale("surprised")
        // Asked to open the mouth first, the recording blinks first (ignored: people blink), then
        // opens the mouth (step one), then never blinks again: the time runs out.
        let recording = clip([(neutral, 5), (closed, 2), (neutral, 5), (open, 4), (neutral, 80)])
        let a = try judge([.openMouth, .blink], recording)
        #expect(a.verdict != .passed, "\(a.summary)")
        // Asked to turn right then left, a recording that turns left first fails at once.
        let n1 = try stock(1), left = try stock(2), right = try stock(2, mirrored: true)
        let b = try judge([.turnRight, .turnLeft], clip([(n1, 4), (left, 3), (n1, 3), (right, 3), (n1, 3)]))
        guard case .failed(let why) = b.verdict else { Issue.record("expected a failure: \(b.summary)"); return }
        #expect(why.contains("turn-left"))
    }

    @Test("a still photo fails every one of 50 random challenges")
    func stillPhoto() throws {
        var generator = SeededGenerator(seed: 50)
        for photo in [try yale("normal"), try stock(1), try stock(2)] {
            for _ in 0..<50 {
                let challenge = LivenessChallenge.random(using: &generator)
                var j = LivenessJudge(challenge: challenge)
                for frame in clip([(photo, 200)]) { j.observe(frame) }
                #expect(j.verdict != .passed && j.verdict != .watching(step: 0) && j.verdict != .watching(step: 1), "\(j.summary)")
            }
        }
    }
}

@Suite("Liveness rules")
struct LivenessRuleTests {
    let neutral = FaceReading(ear: 0.3, mar: 0.02, yaw: 0, pitch: 0, widthPixels: 200)

    @Test("a challenge draws two different actions; all twelve ordered pairs occur")
    func random() {
        var generator = SeededGenerator(seed: 1)
        var seen = Set<[LivenessAction]>()
        for _ in 0..<500 {
            let c = LivenessChallenge.random(using: &generator)
            #expect(c.actions.count == 2 && c.actions[0] != c.actions[1])
            seen.insert(c.actions)
        }
        #expect(seen.count == 12)
    }

    @Test("a lost face fails after a second; another face too")
    func lostFace() throws {
        var j = LivenessJudge(challenge: try LivenessChallenge(actions: [.blink, .turnLeft]))
        var frames = clip([(neutral, 5)])
        for i in 0..<12 { frames.append(KioskFrame(time: 0.5 + Double(i) / 10, faces: [])) }
        for f in frames { j.observe(f) }
        #expect(j.verdict == .failed("the face left the camera"))
        var k = LivenessJudge(challenge: try LivenessChallenge(actions: [.blink, .turnLeft]))
        frames = clip([(neutral, 5)])
        for i in 0..<12 { frames.append(KioskFrame(time: 0.5 + Double(i) / 10, faces: [neutral, neutral])) }
        for f in frames { k.observe(f) }
        #expect(k.verdict == .failed("another face came into view"))
    }

    @Test("glasses: the closed-eye threshold follows the person's own open EAR")
    func relativeEyes() throws {
        // Open eyes at EAR 0.42 behind strong glasses, closed at 0.28: over the fixed 0.24, yet a blink.
        let open = FaceReading(ear: 0.42, mar: 0.02, yaw: 0, pitch: 0, widthPixels: 200)
        let closed = FaceReading(ear: 0.28, mar: 0.02, yaw: 0, pitch: 0, widthPixels: 200)
        let j = try judge([.blink], clip([(open, 4), (closed, 2), (open, 2)]))
        #expect(j.verdict == .passed)
    }

    @Test("nothing after the verdict changes it; the audit summary names the steps")
    func summary() throws {
        let turned = FaceReading(ear: 0.3, mar: 0.02, yaw: -30, pitch: 0, widthPixels: 200)
        var j = try judge([.turnRight], clip([(neutral, 4), (turned, 3)]))
        #expect(j.verdict == .passed)
        j.observe(KioskFrame(time: 99, faces: []))
        #expect(j.verdict == .passed)
        #expect(j.summary.hasPrefix("turn-right: passed (turn-right 0."))
    }
}
