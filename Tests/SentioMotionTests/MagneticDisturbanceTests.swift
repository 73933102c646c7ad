import Foundation
import SentioMotion
import SentioTestSupport
import Testing

/// The heading through magnetic disturbances: a magnet attached to the device (the
/// `DeviceFixedField` fit), and BROAD's disturbed trials against VQF's measured errors.
@Suite("Attached magnets, and BROAD's disturbed trials", .serialized)
struct MagneticDisturbanceTests {
    static let degree = Double.pi / 180

    /// A device tumbling about a wandering axis at 200 Hz for `duration` s, with a little noise,
    /// in a 48 µT field (dip about 65°), and its true attitudes; `magnet` (sensor frame, µT) is
    /// added to the field between `from` and `to` s.
    static func tumbling(duration: Double, magnet: Vector3, from: Double, to: Double) -> ([IMUSample], [Quaternion]) {
        var random = SeededRandom(seed: 20)
        func noise(_ size: Double) -> Vector3 {
            Vector3(Double.random(in: -size ... size, using: &random), Double.random(in: -size ... size, using: &random),
                    Double.random(in: -size ... size, using: &random))
        }
        var attitude = Quaternion.identity
        var samples: [IMUSample] = [], truth: [Quaternion] = []
        for i in 0 ..< Int(duration * 200) {
            let t = Double(i) / 200
            let w = Vector3(sin(t * 0.7), cos(t * 0.3), 0.5 * sin(t * 1.1))
            attitude = (attitude * Quaternion(rotationVector: w * 0.005)).normalized
            let inverse = attitude.conjugate
            var field = inverse.rotate(Vector3(0, 20, -43.6)) + noise(0.5)
            if t >= from && t < to { field = field + magnet }
            samples.append(IMUSample(time: t, gyroscope: w + noise(0.005), accelerometer: inverse.rotate(Vector3(0, 0, 1)) + noise(0.002),
                                     magnetometer: field))
            truth.append(attitude)
        }
        return (samples, truth)
    }

    static func heading(_ samples: [IMUSample], _ truth: [Quaternion], after start: Double) -> Double {
        var filter = SentioAttitudeFilter()
        let estimates = estimate(&filter, samples, useMagnetometer: true)
        return AttitudeError.rmse(estimates: estimates, truth: truth, counted: samples.map { $0.time >= start }).heading
    }

    @Test("a magnet attached to a turning device: the heading stays as good as without it")
    func attachedMagnetSynthetic() {
        let clean = Self.tumbling(duration: 240, magnet: .zero, from: 0, to: 0)
        let magnet = Vector3(30, -20, 25)  // 45 µT, about the earth's field: at 1–2 cm, a small magnet's
        let disturbed = Self.tumbling(duration: 240, magnet: magnet, from: 60, to: 200)
        let e0 = Self.heading(clean.0, clean.1, after: 60), e1 = Self.heading(disturbed.0, disturbed.1, after: 60)
        print(String(format: "synthetic tumbling, heading RMSE after 60 s: %.2f° clean, %.2f° with a 45 µT magnet attached from 60 to 200 s", e0, e1))
        // Rejecting the field alone leaves the gyroscope's drift (small here: its noise is
        // small), and accepting it turns the heading by tens of degrees; the fit must do better
        // than both ways of being wrong: within 1° of the clean run.
        #expect(e1 < e0 + 1)
    }

    static func trial(_ name: String) throws -> (samples: [IMUSample], truth: GroundTruth) {
        let fixtures = try Fixtures.required("imu/broad/\(name).csv.gz")
        let trace = try Trace.readWithGroundTruth(Trace.text(contentsOf: "\(fixtures)/imu/broad/\(name).csv.gz"))
        return (trace.samples, try #require(trace.truth))
    }

    static func total(_ samples: [IMUSample], _ truth: GroundTruth) -> Double {
        var filter = SentioAttitudeFilter()
        return AttitudeError.rmse(estimates: estimate(&filter, samples, useMagnetometer: true), truth: truth.attitudes, counted: truth.counted).total
    }

    /// VQF's errors on the two disturbed fixture trials (`scripts/bench-motion`: PyPI `vqf`
    /// 2.x, default parameters, causal, the same metric): 1.62° and 2.57° total 9D. The issue's
    /// bar is never to be worse than VQF on a disturbed trial.
    @Test("BROAD's disturbed fixture trials: no worse than VQF",
          .requires(fixture: "imu/broad/25_disturbed_tapping_B.csv.gz", "imu/broad/30_disturbed_stationary_magnet_C.csv.gz"))
    func disturbedTrials() throws {
        for (name, vqf) in [("25_disturbed_tapping_B", 1.62), ("30_disturbed_stationary_magnet_C", 2.57)] {
            let (samples, truth) = try Self.trial(name)
            let e = Self.total(samples, truth)
            print(String(format: "BROAD %@: sentio 9D total %.2f° (VQF %.2f°)", name, e, vqf))
            #expect(e <= vqf, "\(name): \(e)° against VQF's \(vqf)°")
        }
    }

    /// The fixtures have no trial with a magnet on the device, so one is made from the
    /// undisturbed ones: a constant 60 µT in sensor coordinates (a magnet fixed to the IMU)
    /// from 40 s to 40 s before the end.
    @Test("BROAD's undisturbed trials with a magnet attached: within 0.3° of the trial without",
          .requires(fixture: "imu/broad/02_undisturbed_slow_rotation_B.csv.gz", "imu/broad/07_undisturbed_fast_rotation_B.csv.gz"))
    func attachedMagnetOnBroad() throws {
        let h = Vector3(1, -2, 0.5).normalized * 60
        for name in ["02_undisturbed_slow_rotation_B", "07_undisturbed_fast_rotation_B"] {
            let (samples, truth) = try Self.trial(name)
            let end = samples[samples.count - 1].time
            let disturbed = samples.map { s in
                var s = s
                if s.time >= 40 && s.time <= end - 40, let m = s.magnetometer { s.magnetometer = m + h }
                return s
            }
            let e0 = Self.total(samples, truth), e1 = Self.total(disturbed, truth)
            print(String(format: "BROAD %@: sentio 9D total %.2f°, with a 60 µT magnet attached %.2f°", name, e0, e1))
            #expect(e1 < e0 + 0.3, "\(name): \(e1)° with the magnet, \(e0)° without")
        }
    }

    /// A magnet attached while the gyroscope's frame drifts against north: a gyroscope's scale
    /// error turns the 6D frame with every turn about the vertical (`HeadingDrift`); on trials 35
    /// and 36 (weak magnets attached before any undisturbed turning) that drift was 0.13–0.2°/s,
    /// and a fit that holds the earth's field constant in that frame lagged it by 2–3°. Here the
    /// gyroscope of trial 02 is scaled by a further ±1 % (`HeadingDrift.scaleSpread`, the
    /// calibrated accuracy of MEMS sensitivity) and a 60 µT magnet is attached from 40 s to 40 s
    /// before the end. Measured (scripts as in docs/motion.md): without the drift term (commit
    /// 736c478) the magnet costs 1.6° at both scales (2.04° → 3.65°, 1.54° → 3.15°); with it
    /// 0.9° and 0.8°. Bound: 1°, between the two.
    @Test("an attached magnet while the gyroscope's scale error turns its frame: within 1° of the trace without",
          .requires(fixture: "imu/broad/02_undisturbed_slow_rotation_B.csv.gz"))
    func attachedMagnetWithScaleError() throws {
        let (samples, truth) = try Self.trial("02_undisturbed_slow_rotation_B")
        let end = samples[samples.count - 1].time
        let h = Vector3(1, -2, 0.5).normalized * 60
        for scale in [0.99, 1.01] {
            let scaled = samples.map { s in
                var s = s
                s.gyroscope = s.gyroscope * scale
                return s
            }
            let disturbed = scaled.map { s in
                var s = s
                if s.time >= 40 && s.time <= end - 40, let m = s.magnetometer { s.magnetometer = m + h }
                return s
            }
            let e0 = Self.total(scaled, truth), e1 = Self.total(disturbed, truth)
            print(String(format: "BROAD 02, gyroscope ×%.2f: sentio 9D total %.2f°, with a 60 µT magnet attached %.2f°", scale, e0, e1))
            #expect(e1 < e0 + 1, "gyroscope ×\(scale): \(e1)° with the magnet, \(e0)° without")
        }
    }

    /// A magnet attached while the device lies still, before any undisturbed turning, as on
    /// BROAD's trials 35 and 36: the magnetometer's delay (about 13 ms on the fixtures) is then
    /// unknown when the tumbling starts, unless it is learned through the disturbance
    /// (`DeviceFixedField.innovation`), and the fit's prior must drift with the gyroscope's frame.
    /// Trial 07 (fast rotation, 200°/s and more) with 20 or 60 µT fixed to the sensor from 10 s
    /// (the movement starts at 26 s) to the end. Measured (docs/motion.md, third round): the filter
    /// of 5f7d0c2 14.8° and 11.9° (its fit kept missing the samples by the delay's error and
    /// starting over), this one 1.47° and 1.46°; without the magnet 1.75°. Bound: 0.3° over the
    /// trace without, as for the magnets attached after turning above.
    @Test("a magnet attached before any turning, then fast rotation: within 0.3° of the trace without",
          .requires(fixture: "imu/broad/07_undisturbed_fast_rotation_B.csv.gz"))
    func magnetBeforeTurning() throws {
        let (samples, truth) = try Self.trial("07_undisturbed_fast_rotation_B")
        let e0 = Self.total(samples, truth)
        for size in [20.0, 60.0] {
            let h = Vector3(1, -2, 0.5).normalized * size
            let disturbed = samples.map { s in
                var s = s
                if s.time >= 10, let m = s.magnetometer { s.magnetometer = m + h }
                return s
            }
            let e1 = Self.total(disturbed, truth)
            print(String(format: "BROAD 07: sentio 9D total %.2f°, with a %.0f µT magnet attached from 10 s to the end %.2f°", e0, size, e1))
            #expect(e1 < e0 + 0.3, "\(size) µT: \(e1)° with the magnet, \(e0)° without")
        }
    }
}
