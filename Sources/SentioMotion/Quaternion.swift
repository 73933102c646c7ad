import Foundation

/// A 3-vector (sensor or earth axes).
public struct Vector3: Sendable, Hashable {
    public var x, y, z: Double
    public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    public static let zero = Vector3(0, 0, 0)
    public var norm: Double { (x * x + y * y + z * z).squareRoot() }
    public var normalized: Vector3 { let n = norm; return n > 0 ? Vector3(x / n, y / n, z / n) : self }
    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    public func cross(_ b: Vector3) -> Vector3 { Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
}

/// A unit quaternion (w, x, y, z), Hamilton convention: q ⊗ v ⊗ q⁻¹ rotates v.
public struct Quaternion: Sendable, Hashable {
    public var w, x, y, z: Double
    public init(w: Double, x: Double, y: Double, z: Double) { self.w = w; self.x = x; self.y = y; self.z = z }
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// q ⊗ r.
    public static func * (q: Quaternion, r: Quaternion) -> Quaternion {
        Quaternion(w: q.w * r.w - q.x * r.x - q.y * r.y - q.z * r.z,
                   x: q.w * r.x + q.x * r.w + q.y * r.z - q.z * r.y,
                   y: q.w * r.y - q.x * r.z + q.y * r.w + q.z * r.x,
                   z: q.w * r.z + q.x * r.y - q.y * r.x + q.z * r.w)
    }

    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }
    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }
    public var normalized: Quaternion { let n = norm; return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) }

    /// v rotated by this quaternion.
    public func rotate(_ v: Vector3) -> Vector3 {
        let r = self * Quaternion(w: 0, x: v.x, y: v.y, z: v.z) * conjugate
        return Vector3(r.x, r.y, r.z)
    }

    /// The rotation by the rotation vector `v` (axis × angle in radians).
    public init(rotationVector v: Vector3) {
        let angle = v.norm
        guard angle > 1e-12 else {
            self = Quaternion(w: 1, x: v.x / 2, y: v.y / 2, z: v.z / 2).normalized
            return
        }
        let s = sin(angle / 2) / angle
        self.init(w: cos(angle / 2), x: v.x * s, y: v.y * s, z: v.z * s)
    }

    /// Rotation by `angle` radians about `axis`.
    public init(axis: Vector3, angle: Double) {
        self.init(rotationVector: axis.normalized * angle)
    }
}
