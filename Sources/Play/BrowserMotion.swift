import Foundation
import SentioMotion

/// One `devicemotion` event as a browser delivers it, before any normalisation: time in
/// milliseconds (the event's `timeStamp`), accelerations in m/s² with gravity (lying face up
/// reads about +9.8 on z), rotation rates in the browser's unit under the names alpha, beta,
/// gamma (filled from the gyroscope's x, y, z), any value possibly missing (null, or NaN that
/// JSON turned into null).
public struct BrowserMotionSample: Sendable, Equatable {
    public var t: Double
    public var acceleration: (x: Double?, y: Double?, z: Double?)?
    public var rotationRate: (alpha: Double?, beta: Double?, gamma: Double?)?
    /// `screen.orientation.angle` when the event was taken (0, 90, 180, 270), if the page sent it.
    public var screenAngle: Double?

    public init(t: Double, acceleration: (x: Double?, y: Double?, z: Double?)?, rotationRate: (alpha: Double?, beta: Double?, gamma: Double?)?, screenAngle: Double? = nil) {
        (self.t, self.acceleration, self.rotationRate, self.screenAngle) = (t, acceleration, rotationRate, screenAngle)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.t == b.t && a.screenAngle == b.screenAngle
            && a.acceleration.map { [$0.x, $0.y, $0.z] } == b.acceleration.map { [$0.x, $0.y, $0.z] }
            && a.rotationRate.map { [$0.alpha, $0.beta, $0.gamma] } == b.rotationRate.map { [$0.alpha, $0.beta, $0.gamma] }
    }
}

/// How one browser reports device motion: the ways browsers differ, in one place.
///
/// - Rotation rate unit: the specification and today's browsers say °/s; Chrome before version
///   66 sent rad/s under the same names.
/// - Axes: the specification fixes them to the device; a browser whose axes follow the screen's
///   orientation (x to the right of the picture as shown) is turned back by the screen angle.
/// - Rate and resolution: Chromium fires at 60 Hz and rounds every value to 0.1 (m/s² and °/s);
///   nothing is undone there (it cannot be), but the samples' times, not their count, drive
///   the fusion, and the tests bound what the rounding costs.
public struct BrowserProfile: Sendable, Equatable {
    public enum RotationRateUnit: String, Sendable { case degreesPerSecond = "deg", radiansPerSecond = "rad" }
    public var rotationRateUnit: RotationRateUnit = .degreesPerSecond
    /// True when the browser reports x and y in the screen's frame rather than the device's.
    public var axesFollowScreen = false

    public init(rotationRateUnit: RotationRateUnit = .degreesPerSecond, axesFollowScreen: Bool = false) {
        self.rotationRateUnit = rotationRateUnit
        self.axesFollowScreen = axesFollowScreen
    }

    /// The profile a `User-Agent` implies; `Chrome/N` with N < 66 sent rad/s.
    public init(userAgent: String?) {
        self.init()
        guard let userAgent, let range = userAgent.range(of: "Chrome/") else { return }
        let digits = userAgent[range.upperBound...].prefix { $0.isNumber }
        if let major = Int(digits), major < 66 { rotationRateUnit = .radiansPerSecond }
    }
}

/// Turns a browser's samples into the library's (g, rad/s, seconds, device axes), sample by
/// sample, keeping a stream going through bad input: a sample with a missing or non-finite
/// value, a duplicate time or a time a little (up to `maxStep`) before the previous one is
/// dropped and counted; a jump in time either way (the phone stalled, the tab slept, its clock
/// was reset) is closed up to one nominal period — so the fusion does not integrate a rotation
/// rate over the gap, and one bad timestamp far ahead does not shut out the samples after it —
/// and counted.
public struct MotionNormalizer: Sendable {
    public var profile: BrowserProfile
    /// A step longer than this (s) is a gap.
    public var maxStep = 0.25
    /// What a gap is closed up to (s): Chromium's 60 Hz period.
    public var nominalStep = 1.0 / 60
    /// Reported (browser) time of the last sample kept, and how far the output clock has been
    /// pulled back by closed gaps.
    private var lastReported: Double?
    private var shift = 0.0

    /// What was done to one message's samples.
    public struct Notes: Sendable, Equatable, Codable {
        /// Samples dropped for a missing or non-finite value.
        public var missing = 0
        /// Samples dropped for a time equal to or before the previous one.
        public var outOfOrder = 0
        /// Gaps in time closed up.
        public var gaps = 0
        public init() {}
        public var isEmpty: Bool { missing == 0 && outOfOrder == 0 && gaps == 0 }
        enum CodingKeys: String, CodingKey { case missing, outOfOrder = "out_of_order", gaps }
    }

    public init(profile: BrowserProfile = BrowserProfile()) { self.profile = profile }

    /// The samples kept from `raw`, in the library's units, and what was done.
    public mutating func normalize(_ raw: [BrowserMotionSample]) -> (samples: [IMUSample], notes: Notes) {
        var notes = Notes()
        var out: [IMUSample] = []
        out.reserveCapacity(raw.count)
        for s in raw {
            guard let a = s.acceleration, let ax = a.x, let ay = a.y, let az = a.z,
                  let r = s.rotationRate, let alpha = r.alpha, let beta = r.beta, let gamma = r.gamma,
                  [s.t, ax, ay, az, alpha, beta, gamma].allSatisfy({ $0.isFinite && abs($0) < 1e9 })
            else { notes.missing += 1; continue }
            let time = s.t / 1000
            if let last = lastReported {
                let step = time - last
                if abs(step) > maxStep {
                    // A jump either way (a stall, a sleeping tab, a clock reset): a new time base,
                    // one nominal period after the last sample kept.
                    shift += step - nominalStep
                    notes.gaps += 1
                } else if step <= 0 {
                    notes.outOfOrder += 1
                    continue
                }
            }
            lastReported = time
            let rateScale = profile.rotationRateUnit == .degreesPerSecond ? Double.pi / 180 : 1
            var acc = Vector3(ax, ay, az) * (1 / MotionNormalizer.standardGravity)
            var gyro = Vector3(alpha, beta, gamma) * rateScale
            if profile.axesFollowScreen, let angle = s.screenAngle, angle.isFinite {
                acc = Self.deviceAxes(acc, screenAngle: angle)
                gyro = Self.deviceAxes(gyro, screenAngle: angle)
            }
            out.append(IMUSample(time: time - shift, gyroscope: gyro, accelerometer: acc))
        }
        return (out, notes)
    }

    /// Forgets the stream's clock.
    public mutating func reset() { lastReported = nil; shift = 0 }

    public static let standardGravity = 9.80665

    /// A vector given in the screen's frame (x to the right of the picture, y up it) turned
    /// back into the device's, for a screen turned by `screenAngle` degrees counter-clockwise
    /// from the device's natural orientation (`screen.orientation.angle`).
    public static func deviceAxes(_ v: Vector3, screenAngle: Double) -> Vector3 {
        let θ = screenAngle * .pi / 180
        let c = (cos(θ) * 1e12).rounded() / 1e12, s = (sin(θ) * 1e12).rounded() / 1e12
        return Vector3(c * v.x + s * v.y, -s * v.x + c * v.y, v.z)
    }
}
