import Foundation

/// Whether the magnetometer sees the earth's field or a disturbed one, judged as VQF's paper
/// (Laidig and Seel, 2023, section on magnetic disturbance rejection) describes, written anew:
///
/// - the field's magnitude and dip angle, low-passed over a few samples, are compared with a
///   learned reference; beyond 10 % or 10° the field is disturbed, and it counts as undisturbed
///   again only after half a second within both;
/// - a disturbed field is kept from the heading for at most a minute in total (the gyroscope
///   alone drifts too, so some heading information is better than none after that); past it,
///   the field is used at half the gain; undisturbed time earns the budget back twice as fast;
/// - a different field becomes the new reference only when it stays the same (within the same
///   thresholds) for 20 s of rotation: a homogeneous field keeps its magnitude and dip however
///   the device turns, while a magnet on the device or the gradient near an object changes them
///   as it turns or moves. The first reference, learned at rest at the start, is provisional
///   until it has held through 5 s of rotation; until then a new field needs only those 5 s.
///
/// Two additions of Sentio's own, both from the physics rather than fitted:
///
/// - the confirmed reference a new field replaced is remembered, and a field that matches it
///   again for half a second is that reference again (the device came back out of a steady
///   disturbance), without another 20 s of rotation;
/// - once the rejection time is spent, a sample is still kept out when its magnitude is off
///   by more than the reference's horizontal part: a disturbance that strong (at least that
///   large, as the magnitude changes by no more than the disturbance) can turn the horizontal
///   field any way, so it carries no heading at all — a magnet on the device, say.
///
/// The parameters are VQF's published defaults (`magCurrentTau`, `magRefTau`, `magNormTh`,
/// `magDipTh`, `magMinUndisturbedTime`, `magMaxRejectionTime`, `magRejectionFactor`,
/// `magNewTime`, `magNewFirstTime`, `magNewMinGyr`), not values fitted to any trial; each
/// says below why its size makes sense physically.
struct MagneticDisturbanceDetector: Sendable {
    /// Low-pass time constant of the current magnitude and dip (s): averages the sensor's noise
    /// (about ±2 µT and ±3° sample to sample on BROAD's IMU) over some 15 samples at 285 Hz,
    /// short against any disturbance that lasts long enough to turn the heading.
    static let currentTau = 0.05
    /// How slowly the reference follows the accepted field (s): it may track slow drift
    /// (temperature, a slow walk through a building), not a magnet brought near in seconds.
    static let referenceTau = 20.0
    /// Relative change of the magnitude counted as disturbance: the earth's field varies by
    /// far less over a room, while a few µT of iron or a magnet's field (falling with the cube
    /// of distance, so strong near it) exceed 10 % of 25–65 µT.
    static let normThreshold = 0.1
    /// Change of the dip angle counted as disturbance: 10° is several times the dip's noise
    /// and a 10° tilt of the field turns its horizontal part by a comparable angle, the size
    /// of heading error worth preventing.
    static let cosDipThreshold = cos(10 * Double.pi / 180)
    /// Time within both thresholds before a disturbance counts as over (s): a field passing
    /// through the reference values while it changes (a magnet going by) is not trusted.
    static let minUndisturbedTime = 0.5
    /// Longest total rejection (s): over a minute a well-calibrated gyroscope's heading drifts
    /// by about as much as a mildly disturbed field would pull it.
    static let maxRejectionTime = 60.0
    /// How much faster undisturbed time earns back the rejection budget, and how much the
    /// gain is reduced once the budget is spent.
    static let rejectionFactor = 2.0
    /// Rotation a new field must hold through to become the reference (s), and the shorter
    /// time for the first reference, which was only learned at rest.
    static let newFieldTime = 20.0, firstFieldTime = 5.0
    /// Rotation rate above which the device counts as turning for a new field's test (rad/s):
    /// 20°/s turns the device through tens of degrees within seconds, enough for a
    /// device-fixed disturbance to change the field's magnitude and dip.
    static let newFieldMinRate = 20 * Double.pi / 180

    /// Whether the last sample's field was judged disturbed.
    private(set) var disturbed = false
    /// Low-passed current magnitude (µT) and dip direction (cos, sin of the dip; averaged, so
    /// slightly shorter than unit).
    private var current = Field()
    /// The reference: magnitude 0 until the first sample.
    private(set) var reference = Field()
    private var referenceSamples = 0.0
    private var referenceConfirmed = false
    private var confirmingTime = 0.0
    /// The confirmed reference a new field last replaced (magnitude 0: none), and how long the
    /// field has matched it.
    private var previous = Field()
    private var previousTime = 0.0
    /// Counts the changes of reference, so that whoever relates the field's heading to the
    /// reference can tell when that relation was reset.
    private(set) var referenceChanges = 0
    private var candidate = Field()
    private var candidateSamples = 0.0
    private var candidateTime = 0.0
    private var undisturbedTime = 0.0
    private var rejectedTime = 0.0
    /// Whether the field has settled: the rejection budget is whole (no disturbance yet, or the
    /// field has stayed undisturbed for half as long as it was disturbed since: undisturbed time
    /// earns it back `rejectionFactor` times as fast) and the field has stayed within the
    /// thresholds without a break for `settleTime`. Only a settled field teaches the filter the
    /// sensor's properties (the magnetometer's delay, the gyroscope's heading drift), and a
    /// device-fixed fit runs until the field has settled.
    var settled: Bool { rejectedTime == 0 && undisturbedTime >= Self.settleTime }
    /// How long a field must stay within the thresholds to count as settled (s): the time the
    /// first reference must hold through rotation (`firstFieldTime`). A weak disturbance that
    /// flickers in and out of the thresholds (BROAD's trial 26: a vibration motor's field,
    /// about 3.9 µT fixed to the device, judged disturbed 20–50 % of the time) keeps the budget
    /// whole while it flickers, but rarely stays within for 5 s. Chosen after trial 26 had
    /// been seen (0 s: 1.75°, 5 s: 1.68°, 20 s: 1.68° but fixture trial 30 2.48°), see
    /// docs/motion.md.
    static let settleTime = firstFieldTime
    /// Per-sample gains of the two low-passes, redesigned when the sample period changes.
    private var currentGain = 1.0, referenceGain = 0.0, gainStep = 0.0

    /// A field's magnitude (µT) and dip as the (cos, sin) pair, compared without inverse
    /// trigonometry.
    struct Field: Sendable {
        var norm = 0.0, dipCos = 0.0, dipSin = 0.0

        /// Whether `other` lies within the thresholds of this field. The dip difference is under
        /// 10° when cos(difference) > cos 10°; with averaged (shorter than unit) pairs both
        /// lengths go on the right, and comparing squares (both sides positive then) spares
        /// the square roots.
        @inline(__always) func accepts(_ other: Field) -> Bool {
            let agreement = dipCos * other.dipCos + dipSin * other.dipSin
            let lengths = (dipCos * dipCos + dipSin * dipSin) * (other.dipCos * other.dipCos + other.dipSin * other.dipSin)
            return abs(other.norm - norm) < MagneticDisturbanceDetector.normThreshold * norm && agreement > 0
                && agreement * agreement > MagneticDisturbanceDetector.cosDipThreshold * MagneticDisturbanceDetector.cosDipThreshold * lengths
        }

        /// The horizontal part of the field (µT).
        var horizontal: Double {
            let length = (dipCos * dipCos + dipSin * dipSin).squareRoot()
            return length > 0 ? norm * dipCos / length : 0
        }

        /// Moves toward `other` by `gain`.
        @inline(__always) mutating func follow(_ other: Field, gain: Double) {
            norm += gain * (other.norm - norm)
            dipCos += gain * (other.dipCos - dipCos)
            dipSin += gain * (other.dipSin - dipSin)
        }
    }

    /// Judges one sample: its field's magnitude (µT) and dip (cos, sin) in the filter's earth
    /// frame, whether the device is turning faster than `newFieldMinRate`, whether the field is
    /// explained as the reference plus a device-fixed offset (`DeviceFixedField.holds`: then
    /// it never becomes the new reference, however steady it looks), and the time step.
    /// Returns the factor for the heading correction's gain: 1 undisturbed, 0 while a
    /// disturbance is rejected, 1/rejectionFactor once the rejection budget is spent.
    mutating func update(norm: Double, dipCos: Double, dipSin: Double, rotating: Bool, deviceFixed: Bool = false, dt: Double) -> Double {
        if abs(dt - gainStep) > 1e-6 * dt {
            gainStep = dt
            currentGain = 1 - exp(-dt / Self.currentTau)
            referenceGain = 1 - exp(-dt / Self.referenceTau)
        }
        let sample = Field(norm: norm, dipCos: dipCos, dipSin: dipSin)
        if reference.norm == 0 {
            // The first sample starts every average; the reference is provisional.
            current = sample; reference = sample; candidate = sample
            referenceSamples = 1; candidateSamples = 1
            return 1
        }
        current.follow(sample, gain: currentGain)

        if reference.accepts(current) {
            undisturbedTime += dt
            if undisturbedTime >= Self.minUndisturbedTime || !disturbed {
                disturbed = false
                // A running mean at first (the reference's start is one noisy sample), then the
                // slow low-pass.
                referenceSamples += 1
                reference.follow(current, gain: max(referenceGain, 1 / referenceSamples))
                if !referenceConfirmed && rotating {
                    confirmingTime += dt
                    referenceConfirmed = confirmingTime >= Self.firstFieldTime
                }
            }
        } else {
            undisturbedTime = 0
            disturbed = true
            // Back in the field a new one replaced?
            if previous.norm > 0 && previous.accepts(current) {
                previousTime += dt
                if previousTime >= Self.minUndisturbedTime {
                    swap(&reference, &previous)
                    referenceSamples = 1 / referenceGain
                    referenceChanges += 1
                    disturbed = false
                    undisturbedTime = Self.minUndisturbedTime
                    previousTime = 0
                }
            } else {
                previousTime = 0
            }
        }

        // A steady different field: the candidate follows the current field while it stays
        // within the thresholds of it, and is timed while the device turns.
        if candidate.accepts(current) {
            candidateSamples += 1
            candidate.follow(current, gain: max(referenceGain, 1 / candidateSamples))
            if rotating { candidateTime += dt }
            if disturbed && !deviceFixed && candidateTime >= (referenceConfirmed ? Self.newFieldTime : Self.firstFieldTime) {
                if referenceConfirmed { previous = reference }
                previousTime = 0
                referenceChanges += 1
                reference = candidate
                referenceSamples = candidateSamples
                referenceConfirmed = true
                disturbed = false
                undisturbedTime = Self.minUndisturbedTime
            }
        } else {
            candidate = current
            candidateSamples = 1
            candidateTime = 0
        }

        if !disturbed {
            rejectedTime = max(rejectedTime - Self.rejectionFactor * dt, 0)
            return 1
        }
        if rejectedTime < Self.maxRejectionTime {
            rejectedTime += dt
            return 0
        }
        return abs(current.norm - reference.norm) < reference.horizontal ? 1 / Self.rejectionFactor : 0
    }
}
