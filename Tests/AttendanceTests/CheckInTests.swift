import Attendance
import Foundation
import SentioTestSupport
import Testing

@Suite("Kiosk check-in")
struct CheckInTests {
    let neutral = FaceReading(ear: 0.3, mar: 0.02, yaw: 0, pitch: 0, widthPixels: 200)
    let blink = FaceReading(ear: 0.15, mar: 0.02, yaw: 0, pitch: 0, widthPixels: 200)
    let mouth = FaceReading(ear: 0.3, mar: 0.5, yaw: 0, pitch: 0, widthPixels: 200)
    /// Three people 1.0 apart in descriptor space (unit steps along different axes).
    func person(_ i: Int, offset: Float = 0) -> [Float] {
        var d = [Float](repeating: 0, count: 128)
        d[i] = 1
        d[127] = offset
        return d
    }
    var templates: [FaceTemplate] { (0..<3).map { FaceTemplate(personID: "p\($0)", model: .dlib, descriptors: [person($0)]) } }

    func run(_ session: inout CheckInSession, _ frames: [KioskFrame], descriptor: [Float]) throws -> CheckInSession.Step {
        var last: CheckInSession.Step?
        var wants = false
        for f in frames {
            last = try session.observe(f, descriptor: wants ? descriptor : nil)
            wants = last!.wantsDescriptor
            if wants { last = try session.observe(f, descriptor: descriptor); wants = last!.wantsDescriptor }
        }
        return try #require(last)
    }

    @Test("the chosen student, live: passes with the distance and the liveness record")
    func verified() throws {
        var s = try CheckInSession(claimed: "p1", templates: templates, challenge: try LivenessChallenge(actions: [.blink, .openMouth]), policy: .dlib)
        let step = try run(&s, clip([(neutral, 5), (blink, 2), (neutral, 4), (mouth, 3), (neutral, 3)]), descriptor: person(1, offset: 0.2))
        #expect(step.phase == .passed)
        #expect(abs((step.distance ?? 9) - 0.2) < 1e-6)
        #expect(s.livenessSummary.contains("passed"))
    }

    @Test("an impostor is refused after three seconds of tries, before any challenge")
    func impostor() throws {
        var s = try CheckInSession(claimed: "p1", templates: templates, challenge: try LivenessChallenge(actions: [.blink, .openMouth]), policy: .dlib)
        // Half a second (five frames at 10 a second) is not yet a refusal: time to adjust.
        let early = try run(&s, clip([(neutral, 5)]), descriptor: person(2))
        #expect(early.phase == .framing && early.message.contains("does not match yet"))
        // Three seconds of frames that do not match: refused.
        let step = try run(&s, clip([(neutral, 27)], start: 0.5), descriptor: person(2))
        #expect(step.phase == .failed)
        #expect(step.message.contains("does not match") && step.message.contains("3 s"), "\(step.message)")
    }

    @Test("a student who does not match at first (turned, poor light) passes once the face matches within the grace")
    func adjusts() throws {
        var s = try CheckInSession(claimed: "p1", templates: templates, challenge: try LivenessChallenge(actions: [.blink, .openMouth]), policy: .dlib)
        let early = try run(&s, clip([(neutral, 20)]), descriptor: person(2))
        #expect(early.phase == .framing)
        let step = try run(&s, clip([(neutral, 5), (blink, 2), (neutral, 4), (mouth, 3), (neutral, 3)], start: 2.0), descriptor: person(1, offset: 0.2))
        #expect(step.phase == .passed, "\(step.message)")
    }

    @Test("identification names the nearest student only when clearly nearest")
    func identification() throws {
        var s = try CheckInSession(claimed: nil, templates: templates, challenge: try LivenessChallenge(actions: [.openMouth]), policy: .dlib)
        let step = try run(&s, clip([(neutral, 5), (mouth, 3), (neutral, 3)]), descriptor: person(0, offset: 0.1))
        #expect(step.phase == .passed && step.personID == "p0")
        // Two enrolled people nearly the same distance away: nobody is named.
        let twins = [FaceTemplate(personID: "a", model: .dlib, descriptors: [person(0)]), FaceTemplate(personID: "b", model: .dlib, descriptors: [person(0, offset: 0.05)])]
        let m = try FaceMatcher.identify(person(0, offset: 0.025), among: twins, policy: .dlib)
        #expect(!m.accepted && m.personID == nil)
    }

    @Test("1:1 with the course as cohort: refused when a classmate is nearer, even within the threshold")
    func cohort() throws {
        // Two classmates 0.4 apart; the probe is 0.1 from p0 and 0.3 from p1.
        let close = [FaceTemplate(personID: "p0", model: .dlib, descriptors: [person(0)]), FaceTemplate(personID: "p1", model: .dlib, descriptors: [person(0, offset: 0.4)])]
        let probe = person(0, offset: 0.1)
        let asP1 = try FaceMatcher.verify(probe, against: close[1], cohort: close, policy: .dlib)
        #expect(!asP1.accepted && abs(asP1.distance - 0.3) < 1e-6 && abs((asP1.runnerUp ?? 0) - 0.1) < 1e-6)
        #expect(try FaceMatcher.verify(probe, against: close[1], policy: .dlib).accepted, "without the cohort the threshold alone accepts")
        #expect(try FaceMatcher.verify(probe, against: close[0], cohort: close, policy: .dlib).accepted)
    }

    @Test("everyone enrolled is the cohort: a look-alike from another course is refused 1:1 and not named 1:N")
    func institutionCohort() throws {
        // The course has p0 and p1; "x" is enrolled in another course, 0.3 from p1. The probe is
        // x's face: 0.1 from x, 0.2 from p1 (within the threshold), 1.0 from p0.
        var elsewhere = person(1, offset: 0.3)
        let course = [FaceTemplate(personID: "p0", model: .dlib, descriptors: [person(0)]), FaceTemplate(personID: "p1", model: .dlib, descriptors: [person(1)])]
        let everyone = course + [FaceTemplate(personID: "x", model: .dlib, descriptors: [elsewhere])]
        elsewhere[127] = 0.2
        let probe = elsewhere
        #expect(try FaceMatcher.verify(probe, against: course[1], cohort: course, policy: .dlib).accepted, "the course alone would accept")
        let refused = try FaceMatcher.verify(probe, against: course[1], cohort: everyone, policy: .dlib)
        #expect(!refused.accepted && abs((refused.runnerUp ?? 0) - 0.1) < 1e-6)
        #expect(try FaceMatcher.identify(probe, among: course, policy: .dlib).personID == "p1", "the course alone would name p1")
        #expect(try FaceMatcher.identify(probe, among: course, others: everyone, policy: .dlib).personID == nil)
        // Through the session: three seconds of refused tries end the check-in; p1's own face passes.
        var s = try CheckInSession(claimed: "p1", templates: course, cohort: everyone, challenge: try LivenessChallenge(actions: [.blink]), policy: .dlib)
        #expect(try run(&s, clip([(neutral, 32)]), descriptor: probe).phase == .failed)
        var own = try CheckInSession(claimed: "p1", templates: course, cohort: everyone, challenge: try LivenessChallenge(actions: [.blink]), policy: .dlib)
        #expect(try run(&own, clip([(neutral, 5), (blink, 2), (neutral, 4)]), descriptor: person(1, offset: 0.05)).phase == .passed)
    }

    @Test("frames that cannot serve say why and record nothing")
    func problems() throws {
        var s = try CheckInSession(claimed: "p1", templates: templates, challenge: try LivenessChallenge(actions: [.blink]), policy: .dlib)
        let small = FaceReading(ear: 0.3, mar: 0, yaw: 0, pitch: 0, widthPixels: 40)
        let turned = FaceReading(ear: 0.3, mar: 0, yaw: 40, pitch: 0, widthPixels: 200)
        #expect(try s.observe(KioskFrame(time: 0, faces: [])).problem == .noFace)
        #expect(try s.observe(KioskFrame(time: 0.1, faces: [neutral, neutral])).problem == .severalFaces)
        #expect(try s.observe(KioskFrame(time: 0.2, faces: [small])).problem == .tooSmall)
        #expect(try s.observe(KioskFrame(time: 0.3, faces: [turned])).problem == .turnedAway)
        #expect(try s.observe(KioskFrame(time: 0.4, faces: [blink])).problem == .eyesClosed)
        #expect(s.phase == .framing && s.match == nil)
    }

    @Test("a face swapped during the challenge fails the check after it")
    func swapped() throws {
        var s = try CheckInSession(claimed: "p1", templates: templates, challenge: try LivenessChallenge(actions: [.openMouth]), policy: .dlib)
        var step = try run(&s, clip([(neutral, 5)]), descriptor: person(1))
        #expect(step.phase == .challenge)
        step = try run(&s, clip([(mouth, 3), (neutral, 3)], start: 1), descriptor: person(2))
        #expect(step.phase == .failed)
    }

    @Test("a student with no enrolled face cannot start")
    func notEnrolled() {
        #expect(throws: AttendanceError.self) {
            try CheckInSession(claimed: "p9", templates: templates, challenge: try LivenessChallenge(actions: [.blink]), policy: .dlib)
        }
    }

    @Test("descriptors round-trip through the stored bytes; bad lengths are typed errors")
    func storage() throws {
        let d: [Float] = (0..<128).map { Float($0) / 7 - 3 }
        #expect(try FaceMatcher.decode(FaceMatcher.encode(d)) == d)
        #expect(throws: AttendanceError.self) { try FaceMatcher.decode(Data([1, 2, 3])) }
        #expect(throws: AttendanceError.self) { try FaceMatcher.distance([1, 2], [1]) }
    }

    @Test("CSV fields are quoted and formula-safe; parsing takes quotes and CRLF")
    func csv() throws {
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("=SUM(A1)") == "'=SUM(A1)")
        #expect(try CSV.parse("u,name\r\nann,\"Ann, B\"\r\n") == [["u", "name"], ["ann", "Ann, B"]])
        #expect(throws: AttendanceError.self) { try CSV.parse("a,\"b\n") }
    }
}
