/// Gesture detectors: small state machines fed one device-motion sample at a time. Accelerations
/// are in g here, as the games' constants are (threshold 1.0 g).

/// A detected throw: when, and how hard (g).
public struct ThrowEvent: Sendable, Hashable {
    public var time: Double
    public var force: Double
    /// The direction of the throw in sensor coordinates (unit), for the any-direction detector.
    public var direction: Vector3
}

/// The basketball game's throw, as it was: along one sensor axis, it fires when the user
/// acceleration falls back below the threshold after exceeding it, with the force of the last
/// sample above it.
public struct FaithfulThrowDetector: Sendable {
    public var axis: Vector3
    public var threshold: Double
    private var lastAbove: Double?

    /// `axis`: the sensor axis the throw goes along (the phone's top, +y, by default).
    public init(axis: Vector3 = Vector3(0, 1, 0), threshold: Double = 1.0) {
        self.axis = axis.normalized
        self.threshold = threshold
    }

    public mutating func update(_ motion: DeviceMotion) -> ThrowEvent? {
        let a = motion.userAcceleration.dot(axis)
        if a > threshold { lastAbove = a; return nil }
        guard let force = lastAbove else { return nil }
        lastAbove = nil
        return ThrowEvent(time: motion.time, force: force, direction: axis)
    }
}

/// A throw in any direction: the magnitude of the user acceleration crosses the threshold and
/// falls back; the event carries the peak force and its direction.
public struct ThrowDetector: Sendable {
    public var threshold: Double
    /// Ignore throws closer than this to the last one (s), so one flick is one throw.
    public var refractory: Double
    private var peak: (force: Double, direction: Vector3)?
    private var lastThrow = -Double.infinity

    public init(threshold: Double = 1.0, refractory: Double = 0.3) {
        self.threshold = threshold
        self.refractory = refractory
    }

    public mutating func update(_ motion: DeviceMotion) -> ThrowEvent? {
        let a = motion.userAcceleration
        let magnitude = a.norm
        if magnitude > threshold {
            if magnitude > peak?.force ?? 0 { peak = (magnitude, a.normalized) }
            return nil
        }
        guard let p = peak else { return nil }
        peak = nil
        guard motion.time - lastThrow >= refractory else { return nil }
        lastThrow = motion.time
        return ThrowEvent(time: motion.time, force: p.force, direction: p.direction)
    }
}

/// A shake: the user acceleration swings back and forth above a threshold — at least
/// `reversals` changes of direction within `window` seconds.
public struct ShakeDetector: Sendable {
    public var threshold: Double, reversals: Int, window: Double
    private var swings: [(time: Double, direction: Vector3)] = []

    public init(threshold: Double = 1.5, reversals: Int = 3, window: Double = 1.0) {
        self.threshold = threshold; self.reversals = reversals; self.window = window
    }

    /// True on the sample that completes a shake (then it starts counting anew).
    public mutating func update(_ motion: DeviceMotion) -> Bool {
        let a = motion.userAcceleration
        swings.removeAll { motion.time - $0.time > window }
        guard a.norm > threshold else { return false }
        let direction = a.normalized
        // A new swing when the direction turns by more than 90° from the last swing's.
        if let last = swings.last, last.direction.dot(direction) > 0 { return false }
        swings.append((motion.time, direction))
        guard swings.count > reversals else { return false }
        swings.removeAll()
        return true
    }
}

/// The puzzle's full-turn rule on one axis of the attitude. Roll and yaw must keep turning
/// one way through 360°: turning back by more than `slack` starts over. Pitch, which spans only
/// −90°…90°, must pass through all four quarter intervals (−90…−45, −45…0, 0…45, 45…90).
public struct FullTurnTracker: Sendable {
    public enum Axis: String, Sendable { case roll, pitch, yaw }
    public let axis: Axis
    public var slack: Double
    private var last: Double?
    private var turned = 0.0, furthest = 0.0
    private var quarters: Set<Int> = []

    public init(axis: Axis, slack: Double = 15 * Double.pi / 180) {
        self.axis = axis
        self.slack = slack
    }

    /// How far the turn has got, 0…1.
    public var progress: Double {
        axis == .pitch ? Double(quarters.count) / 4 : min(1, abs(turned) / (2 * Double.pi))
    }

    /// True on the sample that completes the turn (then it starts anew).
    public mutating func update(_ attitude: Attitude) -> Bool {
        switch axis {
        case .pitch:
            let p = attitude.pitch
            quarters.insert(min(3, max(0, Int((p + Double.pi / 2) / (Double.pi / 4)))))
            guard quarters.count == 4 else { return false }
            quarters = []
            return true
        case .roll, .yaw:
            let angle = axis == .roll ? attitude.roll : attitude.yaw
            defer { last = angle }
            guard let previous = last else { return false }
            var step = angle - previous
            if step > Double.pi { step -= 2 * Double.pi } else if step < -Double.pi { step += 2 * Double.pi }
            turned += step
            // Turning back by more than the slack from the furthest point starts over.
            if abs(turned) > abs(furthest) { furthest = turned }
            if (turned > 0) != (furthest > 0) || abs(furthest) - abs(turned) > slack {
                turned = 0; furthest = 0
                return false
            }
            guard abs(turned) >= 2 * Double.pi else { return false }
            turned = 0; furthest = 0
            return true
        }
    }
}

/// Tilt steering, the motion games' rule: velocity ← velocity·damping + tilt·gain, per axis.
/// The tilt is the attitude's roll (x) and pitch (y) in radians.
public struct TiltSteering: Sendable {
    public var gain: (x: Double, y: Double)
    public var damping: Double
    public private(set) var velocity = (x: 0.0, y: 0.0)

    /// The original games' gains, 80 and 60.
    public init(gainX: Double = 80, gainY: Double = 60, damping: Double = 0.9) {
        gain = (gainX, gainY)
        self.damping = damping
    }

    public mutating func update(_ attitude: Attitude) -> (x: Double, y: Double) {
        velocity = (velocity.x * damping + attitude.roll * gain.x, velocity.y * damping + attitude.pitch * gain.y)
        return velocity
    }
}
