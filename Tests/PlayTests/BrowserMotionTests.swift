import Foundation
import SentioMotion
import SentioTestSupport
import Testing
import Play

/// The browser differences the motion normaliser undoes, one test each, and the bad input it
/// keeps a stream going through. Expected values come from the definitions (1 g = 9.80665 m/s²,
/// π/180 rad per degree, a quarter turn of the screen) or from the same trace fused without the
/// difference.
@Suite("Browser motion")
struct BrowserMotionTests {
    static func sample(_ t: Double, acc: (Double, Double, Double) = (0, 0, 9.80665), rate: (Double, Double, Double) = (0, 0, 0), screen: Double? = nil) -> BrowserMotionSample {
        BrowserMotionSample(t: t, acceleration: (acc.0, acc.1, acc.2), rotationRate: (rate.0, rate.1, rate.2), screenAngle: screen)
    }

    @Test("rotation rate: °/s by default; rad/s from Chrome before 66, by its User-Agent")
    func rotationUnit() {
        let modern = BrowserProfile(userAgent: "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0.0.0 Mobile Safari/537.36")
        let old = BrowserProfile(userAgent: "Mozilla/5.0 (Linux; Android 7.0) AppleWebKit/537.36 Chrome/65.0.3325.109 Mobile Safari/537.36")
        #expect(modern.rotationRateUnit == .degreesPerSecond)
        #expect(old.rotationRateUnit == .radiansPerSecond)
        #expect(BrowserProfile(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1").rotationRateUnit == .degreesPerSecond)
        var a = MotionNormalizer(profile: modern), b = MotionNormalizer(profile: old)
        let x = a.normalize([Self.sample(16, rate: (90, 0, 0))]).samples[0].gyroscope
        let y = b.normalize([Self.sample(16, rate: (Double.pi / 2, 0, 0))]).samples[0].gyroscope
        #expect(abs(x.x - .pi / 2) < 1e-12 && abs(y.x - .pi / 2) < 1e-12, "90°/s and π/2 rad/s are both π/2 rad/s: \(x), \(y)")
    }

    @Test("axes that follow the screen are turned back into the device's", arguments: [(0.0, (1.0, 0.0)), (90, (0, 1)), (180, (-1, 0)), (270, (0, -1))])
    func screenAxes(angle: Double, reported: (Double, Double)) {
        // The device's +x edge as a screen-following browser reports it: on a screen turned a
        // quarter turn counter-clockwise, the device's right edge points up the picture.
        var n = MotionNormalizer(profile: BrowserProfile(axesFollowScreen: true))
        let s = n.normalize([Self.sample(16, acc: (reported.0 * 9.80665, reported.1 * 9.80665, 0), screen: angle)]).samples[0]
        #expect(abs(s.accelerometer.x - 1) < 1e-9 && abs(s.accelerometer.y) < 1e-9, "angle \(angle): \(s.accelerometer)")
        var fixed = MotionNormalizer()
        #expect(fixed.normalize([Self.sample(16, acc: (0, 9.80665, 0), screen: 90)]).samples[0].accelerometer.y > 0.99,
                "a browser with device-fixed axes is left alone")
    }

    @Test("60 Hz with values rounded to 0.1: fused attitude within 1° of the unrounded samples", .requires(fixture: "imu/broad"))
    func roundedSixtyHertz() throws {
        let fixtures = try Fixtures.required("imu/broad/02_undisturbed_slow_rotation_B.csv.gz")
        let samples = try Trace.read(Trace.text(contentsOf: fixtures + "/imu/broad/02_undisturbed_slow_rotation_B.csv.gz"))
        let resampled = Self.resample(samples, hz: 60)
        func fuse(_ raw: [BrowserMotionSample]) -> [Quaternion] {
            var n = MotionNormalizer()
            let session = MotionSession()
            return n.normalize(raw).samples.map { s in let o = session.process(s); return Quaternion(w: o.quaternion[0], x: o.quaternion[1], y: o.quaternion[2], z: o.quaternion[3]) }
        }
        let exact = fuse(resampled.map { Self.browser($0, round: false) })
        let rounded = fuse(resampled.map { Self.browser($0, round: true) })
        let worst = zip(exact, rounded).map { Self.angle($0, $1) }.max() ?? .infinity
        #expect(exact.count == resampled.count && worst < 1, "largest difference \(worst)° over \(exact.count) samples")
    }

    @Test("bad input: missing and non-finite values, duplicate and backward times dropped and counted; a gap closed up")
    func badInput() {
        var n = MotionNormalizer()
        let raw = [Self.sample(16), BrowserMotionSample(t: 32, acceleration: (nil, 0, 9.8), rotationRate: (0, 0, 0)),
                   Self.sample(33, acc: (.nan, 0, 9.8)), Self.sample(33), Self.sample(33), Self.sample(20),
                   BrowserMotionSample(t: 40, acceleration: nil, rotationRate: nil), Self.sample(5033), Self.sample(5050)]
        let (kept, notes) = n.normalize(raw)
        #expect(kept.map(\.time).count == 4)
        #expect(notes.missing == 3 && notes.outOfOrder == 2 && notes.gaps == 1, "\(notes)")
        let steps = zip(kept.dropFirst(), kept).map { $0.time - $1.time }
        #expect(steps.allSatisfy { $0 > 0 && $0 < 0.02 }, "times still increase, the 5 s gap closed to one period: \(steps)")
        // One timestamp a minute ahead, then the stream's own times again: both jumps closed, no
        // sample after it shut out.
        let (later, jumps) = n.normalize([Self.sample(65050), Self.sample(5067), Self.sample(5084)])
        #expect(later.count == 3 && jumps.gaps == 2 && jumps.outOfOrder == 0, "\(jumps)")
        #expect(zip(later.dropFirst(), later).allSatisfy { $0.time - $1.time > 0 && $0.time - $1.time < 0.02 })
    }

    @Test("a stalled stream's rotation rate is not integrated over the gap")
    func stall() {
        // Turning at 90°/s about z for a second, a 3 s stall, then still: without closing the gap
        // the first sample after it would add 270°.
        var n = MotionNormalizer()
        let session = MotionSession()
        var raw = (1...60).map { Self.sample(Double($0) * 1000 / 60, rate: (0, 0, 90)) }
        raw.append(Self.sample(4000))
        let out = n.normalize(raw).samples.map { session.process($0) }
        let before = out[out.count - 2].yawDeg, after = out[out.count - 1].yawDeg
        #expect(abs(after - before) < 3, "yaw \(before)° → \(after)°")
    }

    @Test("every constructed flick fires one throw, rounded to 0.1 m/s² at 60 Hz; none at rest")
    func flicks() {
        var n = MotionNormalizer()
        let session = MotionSession()
        let raw = ConstructedMotion.flicks(count: 5, peakG: 2.5)
        let events = n.normalize(raw).samples.flatMap { session.process($0).events }.filter { $0.gesture == .throw }
        #expect(events.count == 5, "\(events)")
        var m = MotionNormalizer()
        let rest = MotionSession()
        let still = m.normalize(ConstructedMotion.rest(seconds: 10)).samples.flatMap { rest.process($0).events }
        #expect(still.isEmpty, "\(still)")
    }

    // MARK: helpers

    /// Linear interpolation of a trace at `hz`, as a browser would sample it.
    static func resample(_ s: [IMUSample], hz: Double) -> [IMUSample] {
        guard let first = s.first, let last = s.last else { return [] }
        var out: [IMUSample] = [], j = 0, t = first.time
        while t <= last.time {
            while j + 1 < s.count && s[j + 1].time < t { j += 1 }
            let a = s[j], b = s[min(j + 1, s.count - 1)]
            let f = b.time > a.time ? (t - a.time) / (b.time - a.time) : 0
            out.append(IMUSample(time: t, gyroscope: a.gyroscope + (b.gyroscope - a.gyroscope) * f,
                                 accelerometer: a.accelerometer + (b.accelerometer - a.accelerometer) * f))
            t += 1 / hz
        }
        return out
    }

    /// A library sample as Chromium would deliver it (m/s², °/s, ms), optionally rounded to 0.1.
    static func browser(_ s: IMUSample, round: Bool) -> BrowserMotionSample {
        func r(_ v: Double) -> Double { round ? (v * 10).rounded() / 10 : v }
        let g = 9.80665, d = 180 / Double.pi
        return BrowserMotionSample(t: s.time * 1000, acceleration: (r(s.accelerometer.x * g), r(s.accelerometer.y * g), r(s.accelerometer.z * g)),
                                   rotationRate: (r(s.gyroscope.x * d), r(s.gyroscope.y * d), r(s.gyroscope.z * d)))
    }

    static func angle(_ a: Quaternion, _ b: Quaternion) -> Double {
        let dot = abs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z)
        return 2 * acos(min(1, dot)) * 180 / .pi
    }
}
