import Foundation

/// Second-order Butterworth low-pass, as VQF filters the accelerometer: cut-off √2/(2πτ).
struct Butterworth: Sendable {
    var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var x1 = Vector3.zero, x2 = Vector3.zero, y1 = Vector3.zero, y2 = Vector3.zero
    var primed = false
    /// The sample period the coefficients were designed for.
    private(set) var dt = 0.0

    init(tau: Double, dt: Double) {
        design(tau: tau, dt: dt)
    }

    /// Sets the coefficients for a sample period, keeping the filter's state.
    mutating func design(tau: Double, dt: Double) {
        self.dt = dt
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        let k = tan(.pi * fc * dt), norm = 1 + 2.0.squareRoot() * k + k * k
        b0 = k * k / norm; b1 = 2 * b0; b2 = b0
        a1 = 2 * (k * k - 1) / norm; a2 = (1 - 2.0.squareRoot() * k + k * k) / norm
    }

    @inline(__always) mutating func filter(_ x: Vector3) -> Vector3 {
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
    /// cos and sin of delta/2, kept up to date as delta moves, so that each attitude does
    /// not pay for two trigonometric calls.
    private var halfCos = 1.0, halfSin = 0.0
    private var accFilter: Butterworth?
    private var bias = Vector3.zero
    private var samples = 0
    private var magNorm = 0.0, magSamples = 0
    /// The learned dip angle as (cos, sin), averaged; compared with each sample's by the cosine
    /// of their difference, which needs no inverse trigonometry.
    private var magDipCos = 0.0, magDipSin = 0.0
    static let cosMaxDipChange = cos(10 * Double.pi / 180)
    private var restTime = 0.0
    private var restMean = Vector3.zero
    private var lastAcc = Vector3.zero
    private var magGain = 0.0, magGainStep = 0.0
    /// Time the field has been rejected without a break (s).
    private var magRejected = 0.0
    /// How slowly the reference field follows the measured one, and how long a different
    /// field must last to become the new reference (s).
    public var magReferenceTime = 20.0
    /// Rotation below which the device may be resting: 2°/s.
    static let restRate = 2 * Double.pi / 180

    public init() {}

    public var gyroscopeBias: Vector3 { bias }

    /// 6D attitude (heading arbitrary but continuous).
    public var quaternion6D: Quaternion { attitude6D }
    /// accQuat ⊗ gyroQuat, normalised, updated once per sample (both the heading step and
    /// the output read it).
    private var attitude6D = Quaternion.identity

    public var quaternion: Quaternion {
        // The heading correction is a turn by delta about the vertical, written out.
        let (s, c) = (halfSin, halfCos)
        let q = quaternion6D
        return Quaternion(w: c * q.w - s * q.z, x: c * q.x - s * q.y, y: c * q.y + s * q.x, z: c * q.z + s * q.w)
    }

    public mutating func update(_ s: IMUSample, dt: Double, useMagnetometer: Bool) {
        samples += 1
        // Rest: rotation under 2°/s and the accelerometer steady; then the gyroscope's reading
        // is its bias, learned with a slow average.
        let accChange = s.accelerometer - lastAcc, rate = s.gyroscope - bias
        lastAcc = s.accelerometer
        if rate.dot(rate) < Self.restRate * Self.restRate && accChange.dot(accChange) < 0.25 {
            restTime += dt
            restMean = restMean * 0.99 + s.gyroscope * 0.01
            if restTime > 1.5 { bias = bias * 0.995 + restMean * 0.005 }
        } else {
            restTime = 0
            restMean = s.gyroscope
        }
        let w = s.gyroscope - bias
        gyroQuat = (gyroQuat * Quaternion(rotationVector: w * dt)).normalized

        // Coefficients follow the sample period: the first period is a guess (MotionFusion
        // assumes 100 Hz) and live sensors change rate.
        if accFilter == nil { accFilter = Butterworth(tau: tauAcc, dt: dt) }
        else if abs(accFilter!.dt - dt) > 0.1 * dt { accFilter!.design(tau: tauAcc, dt: dt) }
        let inertial = gyroQuat.rotate(s.accelerometer)
        let filtered = accFilter!.filter(inertial)
        let earth = accQuat.rotate(filtered).normalized
        if earth.norm > 0 {
            // Rotate the filtered gravity direction exactly onto +z.
            let qw = ((earth.z + 1) / 2).squareRoot()
            let correction = qw > 1e-6 ? Quaternion(w: qw, x: 0.5 * earth.y / qw, y: -0.5 * earth.x / qw, z: 0) : Quaternion(w: 0, x: 1, y: 0, z: 0)
            accQuat = (correction * accQuat).normalized
        }

        attitude6D = (accQuat * gyroQuat).normalized

        guard useMagnetometer, let m = s.magnetometer, m.norm > 0 else { return }
        let mEarth = quaternion6D.rotate(m)
        let norm = m.norm
        let dipCos = (mEarth.x * mEarth.x + mEarth.y * mEarth.y).squareRoot() / norm, dipSin = mEarth.z / norm
        // Learn the undisturbed field's magnitude and dip; skip samples far from them.
        if magSamples < 300 {
            magNorm += (norm - magNorm) / Double(magSamples + 1)
            magDipCos += (dipCos - magDipCos) / Double(magSamples + 1)
            magDipSin += (dipSin - magDipSin) / Double(magSamples + 1)
            magSamples += 1
        } else {
            let learned = (magDipCos * magDipCos + magDipSin * magDipSin).squareRoot()
            guard abs(norm - magNorm) < 0.1 * magNorm,
                  dipCos * magDipCos + dipSin * magDipSin > Self.cosMaxDipChange * learned else {
                // A field that stays different for long is the new normal (the device moved
                // to another room, not past a magnet): learn it afresh.
                magRejected += dt
                if magRejected > magReferenceTime { magSamples = 0; magNorm = 0; magDipCos = 0; magDipSin = 0; magRejected = 0 }
                return
            }
            magRejected = 0
            // The reference follows slow drift only (time constant magReferenceTime): a quick
            // one would soon accept a nearby magnet's field as undisturbed.
            let follow = dt / magReferenceTime
            magNorm += follow * (norm - magNorm)
            magDipCos += follow * (dipCos - magDipCos)
            magDipSin += follow * (dipSin - magDipSin)
        }
        let measured = atan2(mEarth.x, mEarth.y)
        // Converge fast at first (a running mean), then with the time constant.
        // Recomputed only when the step changes by more than rounding (timestamps jitter).
        if abs(dt - magGainStep) > 1e-6 * dt { magGainStep = dt; magGain = 1 - exp(-dt / tauMag) }
        let k = max(magGain, 1 / Double(min(samples, 10_000)))
        var d = measured - delta
        if abs(d) > .pi { d -= 2 * .pi * (d / (2 * .pi)).rounded() }
        turnHeading(by: k * d)
    }

    /// delta += step, with its half-angle cosine and sine turned along (a series for the
    /// small steps of steady tracking, where it is exact to 1e-15).
    @inline(__always) private mutating func turnHeading(by step: Double) {
        delta += step
        let h = step / 2
        guard abs(h) < 0.05 else { halfCos = cos(delta / 2); halfSin = sin(delta / 2); return }
        let h2 = h * h
        let c = 1 - h2 / 2 + h2 * h2 / 24 - h2 * h2 * h2 / 720, s = h * (1 - h2 / 6 + h2 * h2 / 120 - h2 * h2 * h2 / 5040)
        (halfCos, halfSin) = (halfCos * c - halfSin * s, halfSin * c + halfCos * s)
        // Keep the pair on the unit circle (first-order renormalisation, no square root).
        let r = 1.5 - 0.5 * (halfCos * halfCos + halfSin * halfSin)
        halfCos *= r; halfSin *= r
    }
}
