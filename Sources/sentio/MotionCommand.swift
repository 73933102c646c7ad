import ArgumentParser
import Foundation
import SentioMotion

struct MotionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motion",
        abstract: "Attitude and device motion from IMU recordings.",
        subcommands: [Fuse.self, Gestures.self, MotionBench.self])

    enum Mode: String, ExpressibleByArgument, CaseIterable { case sixD = "6d", nineD = "9d" }
    enum FilterName: String, ExpressibleByArgument, CaseIterable { case sentio, madgwick, mahony }

    /// Runs `body` with a fusion over the named filter; generic, so each filter's update is
    /// specialised rather than called through an existential.
    static func withFusion<R>(_ name: FilterName, mode: Mode, _ body: (inout any MotionFusing) throws -> R) rethrows -> R {
        let nine = mode == .nineD
        var fusion: any MotionFusing = switch name {
        case .sentio: MotionFusion(useMagnetometer: nine)
        case .madgwick: MotionFusion(filter: MadgwickFilter.baseline, useMagnetometer: nine)
        case .mahony: MotionFusion(filter: MahonyFilter.baseline, useMagnetometer: nine)
        }
        return try body(&fusion)
    }

    /// Reads a trace file for `fuse` and `gestures`: samples in g, ground truth when present,
    /// and a clear error when 9D is asked of a trace without a magnetometer.
    static func load(_ path: String, accUnit: AccelerationUnit, mode: Mode) throws -> (samples: [IMUSample], truth: GroundTruth?) {
        let trace = try Trace.readWithGroundTruth(Trace.text(contentsOf: path), accelerationUnit: accUnit)
        if mode == .nineD, !trace.samples.allSatisfy({ $0.magnetometer != nil }) {
            throw ValidationError("\(path): --mode 9d needs mag_x, mag_y, mag_z columns; use --mode 6d")
        }
        return trace
    }

    struct Fuse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fuse a CSV trace (.csv or .csv.gz) into attitude, gravity and user acceleration.",
            discussion: """
                Input columns by header name: t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z[,mag_x,mag_y,mag_z] in s, rad/s, \
                m/s² (or g), µT; other columns ignored, lines starting with # skipped. Output: \
                t,qw,qx,qy,qz,grav_x,grav_y,grav_z,user_x,user_y,user_z, the quaternion rotating sensor coordinates \
                into East-North-Up. With ground-truth columns (gt_qw..gt_qz, movement) the BROAD error is printed.
                """)

        @Argument(help: "The trace to fuse.") var trace: String
        @Option(help: "Write the attitude, gravity and user acceleration per sample to this CSV.") var out: String?
        @Option(help: "6d (heading starts at 0) or 9d (heading from magnetic north; needs mag_* columns).") var mode: Mode = .nineD
        @Option(help: "sentio, madgwick or mahony.") var filter: FilterName = .sentio
        @Option(help: "Unit of the acc_* columns: mps2 or g.") var accUnit: AccelerationUnit = .metersPerSecondSquared
        @Flag(help: "Print one JSON object (see the README for the keys).") var json = false
        @Option(help: "Fuse the whole trace N times in one process; print median/min/max ms and samples per second.") var bench: Int?

        struct Summary: Encodable {
            let samples: Int, duration_s: Double, mode: String, filter: String
            let quaternion: [Double]
            let roll_deg: Double, pitch_deg: Double, yaw_deg: Double
            let error_deg: ErrorDegrees?
        }
        struct ErrorDegrees: Encodable { let total: Double, heading: Double, inclination: Double }
        struct BenchResult: Encodable { let median_ms: Double, min_ms: Double, max_ms: Double, runs: Int, samples_per_s: Double }

        func run() throws {
            let (samples, truth) = try MotionCommand.load(trace, accUnit: accUnit, mode: mode)
            guard !samples.isEmpty else { throw ValidationError("\(trace): the trace has a header but no samples") }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                let r = try MotionCommand.withFusion(filter, mode: mode) { fusion in
                    try Bench.run(bench) { fusion.reset(); _ = fusion.checksum(samples) }
                }
                return try JSONOutput.print(BenchResult(median_ms: r.median_ms, min_ms: r.min_ms, max_ms: r.max_ms, runs: bench,
                                                        samples_per_s: Double(samples.count) / (r.median_ms / 1000)))
            }
            let motions = MotionCommand.withFusion(filter, mode: mode) { $0.motions(samples) }
            if let out {
                var csv = "t,qw,qx,qy,qz,grav_x,grav_y,grav_z,user_x,user_y,user_z\n"
                for m in motions {
                    let q = m.attitude.quaternion
                    csv += [m.time, q.w, q.x, q.y, q.z, m.gravity.x, m.gravity.y, m.gravity.z,
                            m.userAcceleration.x, m.userAcceleration.y, m.userAcceleration.z].map { "\($0)" }.joined(separator: ",") + "\n"
                }
                do { try csv.write(toFile: out, atomically: true, encoding: .utf8) } catch { throw ValidationError("\(out): cannot be written") }
            }
            var error: ErrorDegrees?
            if let truth {
                let e = AttitudeError.rmse(estimates: motions.map(\.attitude.quaternion), truth: truth.attitudes, counted: truth.counted)
                error = ErrorDegrees(total: e.total, heading: e.heading, inclination: e.inclination)
            }
            let last = motions[motions.count - 1], q = last.attitude.quaternion, deg = 180 / Double.pi
            let summary = Summary(samples: samples.count, duration_s: samples[samples.count - 1].time - samples[0].time,
                                  mode: mode.rawValue, filter: filter.rawValue, quaternion: [q.w, q.x, q.y, q.z],
                                  roll_deg: last.attitude.roll * deg, pitch_deg: last.attitude.pitch * deg, yaw_deg: last.attitude.yaw * deg,
                                  error_deg: error)
            if json { return try JSONOutput.print(summary) }
            print(String(format: "%d samples over %.1f s, %@ %@", summary.samples, summary.duration_s, filter.rawValue, mode.rawValue))
            print(String(format: "final attitude: roll %.1f°, pitch %.1f°, yaw %.1f°", summary.roll_deg, summary.pitch_deg, summary.yaw_deg))
            if let error {
                print(String(format: "error against ground truth (RMSE over movement): total %.2f°, heading %.2f°, inclination %.2f°",
                             error.total, error.heading, error.inclination))
            }
            if let out { print("wrote \(out)") }
        }
    }

    struct Gestures: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the gestures in a trace: throws (original rule and any direction), shakes, full turns.",
            discussion: "One line per gesture; with --json one JSON object per line (see the README for the keys).")

        @Argument(help: "The trace (same columns as fuse).") var trace: String
        @Option(help: "6d or 9d (9d needs mag_* columns).") var mode: Mode = .sixD
        @Option(help: "Unit of the acc_* columns: mps2 or g.") var accUnit: AccelerationUnit = .metersPerSecondSquared
        @Option(help: "Throw threshold in g.") var threshold = 1.0
        @Flag(help: "Print one JSON object per gesture.") var json = false

        func run() throws {
            guard threshold > 0 else { throw ValidationError("--threshold takes a positive number of g") }
            let samples = try MotionCommand.load(trace, accUnit: accUnit, mode: mode).samples
            var configuration = MotionSession.Configuration()
            (configuration.useMagnetometer, configuration.throwThreshold) = (mode == .nineD, threshold)
            let session = MotionSession(configuration: configuration)
            for s in samples {
                for e in session.process(s).events {
                    if json { try JSONOutput.print(e); continue }
                    var line = String(format: "%.3f s: %@", e.t, e.gesture.rawValue)
                    if let f = e.forceG { line += String(format: ", %.2f g", f) }
                    if let a = e.axis { line += ", \(a)" }
                    print(line)
                }
            }
        }
    }

    struct MotionBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Run the estimator over N synthetic samples in memory (one core) and print {\"samples_per_s\"}.",
            discussion: "The samples are a seeded tumbling motion at 200 Hz with noise; the median of 11 runs counts.")

        @Option(help: "6d or 9d.") var mode: Mode = .nineD
        @Option(help: "sentio, madgwick or mahony.") var filter: FilterName = .sentio
        @Option(help: "Samples per run.") var samples = 1_000_000
        @Flag(help: "Print JSON (the default output, kept as a flag like every other command's).") var json = false

        struct Result: Encodable { let samples_per_s: Double, samples: Int, median_ms: Double, mode: String, filter: String }

        func run() throws {
            guard samples > 0 else { throw ValidationError("--samples takes a positive count") }
            let trace = syntheticTrace(count: samples)
            // Each filter's fusion as its concrete type, as an app holds it (no existential
            // dispatch per sample).
            func measure<F: AttitudeFilter>(_ start: MotionFusion<F>) throws -> Bench.Result {
                var fusion = start
                return try Bench.run(11) { fusion.reset(); _ = fusion.checksum(trace) }
            }
            let nine = mode == .nineD
            let r = switch filter {
            case .sentio: try measure(MotionFusion(useMagnetometer: nine))
            case .madgwick: try measure(MotionFusion(filter: MadgwickFilter.baseline, useMagnetometer: nine))
            case .mahony: try measure(MotionFusion(filter: MahonyFilter.baseline, useMagnetometer: nine))
            }
            let result = Result(samples_per_s: Double(samples) / (r.median_ms / 1000), samples: samples, median_ms: r.median_ms,
                                mode: mode.rawValue, filter: filter.rawValue)
            if json { return try JSONOutput.print(result) }
            print(String(format: "%@ %@: %.0f samples/s (%d samples, median %.1f ms of 11 runs)", filter.rawValue, mode.rawValue,
                         result.samples_per_s, samples, r.median_ms))
        }

        /// A device turning about a wandering axis at 200 Hz, with gravity, a 48 µT field and
        /// a little noise, so every branch of the filters runs.
        func syntheticTrace(count: Int) -> [IMUSample] {
            var state: UInt64 = 0x5EED
            func noise() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(Int64(bitPattern: (state >> 11) << 11)) / Double(Int64.max) * 0.02
            }
            var attitude = Quaternion.identity
            return (0 ..< count).map { i in
                let t = Double(i) / 200
                let w = Vector3(sin(t * 0.7), cos(t * 0.3), 0.5 * sin(t * 1.1))
                attitude = (attitude * Quaternion(rotationVector: w * 0.005)).normalized
                let inverse = attitude.conjugate
                return IMUSample(time: t, gyroscope: w + Vector3(noise(), noise(), noise()),
                                 accelerometer: inverse.rotate(Vector3(0, 0, 1)) + Vector3(noise(), noise(), noise()) * (1 / standardGravity),
                                 magnetometer: inverse.rotate(Vector3(0, 20, -43.6)) + Vector3(noise(), noise(), noise()))
            }
        }
    }
}

/// A fusion over any filter, for the CLI's --filter choice.
protocol MotionFusing {
    mutating func update(_ sample: IMUSample) -> DeviceMotion
    mutating func reset()
}

extension MotionFusion: MotionFusing {}

extension MotionFusing {
    mutating func motions(_ samples: [IMUSample]) -> [DeviceMotion] { samples.map { update($0) } }

    /// Fuses every sample and sums a component, so the work cannot be optimised away.
    mutating func checksum(_ samples: [IMUSample]) -> Double {
        var sum = 0.0
        for s in samples { sum += update(s).userAcceleration.x }
        return sum
    }
}

extension AccelerationUnit: ExpressibleByArgument {}
