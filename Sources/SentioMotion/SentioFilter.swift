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
/// direction corrects the heading separately (τ 9 s), and is kept out while its magnitude or
/// dip angle leaves the learned reference (`MagneticDisturbanceDetector`); through a
/// disturbance that moves with the device (a magnet attached to it) the earth's field is
/// separated from the device-fixed one by a least-squares fit (`DeviceFixedField`). The
/// magnetometer's delay against the gyroscope is learned and undone, and the heading drift
/// that the gyroscope's scale error causes while the device keeps turning is predicted
/// (`HeadingDrift`). Gyroscope bias is learned while the device rests. Causal: each estimate
/// uses only the samples up to it. docs/motion.md gives each mechanism's measured effect.
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
    private var restTime = 0.0
    private var restMean = Vector3.zero
    private var lastAcc = Vector3.zero
    private var magnetic = MagneticDisturbanceDetector()
    private var drift = HeadingDrift()
    private var deviceFixed = DeviceFixedField()
    /// Magnetometer samples used for the heading so far: the first ones converge as a running
    /// mean (gain 1/n) before the time constant takes over.
    private var magUpdates = 0
    private var magGain = 0.0, lagForgetting = 1.0, driftForgetting = 1.0, driftPrior = 0.0, magGainStep = 0.0
    /// Sums of the delay's least-squares fit (see `learnDelay`).
    private var lagProducts = 0.0, lagSquares = 0.0
    /// Rotation below which the device may be resting: 2°/s.
    static let restRate = 2 * Double.pi / 180
    /// Squared change of the accelerometer between samples below which it counts as steady:
    /// (0.5 m/s²)², in g².
    static let restAccelerationChange = (0.5 / standardGravity) * (0.5 / standardGravity)
    /// The delay's fit forgets with this time constant (s), so that it follows a sensor that
    /// changes its rate; 100 s, like VQF's forgetting of its bias estimate, since the delay,
    /// like the bias, is a property of the sensor that changes slowly if at all.
    static let lagMemory = 100.0
    /// The fit's prior (µT²/s², the weight of "no delay"): the residual noise (about 2 µT:
    /// sensor noise and the field's inhomogeneity) squared over a prior spread of the delay of
    /// 20 ms — so a few seconds of rotation outweigh it, and a device that never turns keeps
    /// a delay of zero.
    static let lagPrior = (2.0 * 2.0) / (0.02 * 0.02)
    /// Largest delay believed (s): a magnetometer sampled at 10 Hz or faster lags by less.
    static let maxLag = 0.1

    public init() {}

    public var gyroscopeBias: Vector3 { bias }

    /// Whether the last magnetometer sample was judged disturbed (kept from the heading, or used
    /// at half the gain once the rejection time is spent).
    public var magneticDisturbanceDetected: Bool { magnetic.disturbed }

    /// The magnetometer's delay behind the gyroscope (s), learned while the device turns in a
    /// settled field or through a disturbance fixed to the device (`DeviceFixedField`): each
    /// magnetometer sample is turned back by the rotation over it.
    public private(set) var magnetometerDelay = 0.0

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

        guard useMagnetometer, let raw = s.magnetometer else { return }
        let norm = raw.norm
        guard norm > 0 else { return }
        // A magnetometer sample shows the field as the device was `magnetometerDelay` ago: turn
        // it back by the rotation since, to where the gyroscope says the device is now.
        let m = magnetometerDelay == 0 ? raw : Quaternion(rotationVector: w * -magnetometerDelay).rotate(raw)
        let mEarth = attitude6D.rotate(m)
        let inverse = 1 / norm
        let dipCos = (mEarth.x * mEarth.x + mEarth.y * mEarth.y).squareRoot() * inverse, dipSin = mEarth.z * inverse
        // Recomputed only when the step changes by more than rounding (timestamps jitter).
        if abs(dt - magGainStep) > 1e-6 * dt {
            magGainStep = dt
            magGain = 1 - exp(-dt / tauMag)
            lagForgetting = exp(-dt / Self.lagMemory)
            driftForgetting = exp(-dt / HeadingDrift.memory)
            driftPrior = HeadingDrift.prior(dt: dt)
        }
        // The earth-frame rotation rate: its vertical part turns the 6D frame's heading
        // (through the gyroscope's scale error) and the delay fit needs all of it.
        // Measured on the five BROAD fixture trials (mean total 9D error; the committed filter
        // before these had 1.72°): the disturbance detector alone 1.69°, with the delay 1.60°,
        // with the delay and the drift 1.43° (trial 30, eleven turns one way: 2.80° → 1.85°).
        // The two go together: the drift without the delay made trial 30 worse (5.0°), as in
        // steady turning both show as a heading lag proportional to the rate.
        let rateEarth = attitude6D.rotate(w)
        turnHeading(by: drift.advance(turn: rateEarth.z * dt, forgetting: driftForgetting))
        let factor = magnetic.update(norm: norm, dipCos: dipCos, dipSin: dipSin,
                                     rotating: w.dot(w) > MagneticDisturbanceDetector.newFieldMinRate * MagneticDisturbanceDetector.newFieldMinRate,
                                     deviceFixed: deviceFixed.holds, dt: dt)
        let (cosDelta, sinDelta) = (halfCos * halfCos - halfSin * halfSin, 2 * halfCos * halfSin)
        // A fit, once started, runs until the field has settled (`MagneticDisturbanceDetector.settled`),
        // not only while samples leave the thresholds: a weak device-fixed field (a small magnet,
        // a vibration motor's) flickers in and out of them, and only a fit through the whole
        // stretch sees that it is device-fixed.
        if factor < 1 || deviceFixed.holds || (deviceFixed.active && !magnetic.settled) {
            // Disturbed: the earth's field may still be had if the disturbance moves with the
            // device (`DeviceFixedField`).
            let reference = magnetic.reference
            let length = (reference.dipCos * reference.dipCos + reference.dipSin * reference.dipSin).squareRoot()
            let horizontal = reference.norm * reference.dipCos / length, vertical = reference.norm * reference.dipSin / length
            // The delay's correction turns the whole reading back, but a device-fixed field
            // does not turn with the device: the fit takes the raw reading with the attitude
            // the device had when it was taken (the product is mEarth all the same).
            let then = magnetometerDelay == 0 ? attitude6D : attitude6D * Quaternion(rotationVector: w * -magnetometerDelay)
            let expected = Vector3(horizontal * sinDelta, horizontal * cosDelta, vertical)
            if let b = deviceFixed.add(m: raw, e: mEarth, attitude: then, expected: expected,
                                       turn: rateEarth.z * dt, scale: drift.scale, dt: dt) {
                // While the fit holds a device-fixed offset, its misses still show the delay:
                // the offset reads the same however late, the earth's field turned by the
                // rotation over the delay (`DeviceFixedField`). Without this, a magnet attached
                // before any undisturbed turning (BROAD's 35 and 36) left the delay unknown
                // (zero) through the whole disturbance while the device turned at 200°/s.
                if deviceFixed.holds, let miss = deviceFixed.innovation {
                    fitDelay(regressor: rateEarth.cross(expected), miss: miss)
                }
                let bNorm = b.norm
                let field = MagneticDisturbanceDetector.Field(norm: bNorm, dipCos: (b.x * b.x + b.y * b.y).squareRoot() / bNorm, dipSin: b.z / bNorm)
                if reference.accepts(field) {
                    // The heading is predicted with the drift the fit measured (rather than the
                    // one learned before, already applied above), so that it follows the field
                    // now instead of lagging it by the drift over τ.
                    turnHeading(by: (deviceFixed.fittedScale - drift.scale) * rateEarth.z * dt)
                    turnHeading(by: magGain * Self.angle(b.x * cosDelta - b.y * sinDelta, b.y * cosDelta + b.x * sinDelta))
                    return
                }
            }
            // A device-fixed offset is held: the raw field is not the earth's, whatever its
            // magnitude and dip.
            if deviceFixed.holds { return }
        } else if deviceFixed.active {
            deviceFixed.reset()
        }
        guard factor > 0 else { return }
        // The measured heading relative to the current one: the horizontal field turned back
        // by delta (cos and sin of delta from the half-angle pair), its angle from north.
        let across = mEarth.x * cosDelta - mEarth.y * sinDelta, along = mEarth.y * cosDelta + mEarth.x * sinDelta
        let d = Self.angle(across, along)
        // Converge fast at first (a running mean over the samples used), then with the time
        // constant; at the reduced factor once a disturbance outlasts its rejection.
        var k = magGain * factor
        if factor == 1 {
            magUpdates += 1
            if magUpdates < 10_000_000 { k = max(k, 1 / Double(magUpdates)) }
            // The sensor's delay and drift are learned only from a settled field: a field that
            // flickers in and out of the thresholds (a weak magnet on the device, a vibration
            // motor's) passes them where its disturbance happens to line up, and those samples
            // taught a delay of −38 ms on trial 35 (with the device-fixed fit turned off) and of
            // 21 ms on trial 26 (10–16 ms on the other BROAD trials); see `MagneticDisturbanceDetector.settled`.
            if magnetic.settled {
                learnDelay(rateEarth: rateEarth, field: Vector3(across, along, mEarth.z))
                drift.add(heading: delta + d, prior: driftPrior)
            }
        }
        turnHeading(by: k * d)
    }

    /// Fits the magnetometer's delay L to undisturbed samples. A sample taken L late shows the
    /// earth-frame field b turned by the rotation over L: b + L·(ω × b) to first order, ω the
    /// rotation rate in the earth frame. Least squares over samples with the reference
    /// direction b (north, at the reference dip): L = Σ (e − b)·(ω × b) / Σ |ω × b|², where
    /// (e − b)·(ω × b) = e·(ω × b) since b ⊥ ω × b. `field` was already turned back by the
    /// current estimate, so that estimate is added back to each product. The sums forget
    /// over `lagMemory`, and the prior keeps L at zero until rotation has shown it.
    @inline(__always) private mutating func learnDelay(rateEarth r6: Vector3, field e: Vector3) {
        let reference = magnetic.reference
        let length = (reference.dipCos * reference.dipCos + reference.dipSin * reference.dipSin).squareRoot()
        guard length > 0 else { return }
        let scale = reference.norm / length
        // The 9D frame: the 6D attitude turned by delta about the vertical.
        let (cosDelta, sinDelta) = (halfCos * halfCos - halfSin * halfSin, 2 * halfCos * halfSin)
        let omega = Vector3(r6.x * cosDelta - r6.y * sinDelta, r6.y * cosDelta + r6.x * sinDelta, r6.z)
        fitDelay(regressor: omega.cross(Vector3(0, reference.dipCos * scale, reference.dipSin * scale)), miss: e)
    }

    /// One sample of the delay's fit: `regressor` u = ω × b (the change of the reading per second
    /// of delay), `miss` the reading's departure from the field expected with the current delay
    /// undone, whose component along u is (L − current)·|u|²; so the current delay is added back.
    @inline(__always) private mutating func fitDelay(regressor u: Vector3, miss: Vector3) {
        let uu = u.dot(u)
        lagProducts = lagProducts * lagForgetting + miss.dot(u) + magnetometerDelay * uu
        lagSquares = lagSquares * lagForgetting + uu
        magnetometerDelay = min(max(lagProducts / (lagSquares + Self.lagPrior), -Self.maxLag), Self.maxLag)
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
