import Foundation
import SentioMotion
import SentioTestSupport
import Testing

@Suite("IMU traces")
struct TraceTests {
    static let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"

    static let malformedCases: [(String, TraceError)] = [
        ("", .unreadable("no header line")),
        ("# only a comment\n", .unreadable("no header line")),
        ("t,gyr_x,gyr_y,acc_x,acc_y,acc_z\n0,0,0,0,0,9.8\n", .missingColumns(["gyr_z"])),
        ("time,a,b\n", .missingColumns(["t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"])),
        (header + "\n0,0,0,0,0,0,9.8\n0.01,0,nan,0,0,0,9.8\n", .badValue(line: 3, column: "gyr_y", text: "nan")),
        (header + "\n0,0,0,0,0,0,inf\n", .badValue(line: 2, column: "acc_z", text: "inf")),
        (header + "\n0,0,0,0,0,zero,9.8\n", .badValue(line: 2, column: "acc_y", text: "zero")),
        (header + "\n0,0,0,0,0\n", .badValue(line: 2, column: "acc_y", text: "")),
        (header + "\n# comment\n0.02,0,0,0,0,0,9.8\n0.01,0,0,0,0,0,9.8\n", .timeNotIncreasing(line: 4)),
        (header + "\n0.02,0,0,0,0,0,9.8\n0.02,0,0,0,0,0,9.8\n", .timeNotIncreasing(line: 3)),
    ]

    @Test("Malformed traces give an error that names the line and column", arguments: malformedCases)
    func malformed(text: String, expected: TraceError) {
        #expect(throws: expected) { try Trace.read(text) }
    }

    @Test("Columns are found by name, extra columns ignored; accelerations in g or m/s² become g")
    func columnsByName() throws {
        let text = "acc_z,acc_y,acc_x,extra,gyr_z,gyr_y,gyr_x,t\n1,0,0,hello,0.5,0,0,0.25\n"
        let samples = try Trace.read(text, accelerationUnit: .g)
        #expect(samples == [IMUSample(time: 0.25, gyroscope: Vector3(0, 0, 0.5), accelerometer: Vector3(0, 0, 1))])
        // 9.80665 m/s² is one g exactly (standard gravity).
        let metric = try Trace.read("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,-9.80665,19.6133\n")
        #expect((metric[0].accelerometer - Vector3(0, -1, 2)).norm < 1e-15)
    }

    @Test("write then read gives the same samples, with and without the magnetometer")
    func roundTrip() throws {
        var random = SeededRandom(seed: 8)
        for magnetic in [false, true] {
            let samples = (0 ..< 50).map { i in
                IMUSample(time: Double(i) * 0.0035, gyroscope: Vector3(random.uniform(-5, 5), random.uniform(-5, 5), random.uniform(-5, 5)),
                          accelerometer: Vector3(random.uniform(-30, 30), random.uniform(-30, 30), random.uniform(-30, 30)),
                          magnetometer: magnetic ? Vector3(random.uniform(-60, 60), 1e-7, -42.123456789) : nil)
            }
            #expect(try Trace.read(Trace.write(samples, accelerationUnit: .g), accelerationUnit: .g) == samples)
            // Through m/s² (the default unit of files) the accelerations come back to rounding.
            let metric = try Trace.read(Trace.write(samples))
            #expect(zip(metric, samples).allSatisfy { ($0.accelerometer - $1.accelerometer).norm < 1e-13 && $0.time == $1.time && $0.gyroscope == $1.gyroscope })
        }
    }

    @Test("Mutated traces never crash the reader: they parse or throw a TraceError")
    func fuzz() {
        var random = SeededRandom(seed: 88)
        let seed = Array(Trace.write((0 ..< 20).map { IMUSample(time: Double($0) / 100, gyroscope: Vector3(0.1, -0.2, 0.3),
                                                                        accelerometer: Vector3(0, 0.5, 9.8), magnetometer: Vector3(20, 5, -40)) }).utf8)
        let alphabet = Array("0123456789.,-+eE\n#nai t_xyz".utf8)
        var parsed = 0, rejected = 0
        for _ in 0 ..< 3000 {
            var bytes = seed
            for _ in 0 ..< 1 + random.below(6) {
                let at = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[at] = random.below(4) == 0 ? UInt8(random.below(256)) : alphabet[random.below(alphabet.count)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[random.below(alphabet.count)], at: at)
                }
            }
            do {
                let samples = try Trace.read(String(decoding: bytes, as: UTF8.self))
                #expect(samples.allSatisfy { $0.time.isFinite && $0.accelerometer.norm.isFinite })
                parsed += 1
            } catch is TraceError { rejected += 1 } catch { Issue.record("unexpected error \(error)") }
        }
        // Both outcomes must occur, or the mutations are not reaching the checks.
        #expect(parsed > 100 && rejected > 100, "parsed \(parsed), rejected \(rejected)")
    }
}

extension SeededRandom {
    mutating func uniform(_ low: Double, _ high: Double) -> Double { Double.random(in: low ... high, using: &self) }
    mutating func below(_ n: Int) -> Int { Int.random(in: 0 ..< n, using: &self) }
}

@Suite("Device motion")
struct DeviceMotionTests {
    /// A device at rest, tilted by a known angle about x (worked out by hand: the accelerometer
    /// reads the reaction to gravity, g·(0, sin θ, cos θ) for a tilt θ about x).
    @Test("At rest the accelerometer is all gravity; user acceleration is zero and the tilt is found")
    func rest() {
        let tilt = 30.0 * .pi / 180
        var fusion = MotionFusion(useMagnetometer: false)
        var last: DeviceMotion?
        for i in 0 ..< 2000 {
            let acc = Vector3(0, sin(tilt), cos(tilt))
            last = fusion.update(IMUSample(time: Double(i) / 200, gyroscope: Vector3(0.002, -0.001, 0.0005), accelerometer: acc))
        }
        let m = last!
        #expect(m.userAcceleration.norm < 0.002, "user acceleration \(m.userAcceleration) g")
        #expect(abs(m.gravity.norm - 1) < 1e-9)
        #expect(abs(abs(m.attitude.pitch) - tilt) < 0.3 * .pi / 180, "pitch \(m.attitude.pitch * 180 / .pi)°")
        // The constant gyroscope offset is learned as bias while resting.
        #expect((fusion.filter.gyroscopeBias - Vector3(0.002, -0.001, 0.0005)).norm < 2e-4, "bias \(fusion.filter.gyroscopeBias)")
    }

    /// A push along the device's x axis while it lies flat: the user acceleration is the push.
    @Test("A push shows up as user acceleration, not as a tilt")
    func push() {
        var fusion = MotionFusion(useMagnetometer: false)
        for i in 0 ..< 1000 { _ = fusion.update(IMUSample(time: Double(i) / 200, gyroscope: .zero, accelerometer: Vector3(0, 0, 1))) }
        let m = fusion.update(IMUSample(time: 5.005, gyroscope: .zero, accelerometer: Vector3(0.4, 0, 1)))
        #expect((m.userAcceleration - Vector3(0.4, 0, 0)).norm < 0.005, "user acceleration \(m.userAcceleration) g")
    }
}

@Suite("Magnetic disturbances")
struct MagneticTests {
    /// A flat device in a 48 µT field pointing north (heading 0). From 5 s to 15 s a magnet
    /// turns the field by 30° and strengthens it by 30%: rejected, the heading must stay near 0.
    /// From 20 s the field turns 30° for good (as in another room, same strength ×1.3). While the
    /// device stays still, that cannot be told from a magnet fixed to the device, so the field
    /// stays out and the heading stays near 0 (the rule that learned any field lasting 20 s
    /// took a magnet on the device for north: BROAD's attached-magnet trials). From 60 s the
    /// device turns about the vertical (30°/s, four full turns): the new field keeps its
    /// magnitude and dip in the earth frame as it turns, as no device-fixed one does, so it
    /// becomes the reference and the heading follows to 30° by the end (60 s still after).
    @Test("A brief magnet is ignored; a lasting new field is learned once the device turns")
    func disturbance() {
        let north = Vector3(0, 20, -43.6)
        let turned = Quaternion(axis: Vector3(0, 0, 1), angle: 30 * .pi / 180).rotate(north) * 1.3
        let rate = 30 * Double.pi / 180
        var fusion = MotionFusion(useMagnetometer: true)
        var headingDuringMagnet = 0.0, headingStill = 0.0, finalHeading = 0.0
        for i in 0 ..< 168 * 100 {
            let t = Double(i) / 100
            let turning = t >= 60 && t < 108
            // The device's yaw: 0 until 60 s, then turning, back at 4 × 360° = 0 from 108 s.
            let yaw = turning ? rate * (t - 60) : 0
            let field = (t >= 5 && t < 15) || t >= 20 ? turned : north
            let sensor = Quaternion(axis: Vector3(0, 0, 1), angle: -yaw).rotate(field)
            let m = fusion.update(IMUSample(time: t, gyroscope: Vector3(0, 0, turning ? rate : 0), accelerometer: Vector3(0, 0, 1),
                                            magnetometer: sensor))
            if t >= 5 && t < 15 { headingDuringMagnet = max(headingDuringMagnet, abs(m.attitude.yaw)) }
            if t >= 20 && t < 60 { headingStill = max(headingStill, abs(m.attitude.yaw)) }
            finalHeading = m.attitude.yaw
        }
        #expect(headingDuringMagnet * 180 / .pi < 1, "heading moved \(headingDuringMagnet * 180 / .pi)° under the magnet")
        #expect(headingStill * 180 / .pi < 1, "heading moved \(headingStill * 180 / .pi)° in the new field before the device turned")
        #expect(abs(abs(finalHeading) * 180 / .pi - 30) < 2, "final heading \(finalHeading * 180 / .pi)°")
    }
}
