import Foundation

/// A 3-vector (sensor or earth axes).
public struct Vector3: Sendable, Hashable {
    public var x, y, z: Double
    public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    public static let zero = Vector3(0, 0, 0)
    @inline(__always) public var norm: Double { (x * x + y * y + z * z).squareRoot() }
    @inline(__always) public var normalized: Vector3 { let n = norm; return n > 0 ? Vector3(x / n, y / n, z / n) : self }
    @inline(__always) public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inline(__always) public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inline(__always) public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inline(__always) public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }
    @inline(__always) public func cross(_ b: Vector3) -> Vector3 { Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
}

/// A unit quaternion (w, x, y, z), Hamilton convention: q ⊗ v ⊗ q⁻¹ rotates v.
public struct Quaternion: Sendable, Hashable {
    public var w, x, y, z: Double
    public init(w: Double, x: Double, y: Double, z: Double) { self.w = w; self.x = x; self.y = y; self.z = z }
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// q ⊗ r.
    @inline(__always) public static func * (q: Quaternion, r: Quaternion) -> Quaternion {
        Quaternion(w: q.w * r.w - q.x * r.x - q.y * r.y - q.z * r.z,
                   x: q.w * r.x + q.x * r.w + q.y * r.z - q.z * r.y,
                   y: q.w * r.y - q.x * r.z + q.y * r.w + q.z * r.x,
                   z: q.w * r.z + q.x * r.y - q.y * r.x + q.z * r.w)
    }

    @inline(__always) public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }
    @inline(__always) public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }
    @inline(__always) public var normalized: Quaternion { let r = 1 / norm; return Quaternion(w: w * r, x: x * r, y: y * r, z: z * r) }

    /// Brought back to unit length to first order, 1/|q| ≈ 1.5 − |q|²/2: for a product of unit
    /// quaternions, off by rounding only (|q|² = 1 + ε, ε ~ 1e-16), it equals `normalized` to
    /// rounding without a square root or a division — the two slowest instructions a filter
    /// step would otherwise run several times.
    @inline(__always) var renormalized: Quaternion {
        let r = 1.5 - 0.5 * (w * w + x * x + y * y + z * z)
        return Quaternion(w: w * r, x: x * r, y: y * r, z: z * r)
    }

    /// v rotated by this (unit) quaternion: v + 2w(u×v) + 2u×(u×v), u the vector part; the
    /// same as q ⊗ v ⊗ q* with half the multiplications.
    @inline(__always) public func rotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// The rotation by the rotation vector `v` (axis × angle in radians).
    @inline(__always) public init(rotationVector v: Vector3) {
        let squared = v.dot(v)
        // One gyroscope step turns by well under 0.1 rad: there the Taylor series of cos(a/2)
        // and sin(a/2)/a are within 1e-15 (the next terms are a⁸/10⁷ and a⁸/10⁸) and spare the
        // trigonometric calls that dominated the filter's time.
        if squared < 0.01 {
            // Horner form with the reciprocals as constants (the compiler keeps a division by
            // a constant that is not a power of two as a division).
            let a2 = squared
            let c = 1 + a2 * (-1.0 / 8 + a2 * (1.0 / 384 - a2 * (1.0 / 46080)))
            let s = 0.5 + a2 * (-1.0 / 48 + a2 * (1.0 / 3840 - a2 * (1.0 / 645120)))
            self.init(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
            return
        }
        let angle = squared.squareRoot()
        let s = sin(angle / 2) / angle
        self.init(w: cos(angle / 2), x: v.x * s, y: v.y * s, z: v.z * s)
    }

    /// Rotation by `angle` radians about `axis`.
    public init(axis: Vector3, angle: Double) {
        self.init(rotationVector: axis.normalized * angle)
    }
}
