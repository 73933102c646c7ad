import ArgumentParser
import Foundation
import SentioMotion

struct MotionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motion",
        abstract: "Attitude and device motion from IMU recordings.",
        subcommands: [Fuse.self])

    struct Fuse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse a CSV trace (t, gyr_*, acc_*, optional mag_*; .csv or .csv.gz) into attitude, gravity and user acceleration.",
            discussion: "With ground-truth columns (gt_qw..gt_qz, movement), also prints BROAD's error metric.")

        @Argument(help: "The trace: CSV with a header naming the columns; time in s, rad/s, m/s² (or g with --g), µT.")
        var trace: String
        @Flag(help: "Ignore the magnetometer (6D: heading relative to the start).") var sixAxis = false
        @Flag(help: "The accelerometer columns are in g, not m/s².") var g = false
        @Option(help: "Write t, attitude quaternion, gravity and user acceleration per sample to this CSV.") var output: String?
        @Flag(help: "Print one JSON object (see the README for the keys).") var json = false
        @Option(help: "Fuse the whole trace N times in one process; print median/min/max ms and samples per second.") var bench: Int?

        struct Summary: Encodable {
            let samples: Int
            let duration_s: Double
            let quaternion: [Double]
            let roll_deg: Double, pitch_deg: Double, yaw_deg: Double
            let gyroscope_bias: [Double]
            let magnetometer: Bool
            let error_deg: ErrorDegrees?
        }
        struct ErrorDegrees: Encodable { let total: Double, heading: Double, inclination: Double }
        struct BenchResult: Encodable { let median_ms: Double, min_ms: Double, max_ms: Double, runs: Int, samples_per_second: Double }

        func run() throws {
            let text = try Trace.text(contentsOf: trace)
            let samples = try Trace.read(text, accelerationScale: g ? standardGravity : 1)
            guard !samples.isEmpty else { throw ValidationError("\(trace): the trace has a header but no samples") }
            let magnetometer = !sixAxis && samples.contains { $0.magnetometer != nil }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                var sink = 0.0
                let r = try Bench.run(bench) {
                    var fusion = MotionFusion(useMagnetometer: magnetometer)
                    for s in samples { sink += fusion.update(s).userAcceleration.x }
                }
                if sink.isNaN { print("") }  // keeps the work observable to the optimizer
                return try JSONOutput.print(BenchResult(median_ms: r.median_ms, min_ms: r.min_ms, max_ms: r.max_ms, runs: bench,
                                                        samples_per_second: Double(samples.count) / (r.median_ms / 1000)))
            }
            var fusion = MotionFusion(useMagnetometer: magnetometer)
            let motions = samples.map { fusion.update($0) }
            if let output {
                var csv = "t,qw,qx,qy,qz,grav_x,grav_y,grav_z,user_x,user_y,user_z\n"
                for m in motions {
                    let q = m.attitude.quaternion
                    csv += [m.time, q.w, q.x, q.y, q.z, m.gravity.x, m.gravity.y, m.gravity.z,
                            m.userAcceleration.x, m.userAcceleration.y, m.userAcceleration.z].map { "\($0)" }.joined(separator: ",") + "\n"
                }
                do { try csv.write(toFile: output, atomically: true, encoding: .utf8) }
                catch { throw ValidationError("\(output): cannot be written") }
            }
            var error: ErrorDegrees?
            if let truth = GroundTruth.read(text), truth.attitudes.count == samples.count {
                let e = AttitudeError.rmse(estimates: motions.map(\.attitude.quaternion), truth: truth.attitudes, counted: truth.counted)
                error = ErrorDegrees(total: e.total, heading: e.heading, inclination: e.inclination)
            }
            let last = motions[motions.count - 1], q = last.attitude.quaternion, deg = 180 / Double.pi
            let b = fusion.filter.gyroscopeBias
            let summary = Summary(samples: samples.count, duration_s: samples[samples.count - 1].time - samples[0].time,
                                  quaternion: [q.w, q.x, q.y, q.z], roll_deg: last.attitude.roll * deg, pitch_deg: last.attitude.pitch * deg,
                                  yaw_deg: last.attitude.yaw * deg, gyroscope_bias: [b.x, b.y, b.z], magnetometer: magnetometer, error_deg: error)
            if json { return try JSONOutput.print(summary) }
            print(String(format: "%d samples over %.1f s (%@)", summary.samples, summary.duration_s, magnetometer ? "9D, with magnetometer" : "6D"))
            print(String(format: "final attitude: roll %.1f°, pitch %.1f°, yaw %.1f°; gyroscope bias %.4f %.4f %.4f rad/s",
                         summary.roll_deg, summary.pitch_deg, summary.yaw_deg, b.x, b.y, b.z))
            if let error {
                print(String(format: "error against ground truth (RMSE): total %.2f°, heading %.2f°, inclination %.2f°",
                             error.total, error.heading, error.inclination))
            }
        }
    }
}
