/// One device's motion through a stream of samples: fusion into device motion (attitude,
/// gravity, user acceleration) and the gesture detectors (throws, shakes, full turns). What the
/// motion stream, the arcade and `sentio motion gestures` run for each sample.
public final class MotionSession {
    public struct Configuration: Sendable, Equatable {
        /// Use the magnetometer (heading from magnetic north) when samples carry it.
        public var useMagnetometer = false
        /// The throw threshold in g.
        public var throwThreshold = 1.0

        public init() {}
    }

    public let configuration: Configuration
    private var fusion: MotionFusion<SentioAttitudeFilter>
    private var faithful: FaithfulThrowDetector
    private var anyThrow: ThrowDetector
    private var shake = ShakeDetector()
    private var turns = [FullTurnTracker.Axis.roll, .pitch, .yaw].map { FullTurnTracker(axis: $0) }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        fusion = MotionFusion(useMagnetometer: configuration.useMagnetometer)
        faithful = FaithfulThrowDetector(threshold: configuration.throwThreshold)
        anyThrow = ThrowDetector(threshold: configuration.throwThreshold)
    }

    /// The device motion after `sample` and the gestures it completed.
    public func process(_ sample: IMUSample) -> MotionObservation {
        let m = fusion.update(sample)
        var events: [MotionEvent] = []
        if let e = faithful.update(m) { events.append(MotionEvent(t: e.time, gesture: .throw, forceG: e.force, axis: "y")) }
        if let e = anyThrow.update(m) {
            events.append(MotionEvent(t: e.time, gesture: .throwAny, forceG: e.force, direction: [e.direction.x, e.direction.y, e.direction.z]))
        }
        if shake.update(m) { events.append(MotionEvent(t: m.time, gesture: .shake)) }
        for i in turns.indices where turns[i].update(m.attitude) {
            events.append(MotionEvent(t: m.time, gesture: .fullTurn, axis: turns[i].axis.rawValue))
        }
        return MotionObservation(m, events: events)
    }

    public func reset() {
        self.fusion.reset()
        faithful = FaithfulThrowDetector(threshold: configuration.throwThreshold)
        anyThrow = ThrowDetector(threshold: configuration.throwThreshold)
        shake = ShakeDetector()
        turns = [FullTurnTracker.Axis.roll, .pitch, .yaw].map { FullTurnTracker(axis: $0) }
    }
}

/// A gesture a ``MotionSession`` saw (`sentio motion gestures --json`, one per line).
public struct MotionEvent: Codable, Equatable, Sendable {
    public enum Gesture: String, Codable, Sendable {
        /// The basketball game's throw along the phone's +y axis.
        case `throw`
        /// A throw in any direction.
        case throwAny = "throw_any"
        /// Three reversals above 1.5 g within a second.
        case shake
        /// The puzzle's full turn about one axis.
        case fullTurn = "full_turn"
    }

    /// Seconds on the samples' clock.
    public var t: Double
    public var gesture: Gesture
    /// Peak or release force in g (throws).
    public var forceG: Double?
    /// Direction in the sensor frame (throw_any).
    public var direction: [Double]?
    /// `roll`, `pitch`, `yaw` (full turns), or `y` (the original throw).
    public var axis: String?

    enum CodingKeys: String, CodingKey { case t, gesture, forceG = "force_g", direction, axis }

    public init(t: Double, gesture: Gesture, forceG: Double? = nil, direction: [Double]? = nil, axis: String? = nil) {
        (self.t, self.gesture, self.forceG, self.direction, self.axis) = (t, gesture, forceG, direction, axis)
    }
}

/// Device motion after one sample, with the gestures it completed (the motion stream's answer).
public struct MotionObservation: Codable, Equatable, Sendable {
    /// Seconds on the samples' clock.
    public var time: Double
    /// Attitude as a quaternion [w, x, y, z] rotating device coordinates into East-North-Up.
    public var quaternion: [Double]
    /// Roll, pitch and yaw in degrees.
    public var rollDeg: Double
    public var pitchDeg: Double
    public var yawDeg: Double
    /// Gravity and user acceleration in the device frame, in g; rotation rate in rad/s.
    public var gravity: [Double]
    public var userAcceleration: [Double]
    public var rotationRate: [Double]
    public var events: [MotionEvent]

    enum CodingKeys: String, CodingKey {
        case time, quaternion, rollDeg = "roll_deg", pitchDeg = "pitch_deg", yawDeg = "yaw_deg", gravity, userAcceleration = "user_acceleration",
             rotationRate = "rotation_rate", events
    }

    public init(_ m: DeviceMotion, events: [MotionEvent]) {
        let q = m.attitude.quaternion, deg = 180 / Double.pi
        time = m.time
        quaternion = [q.w, q.x, q.y, q.z]
        (rollDeg, pitchDeg, yawDeg) = (m.attitude.roll * deg, m.attitude.pitch * deg, m.attitude.yaw * deg)
        gravity = [m.gravity.x, m.gravity.y, m.gravity.z]
        userAcceleration = [m.userAcceleration.x, m.userAcceleration.y, m.userAcceleration.z]
        rotationRate = [m.rotationRate.x, m.rotationRate.y, m.rotationRate.z]
        self.events = events
    }
}
