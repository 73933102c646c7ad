import Foundation

/// How the gyroscope's heading drifts with turning, learned from undisturbed magnetometer
/// samples so that it can be predicted: between samples, and through a disturbance while the
/// magnetometer is kept out.
///
/// A gyroscope whose rate reads a fraction s low (its scale-factor error; BROAD's IMU, about
/// 0.3–0.4 %) turns the gyroscope's (6D) frame against north by s times every turn the device
/// makes about the vertical. While the device keeps turning one way — 11 turns in a minute and
/// a half in BROAD's trial 30 — the first-order heading correction (τ 9 s) then stays behind by
/// drift rate × τ: 0.4 % of 70°/s over 9 s is 2.5°. So the heading of the field in the 6D frame
/// is fitted as ψ ≈ ψ₀ + s·y, y the vertical turn (integrated from the gyroscope) back from
/// now, by least squares over the undisturbed samples with weights that fade over `memory`;
/// the heading filter turns by s times each step's turn and the magnetometer corrects what
/// remains.
///
/// Only the scale error is fitted, not a bias too: a slow drift of ψ over time is also what
/// moving through an inhomogeneous field looks like, and fitted as a bias it was extrapolated
/// (on BROAD's undisturbed trials 02, 07 and 16 a fitted bias raised the error by 0.05–0.1°);
/// the bias is learned at rest instead. A turn-proportional drift is a pattern the field does
/// not share.
///
/// The fit is kept about the present (turns measured back from now), so that its sums stay
/// small however long the filter runs.
struct HeadingDrift: Sendable {
    /// Time over which old samples fade from the fit (s): 100 s, like VQF's forgetting of its
    /// bias estimate; the scale error, like the bias, changes slowly if at all.
    static let memory = 100.0
    /// The heading error of one magnetometer sample (rad): 2 µT of noise and inhomogeneity on
    /// a 16–20 µT horizontal field.
    static let headingNoise = 0.1
    /// How long the field's heading errors stay alike (s): they change as the device moves
    /// through the field's inhomogeneities and as its tilt estimate's errors change, over about
    /// a second; samples within it are not independent evidence.
    static let errorCorrelationTime = 1.0
    /// Spread of the scale error before any turning has been seen: 1 %, the calibrated
    /// accuracy of MEMS gyroscopes' sensitivity.
    static let scaleSpread = 0.01

    /// Weighted sums of the fit ψ ≈ a + s·y, y the vertical turn back from now.
    private var n = 0.0, ny = 0.0, yy = 0.0, p = 0.0, py = 0.0
    /// The fitted scale error (rad of heading drift per rad of vertical turn).
    private(set) var scale = 0.0

    /// The prior's weight, per sample of period dt: the heading noise squared over the scale
    /// error's spread squared, counted once per correlation time (so once every 1/dt samples).
    static func prior(dt: Double) -> Double {
        (headingNoise * headingNoise) / (scaleSpread * scaleSpread) * (errorCorrelationTime / dt)
    }

    /// Moves the fit's origin on by one step that turned the device by `turn` radians about the
    /// vertical, with the forgetting factor for the step, and returns the change of ψ it
    /// predicts.
    @inline(__always) mutating func advance(turn: Double, forgetting f: Double) -> Double {
        // Every past sample is now `turn` further back: shift the moments, then fade.
        yy = (yy - 2 * turn * ny + turn * turn * n) * f
        ny = (ny - turn * n) * f
        py = (py - turn * p) * f
        n *= f; p *= f
        return scale * turn
    }

    /// Adds an undisturbed sample's field heading ψ (rad, in the 6D frame, continuous) taken
    /// now, and refits: s = Σ(ψ − ψ̄)(y − ȳ) / (Σ(y − ȳ)² + prior).
    @inline(__always) mutating func add(heading psi: Double, prior: Double) {
        n += 1; p += psi
        let inverse = 1 / n
        scale = (py - p * ny * inverse) / (yy - ny * ny * inverse + prior)
    }
}
