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
    /// Squared change of the accelerometer between samples below which it counts as steady:
    /// (0.5 m/s²)², in g².
    static let restAccelerationChange = (0.5 / standardGravity) * (0.5 / standardGravity)

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
        if rate.dot(rate) < Self.restRate * Self.restRate && accChange.dot(accChange) < Self.restAccelerationChange {
            restTime += dt
            restMean = restMean * 0.99 + s.gyroscope * 0.01
            if restTime > 1.5 { bias = bias * 0.995 + restMean * 0.005 }
        } else {
            restTime = 0
            restMean = s.gyroscope
        }
        let w = s.gyroscope - bias
        gyroQuat = (gyroQuat * Quaternion(rotationVector: w * dt)).renormalized

        // Coefficients follow the sample period: the first period is a guess (MotionFusion
        // assumes 100 Hz) and live sensors change rate.
        if accFilter == nil { accFilter = Butterworth(tau: tauAcc, dt: dt) }
        else if abs(accFilter!.dt - dt) > 0.1 * dt { accFilter!.design(tau: tauAcc, dt: dt) }
        let inertial = gyroQuat.rotate(s.accelerometer)
        let filtered = accFilter!.filter(inertial)
        let earth = accQuat.rotate(filtered)
        let n = earth.norm
        if n > 0 {
            // Rotate the filtered gravity direction exactly onto +z: about earth × z by the
            // angle between them, the quaternion (n + earth.z, earth.y, −earth.x, 0) up to its
            // length, which the product's normalization takes care of. (Upside down, where
            // that axis vanishes, half a turn about x.)
            let p = n + earth.z
            let correction = p > 2e-12 * n ? Quaternion(w: p, x: earth.y, y: -earth.x, z: 0) : Quaternion(w: 0, x: 1, y: 0, z: 0)
            accQuat = (correction * accQuat).normalized
        }

        attitude6D = (accQuat * gyroQuat).renormalized

        guard useMagnetometer, let m = s.magnetometer, m.norm > 0 else { return }
        let mEarth = quaternion6D.rotate(m)
        let norm = m.norm, inverse = 1 / norm
        let dipCos = (mEarth.x * mEarth.x + mEarth.y * mEarth.y).squareRoot() * inverse, dipSin = mEarth.z * inverse
        // Learn the undisturbed field's magnitude and dip; skip samples far from them.
        if magSamples < 300 {
            magNorm += (norm - magNorm) / Double(magSamples + 1)
            magDipCos += (dipCos - magDipCos) / Double(magSamples + 1)
            magDipSin += (dipSin - magDipSin) / Double(magSamples + 1)
            magSamples += 1
        } else {
            // The dip differs by less than 10° when cos(difference) > cos 10°, with the learned
            // (averaged, so shorter than unit) direction's length on the right: compared
            // squared, as both sides are positive then, so no square root is needed.
            let agreement = dipCos * magDipCos + dipSin * magDipSin
            let learnedSquared = magDipCos * magDipCos + magDipSin * magDipSin
            guard abs(norm - magNorm) < 0.1 * magNorm, agreement > 0,
                  agreement * agreement > Self.cosMaxDipChange * Self.cosMaxDipChange * learnedSquared else {
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
        // The measured heading relative to the current one: the horizontal field turned back
        // by delta (cos and sin of delta from the half-angle pair), its angle from north.
        let (cosDelta, sinDelta) = (halfCos * halfCos - halfSin * halfSin, 2 * halfCos * halfSin)
        let across = mEarth.x * cosDelta - mEarth.y * sinDelta, along = mEarth.y * cosDelta + mEarth.x * sinDelta
        let d = Self.angle(across, along)
        // Converge fast at first (a running mean), then with the time constant.
        // Recomputed only when the step changes by more than rounding (timestamps jitter).
        if abs(dt - magGainStep) > 1e-6 * dt { magGainStep = dt; magGain = 1 - exp(-dt / tauMag) }
        let k = max(magGain, 1 / Double(min(samples, 10_000)))
        turnHeading(by: k * d)
    }

    /// atan2(y, x), by its series when the angle is under 0.1 rad (steady tracking; the error
    /// is below the first term left out, 0.1¹¹/11 < 1e-12 rad), by the library otherwise.
    @inline(__always) static func angle(_ y: Double, _ x: Double) -> Double {
        guard x > 0, abs(y) < 0.1 * x else { return atan2(y, x) }
        let t = y / x, t2 = t * t
        return t * (1 - t2 * (1 / 3 - t2 * (1 / 5 - t2 * (1 / 7 - t2 / 9))))
    }

    /// delta += step, with its half-angle cosine and sine turned along (a series for the
    /// small steps of steady tracking, where it is exact to 1e-15).
    @inline(__always) private mutating func turnHeading(by step: Double) {
        delta += step
        let h = step / 2
        guard abs(h) < 0.05 else { halfCos = cos(delta / 2); halfSin = sin(delta / 2); return }
        let h2 = h * h
        let c = 1 + h2 * (-0.5 + h2 * (1.0 / 24 - h2 * (1.0 / 720)))
        let s = h * (1 + h2 * (-1.0 / 6 + h2 * (1.0 / 120 - h2 * (1.0 / 5040))))
        (halfCos, halfSin) = (halfCos * c - halfSin * s, halfSin * c + halfCos * s)
        // Keep the pair on the unit circle (first-order renormalisation, no square root).
        let r = 1.5 - 0.5 * (halfCos * halfCos + halfSin * halfSin)
        halfCos *= r; halfSin *= r
    }
}
