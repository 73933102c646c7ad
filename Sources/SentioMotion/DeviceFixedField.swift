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
/// With n the weight of the samples and S = ΣRₖ, setting the gradient to zero gives
/// h = (Σm − Sᵀb)/n and ((n + λ)I − SSᵀ/n)·b = Σe − S·Σm/n + λb₀: a 3×3 symmetric positive
/// definite system. Only sums are kept, so each sample costs a few dozen operations, and only
/// while the field is judged disturbed.
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
    private var residual = 0.0
    private var window = 0.0
    private(set) var active = false
    /// |h| of the last trusted fit (µT), 0 while there is none.
    private(set) var offset = 0.0
    /// An offset this large (µT) is a disturbance of its own, well above the fit's noise: while
    /// the fit holds one, the field is not the earth's even where its magnitude and dip happen
    /// to match the reference's (the device-fixed field added to the earth's can have both),
    /// so the fit keeps the heading.
    static let significantOffset = 5.0
    var holds: Bool { active && offset > Self.significantOffset }
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
    mutating func add(m: Vector3, e: Vector3, attitude q: Quaternion, expected: Vector3, dt: Double) -> Vector3? {
        if abs(dt - gainStep) > 1e-6 * dt {
            gainStep = dt
            forgetting = exp(-dt / Self.memory)
            residualGain = 1 - exp(-dt / Self.residualTau)
            lambda = Self.priorTime / dt
        }
        if active {
            // The sample against the current fit, before it is added.
            let (b, h) = solve()
            let r = e - b - q.rotate(h)
            residual += residualGain * (r.norm - residual)
            if residual > Self.maxResidual { active = false; offset = 0 }
        }
        if !active {
            active = true
            n = 0; s0 = .zero; s1 = .zero; s2 = .zero; sumE = .zero; sumM = .zero
            prior = expected
            residual = 0
            window = 0
        }
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
        let (b, h) = solve()
        offset = h.norm
        return b
    }

    /// b and h from the sums (see the type's comment).
    private func solve() -> (b: Vector3, h: Vector3) {
        let inverseN = 1 / n
        // A = (n + λ)I − S·Sᵀ/n, symmetric: its entries from the rows' dot products.
        let d = n + lambda
        let a00 = d - s0.dot(s0) * inverseN, a11 = d - s1.dot(s1) * inverseN, a22 = d - s2.dot(s2) * inverseN
        let a01 = -s0.dot(s1) * inverseN, a02 = -s0.dot(s2) * inverseN, a12 = -s1.dot(s2) * inverseN
        // rhs = Σe − S·Σm/n + λb₀.
        let rhs = sumE - Vector3(s0.dot(sumM), s1.dot(sumM), s2.dot(sumM)) * inverseN + prior * lambda
        // Cramer's rule through the adjugate (A is well conditioned: λ > 0 bounds it below).
        let c00 = a11 * a22 - a12 * a12, c01 = a02 * a12 - a01 * a22, c02 = a01 * a12 - a02 * a11
        let c11 = a00 * a22 - a02 * a02, c12 = a01 * a02 - a00 * a12, c22 = a00 * a11 - a01 * a01
        let inverseDet = 1 / (a00 * c00 + a01 * c01 + a02 * c02)
        let b = Vector3(c00 * rhs.x + c01 * rhs.y + c02 * rhs.z,
                        c01 * rhs.x + c11 * rhs.y + c12 * rhs.z,
                        c02 * rhs.x + c12 * rhs.y + c22 * rhs.z) * inverseDet
        // h = (Σm − Sᵀb)/n; Sᵀb = Σ rows scaled by b's components.
        let h = (sumM - (s0 * b.x + s1 * b.y + s2 * b.z)) * inverseN
        return (b, h)
    }
}
