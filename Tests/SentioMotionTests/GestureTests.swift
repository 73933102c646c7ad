import Foundation
import SentioMotion
import SentioTestSupport
import Testing

/// Gesture detectors on constructed traces, whose expected events are worked out by hand in
/// each test, and on a recorded BROAD trial against the optical ground truth.
@Suite("Gestures")
struct GestureTests {
    /// Device motion whose user acceleration is `g` (in g) for a device lying flat.
    static func motion(_ time: Double, _ g: Vector3) -> DeviceMotion {
        DeviceMotion(sample: IMUSample(time: time, gyroscope: .zero, accelerometer: g + Vector3(0, 0, 1)),
                            attitude: Attitude(quaternion: .identity))
    }

    /// Along +y: 0, 0.5, 1.2, 1.8, 1.5, 0.4 g. The game's rule fires on 0.4 (back below 1.0) with
    /// the force of the last sample above (1.5); the any-direction detector reports the peak, 1.8.
    @Test("Throw: the original rule takes the last force above the threshold, the new one the peak")
    func throwForces() throws {
        var faithful = FaithfulThrowDetector(), anyDirection = ThrowDetector()
        var events: [(ThrowEvent?, ThrowEvent?)] = []
        for (i, a) in [0, 0.5, 1.2, 1.8, 1.5, 0.4].enumerated() {
            let m = Self.motion(Double(i) * 0.01, Vector3(0, a, 0))
            events.append((faithful.update(m), anyDirection.update(m)))
        }
        #expect(events.dropLast().allSatisfy { $0.0 == nil && $0.1 == nil })
        let (f, p) = try (#require(events.last?.0), #require(events.last?.1))
        #expect(abs(f.force - 1.5) < 1e-12 && abs(f.time - 0.05) < 1e-12)
        #expect(abs(p.force - 1.8) < 1e-12 && (p.direction - Vector3(0, 1, 0)).norm < 1e-12)
    }

    /// A sideways throw (along −x, 2 g) is invisible to the original y-axis rule but caught by
    /// the any-direction detector; a 0.9 g push is no throw at all.
    @Test("Throw: direction and threshold")
    func throwDirection() {
        var faithful = FaithfulThrowDetector(), anyDirection = ThrowDetector()
        var fired = (0, 0)
        for (i, a) in [Vector3(0, 0.9, 0), .zero, Vector3(-2, 0, 0), .zero].enumerated() {
            let m = Self.motion(Double(i) * 0.5, a)
            if faithful.update(m) != nil { fired.0 += 1 }
            if let e = anyDirection.update(m) { fired.1 += 1; #expect((e.direction - Vector3(-1, 0, 0)).norm < 1e-12) }
        }
        #expect(fired == (0, 1))
    }

    /// Four swings of ±2 g along x at 10 Hz are three reversals: a shake. The same swings spread
    /// over 2 s (beyond the 1 s window) or one strong push are not.
    @Test("Shake needs three reversals within a second")
    func shake() {
        func shakes(_ accelerations: [Double], every step: Double) -> Int {
            var detector = ShakeDetector()
            return accelerations.enumerated().filter { detector.update(Self.motion(Double($0.offset) * step, Vector3($0.element, 0, 0))) }.count
        }
        #expect(shakes([2, -2, 2, -2], every: 0.1) == 1)
        #expect(shakes([2, -2, 2, -2], every: 0.6) == 0)
        #expect(shakes([2, 2, 2, 0, 0], every: 0.1) == 0)
    }

    static func yawed(_ degrees: Double) -> Attitude { Attitude(quaternion: Quaternion(axis: Vector3(0, 0, 1), angle: degrees * .pi / 180)) }
    static func pitched(_ degrees: Double) -> Attitude { Attitude(quaternion: Quaternion(axis: Vector3(1, 0, 0), angle: degrees * .pi / 180)) }

    @Test("Full turn: yaw must keep turning one way through 360°; pitch must visit all four quarters")
    func fullTurn() {
        func turns(_ axis: FullTurnTracker.Axis, _ path: [Double], _ attitude: (Double) -> Attitude) -> Int {
            var tracker = FullTurnTracker(axis: axis)
            return path.filter { tracker.update(attitude($0)) }.count
        }
        let around = Array(stride(from: 0.0, through: 370, by: 2))
        #expect(turns(.yaw, around, Self.yawed) == 1)
        #expect(turns(.yaw, around.reversed(), Self.yawed) == 1)
        // 200° forward, back to 150° (50° back, beyond the 15° slack), then on to 400°: the turn
        // restarts at 150° and reaches only 250°.
        let back = Array(stride(from: 0.0, through: 200, by: 2)) + Array(stride(from: 198.0, through: 150, by: -2))
            + Array(stride(from: 152.0, through: 400, by: 2))
        #expect(turns(.yaw, back, Self.yawed) == 0)
        // A 10° wobble back is within the slack.
        let wobble = Array(stride(from: 0.0, through: 200, by: 2)) + Array(stride(from: 198.0, through: 190, by: -2))
            + Array(stride(from: 192.0, through: 370, by: 2))
        #expect(turns(.yaw, wobble, Self.yawed) == 1)
        #expect(turns(.pitch, Array(stride(from: -80.0, through: 80, by: 5)), Self.pitched) == 1)
        #expect(turns(.pitch, Array(stride(from: -80.0, through: 30, by: 5)), Self.pitched) == 0)
    }

    /// Roll 0.1 rad held, gain 80, damping 0.9: v₁ = 8, v₂ = 0.9·8 + 8 = 15.2, limit 8/(1−0.9) = 80.
    @Test("Tilt steering integrates tilt with damping")
    func tilt() {
        var steering = TiltSteering()
        let rolled = Attitude(quaternion: Quaternion(axis: Vector3(0, 1, 0), angle: 0.1))
        #expect(abs(steering.update(rolled).x - 8) < 1e-9)
        #expect(abs(steering.update(rolled).x - 15.2) < 1e-9)
        for _ in 0 ..< 500 { _ = steering.update(rolled) }
        #expect(abs(steering.velocity.x - 80) < 1e-6 && abs(steering.velocity.y) < 1e-9)
    }

    /// On a recorded trial the full-turn trackers fed with Sentio's attitude must count the same
    /// turns as fed with the optical ground truth (gaps in the truth held at the last value).
    @Test("Full turns on a recorded BROAD trial match the ground truth's", .requires(fixture: "imu/broad/07_undisturbed_fast_rotation_B.csv.gz"))
    func recordedTurns() throws {
        let fixtures = try Fixtures.required("imu/broad/07_undisturbed_fast_rotation_B.csv.gz")
        let text = try Trace.text(contentsOf: fixtures + "/imu/broad/07_undisturbed_fast_rotation_B.csv.gz")
        let (samples, reference) = try Trace.readWithGroundTruth(text)
        let truth = try #require(reference)
        var fusion = MotionFusion(useMagnetometer: true)
        var counts: [String: (Int, Int)] = [:]
        for axis in [FullTurnTracker.Axis.roll, .pitch, .yaw] {
            var estimated = FullTurnTracker(axis: axis), reference = FullTurnTracker(axis: axis)
            var held: Quaternion?
            var n = (0, 0)
            fusion.reset()
            for (i, s) in samples.enumerated() {
                if estimated.update(fusion.update(s).attitude) { n.0 += 1 }
                held = truth.attitudes[i] ?? held
                if let q = held, reference.update(Attitude(quaternion: q)) { n.1 += 1 }
            }
            counts[axis.rawValue] = n
        }
        print("BROAD 07 full turns (sentio, truth): \(counts)")
        #expect(counts.values.allSatisfy { $0.0 == $0.1 })
        #expect(counts.values.contains { $0.1 > 0 }, "the trial should contain full turns")
    }
}
