import Foundation

/// An attitude estimator fed one sample at a time (causal): after each update, `quaternion`
/// (of unit length) rotates sensor coordinates into East-North-Up (heading from magnetic north
/// in 9D; in 6D the heading starts at 0).
public protocol AttitudeFilter {
    mutating func update(_ sample: IMUSample, dt: Double, useMagnetometer: Bool)
    var quaternion: Quaternion { get }
    /// The gyroscope bias currently subtracted (rad/s).
    var gyroscopeBias: Vector3 { get }
}

extension AttitudeFilter {
    public var gyroscopeBias: Vector3 { .zero }
}

/// Madgwick's gradient-descent filter (2010), a baseline. β weighs the correction.
public struct MadgwickFilter: AttitudeFilter, Sendable {
    public var beta: Double
    public private(set) var quaternion = Quaternion.identity
    private var started = false

    public init(beta: Double = 0.1) { self.beta = beta }

    public mutating func update(_ s: IMUSample, dt: Double, useMagnetometer: Bool) {
        if !started { quaternion = initialAttitude(s, useMagnetometer: useMagnetometer); started = true; return }
        var q = quaternion
        let g = s.gyroscope
        var qDot = (q * Quaternion(w: 0, x: g.x, y: g.y, z: g.z))
        qDot = Quaternion(w: qDot.w / 2, x: qDot.x / 2, y: qDot.y / 2, z: qDot.z / 2)
        let a = s.accelerometer.normalized
        if a.norm > 0 {
            // Gradient of the error between measured and predicted gravity (and field).
            var grad: Quaternion
            let (q0, q1, q2, q3) = (q.w, q.x, q.y, q.z)
            let f1 = 2 * (q1 * q3 - q0 * q2) - a.x, f2 = 2 * (q0 * q1 + q2 * q3) - a.y, f3 = 2 * (0.5 - q1 * q1 - q2 * q2) - a.z
            grad = Quaternion(w: -2 * q2 * f1 + 2 * q1 * f2, x: 2 * q3 * f1 + 2 * q0 * f2 - 4 * q1 * f3,
                              y: -2 * q0 * f1 + 2 * q3 * f2 - 4 * q2 * f3, z: 2 * q1 * f1 + 2 * q2 * f2)
            if useMagnetometer, let m0 = s.magnetometer, m0.norm > 0 {
                let m = m0.normalized
                let h = q.rotate(m)
                let bx = (h.x * h.x + h.y * h.y).squareRoot(), bz = h.z  // field in the earth frame: (0, bx, bz) in ENU terms below
                // Predicted field in the sensor frame for b = (0, bx, bz) (north along +y).
                let pred = q.conjugate.rotate(Vector3(0, bx, bz))
                let e = pred - m
                // Numerical gradient of |e|² w.r.t. q (small, clear, and fast enough for a baseline).
                func err(_ p: Quaternion) -> Double { let d = p.normalized.conjugate.rotate(Vector3(0, bx, bz)) - m; return d.dot(d) }
                let eps = 1e-6, base = e.dot(e)
                let gm = Quaternion(w: (err(Quaternion(w: q.w + eps, x: q.x, y: q.y, z: q.z)) - base) / eps,
                                    x: (err(Quaternion(w: q.w, x: q.x + eps, y: q.y, z: q.z)) - base) / eps,
                                    y: (err(Quaternion(w: q.w, x: q.x, y: q.y + eps, z: q.z)) - base) / eps,
                                    z: (err(Quaternion(w: q.w, x: q.x, y: q.y, z: q.z + eps)) - base) / eps)
                grad = Quaternion(w: grad.w + gm.w / 2, x: grad.x + gm.x / 2, y: grad.y + gm.y / 2, z: grad.z + gm.z / 2)
            }
            let n = grad.norm
            if n > 0 { qDot = Quaternion(w: qDot.w - beta * grad.w / n, x: qDot.x - beta * grad.x / n, y: qDot.y - beta * grad.y / n, z: qDot.z - beta * grad.z / n) }
        }
        q = Quaternion(w: q.w + qDot.w * dt, x: q.x + qDot.x * dt, y: q.y + qDot.y * dt, z: q.z + qDot.z * dt)
        quaternion = q.normalized
    }
}

/// Mahony's complementary filter (2008), a baseline: proportional and integral feedback of
/// the gravity (and field) direction error.
public struct MahonyFilter: AttitudeFilter, Sendable {
    public var kp: Double, ki: Double
    public private(set) var quaternion = Quaternion.identity
    private var integral = Vector3.zero
    private var started = false

    public init(kp: Double = 1, ki: Double = 0.01) { self.kp = kp; self.ki = ki }

    public var gyroscopeBias: Vector3 { integral * -1 }

    public mutating func update(_ s: IMUSample, dt: Double, useMagnetometer: Bool) {
        if !started { quaternion = initialAttitude(s, useMagnetometer: useMagnetometer); started = true; return }
        var error = Vector3.zero
        let a = s.accelerometer.normalized
        if a.norm > 0 {
            let up = quaternion.conjugate.rotate(Vector3(0, 0, 1))
            error = error + a.cross(up)
        }
        if useMagnetometer, let m0 = s.magnetometer, m0.norm > 0 {
            let m = m0.normalized
            let h = quaternion.rotate(m)
            let north = quaternion.conjugate.rotate(Vector3(0, (h.x * h.x + h.y * h.y).squareRoot(), h.z))
            error = error + m.cross(north)
        }
        integral = integral + error * (ki * dt)
        let w = s.gyroscope + error * kp + integral
        quaternion = (quaternion * Quaternion(rotationVector: w * dt)).normalized
    }
}

/// The attitude of a device at rest: gravity up, and (9D) the horizontal field north.
func initialAttitude(_ s: IMUSample, useMagnetometer: Bool) -> Quaternion {
    let a = s.accelerometer.normalized
    // Rotation taking the measured "up" (a) onto +z.
    var q = rotationBetween(a, Vector3(0, 0, 1))
    if useMagnetometer, let m = s.magnetometer, m.norm > 0 {
        let h = q.rotate(m)
        q = Quaternion(axis: Vector3(0, 0, 1), angle: atan2(h.x, h.y)) * q
    }
    return q.normalized
}

/// The shortest rotation taking unit vector `a` onto unit vector `b`.
func rotationBetween(_ a: Vector3, _ b: Vector3) -> Quaternion {
    let c = a.dot(b)
    if c < -0.999999 {
        let axis = abs(a.x) < 0.9 ? a.cross(Vector3(1, 0, 0)) : a.cross(Vector3(0, 1, 0))
        return Quaternion(axis: axis, angle: .pi)
    }
    let v = a.cross(b)
    return Quaternion(w: 1 + c, x: v.x, y: v.y, z: v.z).normalized
}

extension MadgwickFilter {
    /// The parameters the BROAD evaluation and `sentio motion fuse --filter madgwick` run.
    public static let baseline = MadgwickFilter(beta: 0.12)
}

extension MahonyFilter {
    /// The parameters the BROAD evaluation and `sentio motion fuse --filter mahony` run.
    public static let baseline = MahonyFilter(kp: 0.74, ki: 0.0012)
}
