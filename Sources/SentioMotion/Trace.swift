import Foundation

/// One IMU sample in SI units: time (s), rotation rate (rad/s), acceleration (m/s²), magnetic
/// field (µT, optional).
public struct IMUSample: Sendable, Hashable {
    /// Seconds.
    public var time: Double
    /// Rotation rate (rad/s).
    public var gyroscope: Vector3
    /// Acceleration in g, as Core Motion gives it (gravity included: about (0, 0, 1) lying face
    /// up); `AccelerationUnit` converts from m/s².
    public var accelerometer: Vector3
    /// Magnetic field (µT).
    public var magnetometer: Vector3?

    public init(time: Double, gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3? = nil) {
        self.time = time
        self.gyroscope = gyroscope
        self.accelerometer = accelerometer
        self.magnetometer = magnetometer
    }
}

/// Errors reading traces: what and on which line.
public enum TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingColumns([String])
    case badValue(line: Int, column: String, text: String)
    case timeNotIncreasing(line: Int)
    case unreadable(String)

    public var description: String {
        switch self {
        case let .missingColumns(names): "the header lacks the column\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))"
        case let .badValue(line, column, text): "line \(line): \(column) is '\(text)', not a finite number"
        case let .timeNotIncreasing(line): "line \(line): time does not increase"
        case let .unreadable(why): why
        }
    }
}

/// CSV traces: columns found by header name (`t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z` and
/// optionally `mag_x,mag_y,mag_z`; others ignored), lines starting with `#` skipped.
/// Missing columns, text or NaN in a used column and time that does not increase are errors
/// that name the line.
public enum Trace {
    static let required = ["t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"]
    static let magnetic = ["mag_x", "mag_y", "mag_z"]

    /// Samples from CSV text whose `acc_*` columns are in `unit` (m/s² by default); the
    /// samples hold g.
    public static func read(_ text: String, accelerationUnit unit: AccelerationUnit = .metersPerSecondSquared) throws -> [IMUSample] {
        guard let table = CSVTable(text) else { throw TraceError.unreadable("no header line") }
        return try samples(table, toG: 1 / unit.inG)
    }

    /// Samples and, when the trace carries them (as BROAD's do), the reference attitudes, from
    /// one parse of the text.
    public static func readWithGroundTruth(_ text: String, accelerationUnit unit: AccelerationUnit = .metersPerSecondSquared) throws
        -> (samples: [IMUSample], truth: GroundTruth?) {
        guard let table = CSVTable(text) else { throw TraceError.unreadable("no header line") }
        return (try samples(table, toG: 1 / unit.inG), GroundTruth(table))
    }

    static func samples(_ table: CSVTable, toG: Double) throws -> [IMUSample] {
        let columns = table.columns
        let missing = required.filter { columns[$0] == nil }
        guard missing.isEmpty else { throw TraceError.missingColumns(missing) }
        let hasMag = magnetic.allSatisfy { columns[$0] != nil }
        var samples: [IMUSample] = []
        samples.reserveCapacity(table.rows.count)
        for (lineNumber, fields) in table.rows {
            func value(_ name: String) throws -> Double {
                let text = table.field(columns[name]!, in: fields)
                guard let v = Double(text), v.isFinite else { throw TraceError.badValue(line: lineNumber, column: name, text: text) }
                return v
            }
            let t = try value("t")
            if let last = samples.last, t <= last.time { throw TraceError.timeNotIncreasing(line: lineNumber) }
            samples.append(IMUSample(time: t, gyroscope: Vector3(try value("gyr_x"), try value("gyr_y"), try value("gyr_z")),
                                     accelerometer: Vector3(try value("acc_x"), try value("acc_y"), try value("acc_z")) * toG,
                                     magnetometer: hasMag ? Vector3(try value("mag_x"), try value("mag_y"), try value("mag_z")) : nil))
        }
        return samples
    }
}

extension Trace {
    /// CSV text that `read` accepts: the required columns (accelerations in `unit`, m/s² by
    /// default), and the magnetometer's when every sample has one. Values are printed in full
    /// precision, so a round trip in g is exact (through m/s², to rounding).
    public static func write(_ samples: [IMUSample], accelerationUnit unit: AccelerationUnit = .metersPerSecondSquared) -> String {
        let scale = unit.inG
        let magnetic = !samples.isEmpty && samples.allSatisfy { $0.magnetometer != nil }
        var text = (required + (magnetic ? Self.magnetic : [])).joined(separator: ",") + "\n"
        for s in samples {
            let a = s.accelerometer * scale
            var fields = [s.time, s.gyroscope.x, s.gyroscope.y, s.gyroscope.z, a.x, a.y, a.z]
            if magnetic, let m = s.magnetometer { fields += [m.x, m.y, m.z] }
            text += fields.map { "\($0)" }.joined(separator: ",") + "\n"
        }
        return text
    }
}

extension Trace {
    /// The text of a trace file; a `.gz` file is decompressed with the system's `gzip`
    /// (the BROAD recordings ship compressed).
    public static func text(contentsOf path: String) throws -> String {
        guard FileManager.default.isReadableFile(atPath: path) else { throw TraceError.unreadable("\(path): no such readable file") }
        guard path.hasSuffix(".gz") else {
            guard let data = FileManager.default.contents(atPath: path) else { throw TraceError.unreadable("\(path): cannot be read") }
            return String(decoding: data, as: UTF8.self)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", path]
        let pipe = Pipe(), errors = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        do { try process.run() } catch { throw TraceError.unreadable("\(path): gzip could not run (\(error))") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        _ = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TraceError.unreadable("\(path): not a valid gzip file") }
        return String(decoding: data, as: UTF8.self)
    }
}
