import Foundation

/// Second-order Butterworth low-pass, as VQF filters the accelerometer: cut-off √2/(2πτ).
struct Butterworth: Sendable {
    var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var x1 = Vector3.zero, x2 = Vector3.zero, y1 = Vector3.zero, y2 = Vector3.zero
    var primed = false

    init(tau: Double, dt: Double) {
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        let k = tan(.pi * fc * dt), norm = 1 + 2.0.squareRoot() * k + k * k
        b0 = k * k / norm; b1 = 2 * b0; b2 = b0
        a1 = 2 * (k * k - 1) / norm; a2 = (1 - 2.0.squareRoot() * k + k * k) / norm
    }

    mutating func filter(_ x: Vector3) -> Vector3 {
        if !primed { x1 = x; x2 = x; y1 = x; y2 = x; primed = true }
        let y = x * b0 + x1 * b1 + x2 * b2 - y1 * a1 - y2 * a2
        x2 = x1; x1 = x; y2 = y1; y1 = y
        return y
    }
}

/// Sentio's attitude estimator, built on the method of VQF (Laidig and Seel, 2023): the
/// gyroscope is integrated alone; the accelerometer, rotated into that almost-inertial frame
/// and low-pass filtered (τ 3 s), corrects the inclination; the magnetometer's horizontal
/// direction corrects the heading separately (τ 9 s), and is ignored while its magnitude or
/// dip angle leaves the learned values (a magnet nearby). Gyroscope bias is learned while the
/// device rests. Causal: each estimate uses only the samples up to it.
public struct SentioAttitudeFilter: AttitudeFilter, Sendable {
    public var tauAcc = 3.0
    public var tauMag = 9.0
    private var gyroQuat = Quaternion.identity
    private var accQuat = Quaternion.identity
    private var delta = 0.0
    private var accFilter: Butterworth?
    private var bias = Vector3.zero
    private var samples = 0
    private var magNorm = 0.0, magDip = 0.0, magSamples = 0
    private var restTime = 0.0
    private var restMean = Vector3.zero
    private var lastAcc = Vector3.zero

    public init() {}

    public var gyroscopeBias: Vector3 { bias }

    /// 6D attitude (heading arbitrary but continuous).
    public var quaternion6D: Quaternion { (accQuat * gyroQuat).normalized }

    public var quaternion: Quaternion { (Quaternion(axis: Vector3(0, 0, 1), angle: delta) * quaternion6D).normalized }

    public mutating func update(_ s: IMUSample, dt: Double, useMagnetometer: Bool) {
        samples += 1
        // Rest: rotation under 2°/s and the accelerometer steady; then the gyroscope's reading
        // is its bias, learned with a slow average.
        let accChange = (s.accelerometer - lastAcc).norm
        lastAcc = s.accelerometer
        if (s.gyroscope - bias).norm < 2 * .pi / 180 && accChange < 0.5 {
            restTime += dt
            restMean = restMean * 0.99 + s.gyroscope * 0.01
            if restTime > 1.5 { bias = bias * 0.995 + restMean * 0.005 }
        } else {
            restTime = 0
            restMean = s.gyroscope
        }
        let w = s.gyroscope - bias
        gyroQuat = (gyroQuat * Quaternion(rotationVector: w * dt)).normalized

        if accFilter == nil { accFilter = Butterworth(tau: tauAcc, dt: dt) }
        let inertial = gyroQuat.rotate(s.accelerometer)
        let filtered = accFilter!.filter(inertial)
        let earth = accQuat.rotate(filtered).normalized
        if earth.norm > 0 {
            // Rotate the filtered gravity direction exactly onto +z.
            let qw = ((earth.z + 1) / 2).squareRoot()
            let correction = qw > 1e-6 ? Quaternion(w: qw, x: 0.5 * earth.y / qw, y: -0.5 * earth.x / qw, z: 0) : Quaternion(w: 0, x: 1, y: 0, z: 0)
            accQuat = (correction * accQuat).normalized
        }

        guard useMagnetometer, let m = s.magnetometer, m.norm > 0 else { return }
        let mEarth = quaternion6D.rotate(m)
        let norm = m.norm, dip = asin(max(-1, min(1, mEarth.z / norm)))
        // Learn the undisturbed field's magnitude and dip; skip samples far from them.
        if magSamples < 300 {
            magNorm += (norm - magNorm) / Double(magSamples + 1)
            magDip += (dip - magDip) / Double(magSamples + 1)
            magSamples += 1
        } else {
            guard abs(norm - magNorm) < 0.1 * magNorm, abs(dip - magDip) < 10 * .pi / 180 else { return }
            magNorm += 0.001 * (norm - magNorm)
            magDip += 0.001 * (dip - magDip)
        }
        let measured = atan2(mEarth.x, mEarth.y)
        // Converge fast at first (a running mean), then with the time constant.
        let k = max(1 - exp(-dt / tauMag), 1 / Double(min(samples, 10_000)))
        var d = measured - delta
        d -= 2 * .pi * (d / (2 * .pi)).rounded()
        delta += k * d
    }
}
