import Foundation

/// BROAD's error metric (Laidig et al.): with e = q_est ⊗ q_gt⁻¹ (earth frame), total error
/// 2·acos|e_w|, heading error 2·atan|e_z/e_w|, inclination error 2·acos√(e_w² + e_z²); RMSE
/// in degrees over the samples that count.
public struct AttitudeError: Sendable, Equatable {
    public var total: Double, heading: Double, inclination: Double

    public static func rmse(estimates: [Quaternion], truth: [Quaternion?], counted: [Bool]) -> AttitudeError {
        var t = 0.0, h = 0.0, i = 0.0, n = 0.0
        for k in estimates.indices where counted[k] {
            guard let g = truth[k] else { continue }
            let e = (estimates[k] * g.conjugate).normalized
            let w = abs(e.w)
            let total = 2 * acos(min(1, w))
            let heading = 2 * atan(abs(e.z / max(1e-12, w)))
            let inclination = 2 * acos(min(1, (e.w * e.w + e.z * e.z).squareRoot()))
            t += total * total; h += heading * heading; i += inclination * inclination; n += 1
        }
        let deg = 180 / Double.pi
        return AttitudeError(total: (t / max(1, n)).squareRoot() * deg, heading: (h / max(1, n)).squareRoot() * deg,
                             inclination: (i / max(1, n)).squareRoot() * deg)
    }
}

/// Runs a filter over samples and returns its estimate after each.
public func estimate<F: AttitudeFilter>(_ filter: inout F, _ samples: [IMUSample], useMagnetometer: Bool) -> [Quaternion] {
    var out: [Quaternion] = []
    out.reserveCapacity(samples.count)
    var previous = samples.first?.time ?? 0
    for (i, s) in samples.enumerated() {
        let dt = i == 0 ? (samples.count > 1 ? samples[1].time - samples[0].time : 0.01) : s.time - previous
        previous = s.time
        filter.update(s, dt: dt, useMagnetometer: useMagnetometer)
        out.append(filter.quaternion)
    }
    return out
}

/// Reference orientations stored beside the samples, as the BROAD traces carry them.
public struct GroundTruth: Sendable {
    /// Sensor-to-earth attitude per sample; nil where the reference lost track.
    public var attitudes: [Quaternion?]
    /// Whether each sample counts in the error (BROAD's `movement` flag).
    public var counted: [Bool]

    /// The `gt_qw,gt_qx,gt_qy,gt_qz` columns (and `movement`, every sample counting when
    /// absent) of a trace (`Trace.readWithGroundTruth`); nil when it has no such columns or no rows.
    init?(_ table: CSVTable) {
        let indices = ["gt_qw", "gt_qx", "gt_qy", "gt_qz"].compactMap { table.columns[$0] }
        guard indices.count == 4, !table.rows.isEmpty else { return nil }
        let movement = table.columns["movement"]
        attitudes = []
        counted = []
        for (_, fields) in table.rows {
            let q = indices.map { Double(table.field($0, in: fields)) ?? .nan }
            attitudes.append(q.allSatisfy(\.isFinite) ? Quaternion(w: q[0], x: q[1], y: q[2], z: q[3]).normalized : nil)
            counted.append(movement.map { table.field($0, in: fields) == "1" } ?? true)
        }
    }
}
