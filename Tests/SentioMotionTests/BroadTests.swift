import Foundation
import SentioMotion
import SentioTestSupport
import Testing

@Suite("Attitude on BROAD", .serialized)
struct BroadTests {
    static func trials() -> [(String, [IMUSample], [Quaternion?], [Bool])] {
        guard let fixtures = Fixtures.directory(repository: Fixtures.repository(from: #filePath, levels: 3)) else { return [] }
        let folder = fixtures + "/imu/broad"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.filter { $0.hasSuffix(".csv.gz") }.sorted() ?? []
        return names.compactMap { name in
            guard let text = try? Trace.text(contentsOf: folder + "/" + name),
                  let (samples, truth) = try? Trace.readWithGroundTruth(text), let truth else { return nil }
            return (name, samples, truth.attitudes, truth.counted)
        }
    }

    @Test("Sentio's filter against Madgwick and Mahony on the BROAD trials (errors in degrees)", .requires(fixture: "imu/broad"))
    func broad() throws {
        _ = try Fixtures.required("imu/broad")
        let trials = Self.trials()
        #expect(trials.count >= 5, "read \(trials.count) BROAD trials with ground truth")
        var sums: [String: (Double, Double, Double, Double)] = [:]
        for (name, samples, truth, counted) in trials {
            var sentio9 = SentioAttitudeFilter(), sentio6 = SentioAttitudeFilter()
            var madgwick = MadgwickFilter.baseline, mahony = MahonyFilter.baseline
            let e9 = AttitudeError.rmse(estimates: estimate(&sentio9, samples, useMagnetometer: true), truth: truth, counted: counted)
            // The live path (MotionFusion, which must guess the first sample period) agrees with
            // the offline loop: a wrong first guess once froze the accelerometer filter's design.
            var fusion = MotionFusion(useMagnetometer: true)
            let live = AttitudeError.rmse(estimates: samples.map { fusion.update($0).attitude.quaternion }, truth: truth, counted: counted)
            #expect(abs(live.total - e9.total) < 0.05 && abs(live.inclination - e9.inclination) < 0.05, "live \(live) offline \(e9)")
            let e6 = AttitudeError.rmse(estimates: estimate(&sentio6, samples, useMagnetometer: false), truth: truth, counted: counted)
            let em = AttitudeError.rmse(estimates: estimate(&madgwick, samples, useMagnetometer: true), truth: truth, counted: counted)
            let eh = AttitudeError.rmse(estimates: estimate(&mahony, samples, useMagnetometer: true), truth: truth, counted: counted)
            print(String(format: "BROAD %@: sentio 9D total %.2f incl %.2f | 6D incl %.2f | madgwick 9D %.2f | mahony 9D %.2f",
                         name as NSString, e9.total, e9.inclination, e6.inclination, em.total, eh.total))
            for (k, e) in [("sentio", e9), ("madgwick", em), ("mahony", eh)] {
                let s = sums[k, default: (0, 0, 0, 0)]
                sums[k] = (s.0 + e.total, s.1 + e.inclination, s.2 + (k == "sentio" ? e6.inclination : 0), s.3 + 1)
            }
        }
        let n = Double(trials.count)
        let s = sums["sentio"]!, m = sums["madgwick"]!, h = sums["mahony"]!
        print(String(format: "BROAD mean over %d trials: sentio 9D total %.2f°, inclination %.2f°, 6D inclination %.2f°; madgwick 9D %.2f°; mahony 9D %.2f°",
                     trials.count, s.0 / n, s.1 / n, s.2 / n, m.0 / n, h.0 / n))
        // Regression floor, far from the bars (2.4° and 0.75°): the filter must at least
        // beat both baselines.
        #expect(s.0 / n < m.0 / n && s.0 / n < h.0 / n)
    }
}
