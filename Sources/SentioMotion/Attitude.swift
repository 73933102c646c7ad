import Foundation

/// The device's orientation, in Core Motion's words: the rotation from the device's axes into a
/// reference frame (here East-North-Up), as a quaternion, a rotation matrix or Euler angles.
public struct Attitude: Sendable, Hashable {
    public var quaternion: Quaternion

    public init(quaternion: Quaternion) { self.quaternion = quaternion.normalized }

    /// For a quaternion already of unit length (every `AttitudeFilter`'s): no normalization.
    init(unit quaternion: Quaternion) { self.quaternion = quaternion }

    /// Row-major 3×3 matrix of the same rotation.
    public var rotationMatrix: [[Double]] {
        let q = quaternion
        return [[1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y - q.w * q.z), 2 * (q.x * q.z + q.w * q.y)],
                [2 * (q.x * q.y + q.w * q.z), 1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z - q.w * q.x)],
                [2 * (q.x * q.z - q.w * q.y), 2 * (q.y * q.z + q.w * q.x), 1 - 2 * (q.x * q.x + q.y * q.y)]]
    }

    // Euler angles as Core Motion defines them: the rotation is yaw about the reference's
    // vertical, then pitch about the device's x axis (positive: the top edge rises), then roll
    // about the device's y axis (positive: the right edge goes down) — R = Rz(yaw)·Rx(pitch)·Ry(roll).

    /// Rotation about the device's x axis (radians, −π/2…π/2), as Core Motion's `pitch`.
    public var pitch: Double { let q = quaternion; return asin(max(-1, min(1, 2 * (q.w * q.x + q.y * q.z)))) }
    /// Rotation about the device's y axis (radians, −π…π), as Core Motion's `roll`.
    public var roll: Double { let q = quaternion; return atan2(2 * (q.w * q.y - q.x * q.z), 1 - 2 * (q.x * q.x + q.y * q.y)) }
    /// Rotation about the vertical (radians, −π…π), as Core Motion's `yaw`.
    public var yaw: Double { let q = quaternion; return atan2(2 * (q.w * q.z - q.x * q.y), 1 - 2 * (q.x * q.x + q.z * q.z)) }

    /// The reference frame an attitude is measured against.
    public enum ReferenceFrame: Sendable {
        /// Sentio's: x east, y north, z up. Yaw 0 when the device's top points north.
        case eastNorthUp
        /// Core Motion's north frames (`.xMagneticNorthZVertical`): x north, y west, z up.
        /// Yaw 0 when the device's right edge points north; pitch and roll are the same as in
        /// East-North-Up, yaw is a quarter turn less.
        case xNorthZVertical
    }

    /// The same orientation measured against `frame` (this attitude is East-North-Up's).
    public func expressed(in frame: ReferenceFrame) -> Attitude {
        switch frame {
        case .eastNorthUp: return self
        case .xNorthZVertical:
            // East-North-Up → North-West-Up coordinates: (x, y, z) ↦ (y, −x, z), a turn of −90°
            // about the vertical applied after the device-to-earth rotation.
            let h = 0.5.squareRoot()
            return Attitude(unit: Quaternion(w: h, x: 0, y: 0, z: -h) * quaternion)
        }
    }

    /// This attitude relative to `reference` (Core Motion's `multiply(byInverseOf:)`).
    public mutating func multiply(byInverseOf reference: Attitude) {
        quaternion = (reference.quaternion.conjugate * quaternion).normalized
    }

    /// Axis (unit) and angle (radians) of the rotation.
    public var axisAngle: (axis: Vector3, angle: Double) {
        let q = quaternion.w < 0 ? Quaternion(w: -quaternion.w, x: -quaternion.x, y: -quaternion.y, z: -quaternion.z) : quaternion
        let angle = 2 * acos(max(-1, min(1, q.w)))
        let s = (1 - q.w * q.w).squareRoot()
        return (s < 1e-9 ? Vector3(1, 0, 0) : Vector3(q.x / s, q.y / s, q.z / s), angle)
    }
}

/// Standard gravity (m/s² in one g), for converting m/s² to Core Motion's g.
public let standardGravity = 9.80665

/// The unit of an acceleration in a file or from a sensor. Sentio's samples and device motion
/// hold g, as Core Motion does.
public enum AccelerationUnit: String, Sendable, CaseIterable {
    case g
    case metersPerSecondSquared = "mps2"

    /// How many of this unit make one g.
    public var inG: Double { self == .g ? 1 : standardGravity }

    /// `v` (in this unit) in g.
    public func toG(_ v: Vector3) -> Vector3 { self == .g ? v : v * (1 / standardGravity) }
}
