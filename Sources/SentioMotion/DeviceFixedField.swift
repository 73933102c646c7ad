import Foundation

/// The earth's field recovered through a disturbance that moves with the device: a magnet or a
/// piece of magnetised steel attached to it adds a field h that is constant in sensor
/// coordinates (a "hard-iron" offset), so that in the gyroscope's almost-inertial (6D) frame
/// the magnetometer reads
///
///     e = R·m = b + R·h,
///
/// R the 6D attitude (sensor to 6D frame), m the sensor's reading, b the earth's field in the
/// 6D frame (constant while the gyroscope's frame holds). Both b and h enter linearly, so they
/// are fitted by least squares over the samples since the disturbance began:
///
///     minimise Σ |eₖ − b − Rₖh|² + λ|b − b₀|²,
///
/// b₀ the field the filter expected when the disturbance began (the reference's magnitude and
/// dip, at the heading the filter holds): the prior that keeps b where the data say nothing.
/// The data separate b from h only as the device turns (Rₖh then sweeps while b stays); held
/// still, b stays b₀ and the heading is the gyroscope's alone, as when the field is rejected.
/// Turned, b's horizontal direction is north in the 6D frame again, from the disturbed field.
///
/// This is Sentio's addition to the method of VQF (which rejects such a field for up to a
/// minute and then uses it at a reduced gain), derived from the model above. A disturbance that
/// does not move with the device (a magnet on the table the device passes, a steel frame)
/// breaks the model: the residual grows and the fit starts over, and a fitted b whose
/// magnitude or dip differs from the reference is not used.
///
/// b is not quite constant in the 6D frame, though: that frame drifts against north as the
/// gyroscope's scale error turns it with every turn about the vertical (`HeadingDrift`), on
/// BROAD's attached-magnet trials 35 and 36 by 0.13–0.2°/s of fast tumbling. A b held constant
/// averages the field's heading over the fit's memory (20 s) and so lags it by memory × drift
/// rate, 2–3° there, more than the gyroscope drifted. So the fit lets b turn with the vertical
/// turn, as `HeadingDrift` models it: bₖ = b + yₖ·c, yₖ the vertical turn of sample k back
/// from now, c = s·(b_y, −b_x, 0) the horizontal change of b per radian (s the scale error), with
/// the scale learned so far as c's prior (spread 1 %, weighed as `HeadingDrift` weighs it):
///
///     minimise Σ |eₖ − b − yₖc − Rₖh|² + λ|b + y₀c − b₀|² + λc|c − c₀|²,
///
/// and b, the field now, gives the heading. The prior b₀ is the field expected when the fit
/// began, so it is held at that time, y₀ back from now, like a sample taken then: a prior held
/// at "now" would pull the field back to where it was in the drifting frame, against the drift
/// the data show (on BROAD's trials 35 and 36, where the magnet came before any undisturbed
/// turning, this and the delay below go together; see docs/motion.md).
///
/// The same model gives the magnetometer's delay while the fit holds: a sample taken L late shows
/// the earth's field turned by the rotation over L, b + L·(ω × b), while a device-fixed field
/// reads the same however late (it turns with the device), so the rotation-induced change of
/// the reading, and with it the delay, shows through the offset. The sample's miss against the
/// fit before it is added (`innovation`) is what the filter's delay fit regresses on ω × b.
///
/// With n the weight of the samples and S = ΣRₖ, setting the gradient to zero gives
/// h = (Σm − Sᵀb − Qᵀc)/n (Q the first two rows of ΣyₖRₖ) and a 5×5 symmetric positive
/// definite system in (b, c), solved as a 2×2 and a 3×3 one. Only sums are kept (shifted as
/// each step's turn moves "now"), so each sample costs some hundred operations, and only while
/// the field is judged disturbed.
struct DeviceFixedField: Sendable {
    /// How long the prior counts for, in seconds of samples: a heading held by the gyroscope
    /// for a few seconds is better than one sample of a fit, worse than a turn's worth of them.
    static let priorTime = 2.0
    /// Time over which old samples fade (s): longer gathers more turning, but the 6D frame's
    /// heading drifts (a few tenths of a degree a minute after the bias is learned), so b is
    /// only constant over tens of seconds.
    static let memory = 20.0
    /// A sample whose reading misses the fit by more than this (µT), low-passed over
    /// `residualTau`, means the disturbance is not (or no longer) device-fixed: the magnet was
    /// moved, or the device passes through a gradient. The sensor's noise and the field's
    /// inhomogeneity over a room are about 2 µT.
    static let maxResidual = 5.0
    static let residualTau = 0.1
    /// The fit is used only after this long without a restart (s): less than that of a
    /// disturbance's onset (the magnet being brought to the device) may still be in it.
    static let minWindow = 2.0

    private var n = 0.0
    /// ΣRₖ as rows.
    private var s0 = Vector3.zero, s1 = Vector3.zero, s2 = Vector3.zero
    private var sumE = Vector3.zero, sumM = Vector3.zero
    private var prior = Vector3.zero
    /// The drift term's sums: Σy, Σy², Σy·e (horizontal part) and Σy·Rₖ's first two rows, y
    /// the vertical turn of each sample back from now; its prior c₀ and weight.
    private var sumY = 0.0, sumYY = 0.0, sumYE = Vector3.zero, q0 = Vector3.zero, q1 = Vector3.zero
    private var driftPrior = Vector3.zero, driftWeight = 0.0
    /// y₀: the vertical turn back from now to the fit's start, where the prior b₀ is held.
    private var priorTurn = 0.0
    private var residual = 0.0
    /// The last sample's miss against the fit before it was added (e − b − R·h, µT, in the 6D
    /// frame), nil unless that fit could be trusted (`minWindow` without a restart).
    private(set) var innovation: Vector3?
    private var window = 0.0
    private(set) var active = false
    /// |h| of the last trusted fit (µT), 0 while there is none.
    private(set) var offset = 0.0
    /// The scale error the last trusted fit measured (c against b, rad of heading per rad of turn).
    private(set) var fittedScale = 0.0
    /// An offset larger than this (µT) is a disturbance of its own: while the fit holds one, the
    /// field is not the earth's even where its magnitude and dip happen to match the reference's
    /// (the device-fixed field added to the earth's can have both), so the fit keeps the
    /// heading. The size: an offset that can turn the horizontal field by more than the
    /// detector's 10° (`MagneticDisturbanceDetector.cosDipThreshold`), sin 10° of the expected
    /// horizontal field — 2.8 µT on BROAD's 16 µT. (It was 5 µT, which the vibration motor of
    /// BROAD's trial 26, about 3.9 µT fixed to the device, stayed under.) Set when a fit starts.
    private(set) var significantOffset = 0.0
    static let sinDipThreshold = (1 - MagneticDisturbanceDetector.cosDipThreshold * MagneticDisturbanceDetector.cosDipThreshold).squareRoot()
    var holds: Bool { active && offset > significantOffset }
    private var forgetting = 1.0, residualGain = 1.0, lambda = 0.0, gainStep = 0.0

    /// Forgets the fit: the next disturbance starts afresh.
    mutating func reset() {
        active = false
        offset = 0
    }

    /// Adds a disturbed sample: `m` the sensor's reading, `e` the same in the 6D frame
    /// (`attitude.rotate(m)`), `expected` the earth field the filter would expect in the 6D
    /// frame now. Returns the fitted earth field in the 6D frame once the fit can be trusted
    /// (nil otherwise).
    mutating func add(m: Vector3, e: Vector3, attitude q: Quaternion, expected: Vector3, turn: Double, scale: Double, dt: Double) -> Vector3? {
        if abs(dt - gainStep) > 1e-6 * dt {
            gainStep = dt
            forgetting = exp(-dt / Self.memory)
            residualGain = 1 - exp(-dt / Self.residualTau)
            lambda = Self.priorTime / dt
        }
        if active {
            // The sample against the current fit, before it is added.
            let (b, h, _) = solve()
            let r = e - b - q.rotate(h)
            residual += residualGain * (r.norm - residual)
            innovation = window >= Self.minWindow ? r : nil
            if residual > Self.maxResidual { active = false; offset = 0 }
        }
        if !active {
            innovation = nil
            active = true
            n = 0; s0 = .zero; s1 = .zero; s2 = .zero; sumE = .zero; sumM = .zero
            prior = expected
            residual = 0
            window = 0
            sumY = 0; sumYY = 0; sumYE = .zero; q0 = .zero; q1 = .zero
            priorTurn = 0
            // The heading drift known so far (`HeadingDrift.scale`) turns b by `scale` per
            // radian of vertical turn: db/dψ = (b_y, −b_x, 0) for ψ clockwise from north.
            driftPrior = Vector3(expected.y, -expected.x, 0) * scale
            let horizontal = (expected.x * expected.x + expected.y * expected.y).squareRoot()
            significantOffset = Self.sinDipThreshold * horizontal
            let spread = max(HeadingDrift.scaleSpread * horizontal, 1e-3)
            driftWeight = (Self.fieldNoise * Self.fieldNoise) / (spread * spread) * (HeadingDrift.errorCorrelationTime / dt)
        }
        // Every sample so far is now `turn` further back: shift the drift term's sums (y → y − turn).
        sumYY += -2 * turn * sumY + turn * turn * n
        sumY -= turn * n
        priorTurn -= turn
        sumYE = sumYE - Vector3(sumE.x, sumE.y, 0) * turn
        q0 = q0 - s0 * turn; q1 = q1 - s1 * turn
        sumY *= forgetting; sumYY *= forgetting; sumYE = sumYE * forgetting; q0 = q0 * forgetting; q1 = q1 * forgetting
        // The rotation matrix of q, added row by row.
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        let r0 = Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y))
        let r1 = Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x))
        let r2 = Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
        n = n * forgetting + 1
        s0 = s0 * forgetting + r0; s1 = s1 * forgetting + r1; s2 = s2 * forgetting + r2
        sumE = sumE * forgetting + e
        sumM = sumM * forgetting + m
        window += dt
        guard window >= Self.minWindow else { offset = 0; return nil }
        let (b, h, c) = solve()
        offset = h.norm
        let bh2 = b.x * b.x + b.y * b.y
        fittedScale = bh2 > 0 ? (c.0 * b.y - c.1 * b.x) / bh2 : 0
        return b
    }

    /// The field's noise per sample (µT): the sensor's and the room's inhomogeneity, as in
    /// `HeadingDrift.headingNoise` (0.1 rad of a 16–20 µT horizontal field).
    static let fieldNoise = 2.0

    /// b, c and h from the sums (see the type's comment). The normal equations in (b, c, h);
    /// h eliminated (h = (Σm − Sᵀb − Qᵀc)/n, Q the rows q₀, q₁), then c (2×2), leaving 3×3 in b.
    /// The prior λ|b + y₀c − b₀|² adds λ to the b block, λy₀ to the coupling, λy₀² to the c
    /// block and λy₀·b₀ to c's right-hand side.
    private func solve() -> (b: Vector3, h: Vector3, c: (Double, Double)) {
        let inverseN = 1 / n
        // The b block: A = (n + λ)I − S·Sᵀ/n.
        let d = n + lambda
        var a00 = d - s0.dot(s0) * inverseN, a11 = d - s1.dot(s1) * inverseN, a22 = d - s2.dot(s2) * inverseN
        var a01 = -s0.dot(s1) * inverseN, a02 = -s0.dot(s2) * inverseN, a12 = -s1.dot(s2) * inverseN
        var rhs = sumE - Vector3(s0.dot(sumM), s1.dot(sumM), s2.dot(sumM)) * inverseN + prior * lambda
        // The c block C = (Σy² + λy₀² + λc)I − Q·Qᵀ/n, the coupling B[i][j] = (Σy + λy₀)·δij −
        // sᵢ·qⱼ/n, and c's right-hand side Σy·e − Q·Σm/n + λy₀·b₀ + λc·c₀.
        let priorY = lambda * priorTurn
        let cd = sumYY + priorY * priorTurn + driftWeight
        let c00 = cd - q0.dot(q0) * inverseN, c11 = cd - q1.dot(q1) * inverseN, c01 = -q0.dot(q1) * inverseN
        let b00 = sumY + priorY - s0.dot(q0) * inverseN, b01 = -s0.dot(q1) * inverseN
        let b10 = -s1.dot(q0) * inverseN, b11 = sumY + priorY - s1.dot(q1) * inverseN
        let b20 = -s2.dot(q0) * inverseN, b21 = -s2.dot(q1) * inverseN
        let rc0 = sumYE.x - q0.dot(sumM) * inverseN + priorY * prior.x + driftWeight * driftPrior.x
        let rc1 = sumYE.y - q1.dot(sumM) * inverseN + priorY * prior.y + driftWeight * driftPrior.y
        // C⁻¹ (2×2, positive definite: λc > 0).
        let inverseDetC = 1 / (c00 * c11 - c01 * c01)
        let i00 = c11 * inverseDetC, i11 = c00 * inverseDetC, i01 = -c01 * inverseDetC
        // Schur complement: A −= B·C⁻¹·Bᵀ, rhs −= B·C⁻¹·r_c.
        let (g00, g01) = (b00 * i00 + b01 * i01, b00 * i01 + b01 * i11)
        let (g10, g11) = (b10 * i00 + b11 * i01, b10 * i01 + b11 * i11)
        let (g20, g21) = (b20 * i00 + b21 * i01, b20 * i01 + b21 * i11)
        a00 -= g00 * b00 + g01 * b01; a11 -= g10 * b10 + g11 * b11; a22 -= g20 * b20 + g21 * b21
        a01 -= g00 * b10 + g01 * b11; a02 -= g00 * b20 + g01 * b21; a12 -= g10 * b20 + g11 * b21
        rhs = rhs - Vector3(g00 * rc0 + g01 * rc1, g10 * rc0 + g11 * rc1, g20 * rc0 + g21 * rc1)
        // Cramer's rule through the adjugate (A is well conditioned: λ > 0 bounds it below).
        let k00 = a11 * a22 - a12 * a12, k01 = a02 * a12 - a01 * a22, k02 = a01 * a12 - a02 * a11
        let k11 = a00 * a22 - a02 * a02, k12 = a01 * a02 - a00 * a12, k22 = a00 * a11 - a01 * a01
        let inverseDet = 1 / (a00 * k00 + a01 * k01 + a02 * k02)
        let b = Vector3(k00 * rhs.x + k01 * rhs.y + k02 * rhs.z,
                        k01 * rhs.x + k11 * rhs.y + k12 * rhs.z,
                        k02 * rhs.x + k12 * rhs.y + k22 * rhs.z) * inverseDet
        // c = C⁻¹(r_c − Bᵀb); h = (Σm − Sᵀb − Qᵀc)/n.
        let r0 = rc0 - (b00 * b.x + b10 * b.y + b20 * b.z), r1 = rc1 - (b01 * b.x + b11 * b.y + b21 * b.z)
        let c = (i00 * r0 + i01 * r1, i01 * r0 + i11 * r1)
        let h = (sumM - (s0 * b.x + s1 * b.y + s2 * b.z) - (q0 * c.0 + q1 * c.1)) * inverseN
        return (b, h, c)
    }
}
