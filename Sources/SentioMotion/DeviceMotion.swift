import Foundation

/// What Core Motion calls device motion: the attitude and the accelerometer's reading split
/// into gravity and the acceleration the user gives the device.
///
/// Conventions: the attitude rotates the sensor frame into the earth frame (x east, y north,
/// z up); `gravity` is the gravity vector seen in the sensor frame, pointing down (a device
/// lying face up has gravity (0, 0, −1)); `userAcceleration` is the accelerometer's reading
/// plus gravity, so it is zero at rest. Both in g, as Core Motion reports them.
public struct DeviceMotion: Sendable, Hashable {
    public var time: Double
    public var attitude: Attitude
    public var rotationRate: Vector3
    /// Gravity in the sensor frame (g).
    public var gravity: Vector3
    /// The acceleration the user gives the device (g).
    public var userAcceleration: Vector3

    /// The compass heading of the device (degrees, 0 ≤ heading < 360, clockwise from north; in
    /// 6D from the starting heading), as Core Motion's `heading`: where the top edge points,
    /// seen from above. When the top points within 10° of straight up or down, where the
    /// back faces instead (the way a camera held upright looks).
    public var heading: Double {
        let q = attitude.quaternion
        let top = q.rotate(Vector3(0, 1, 0))
        let horizontal = top.x * top.x + top.y * top.y
        let d = horizontal > Self.minimumHorizontal ? top : q.rotate(Vector3(0, 0, -1))
        let degrees = atan2(d.x, d.y) * 180 / .pi
        return degrees < 0 ? degrees + 360 : (degrees >= 360 ? 0 : degrees)
    }

    /// sin²(10°): the top edge's horizontal part (squared) below which it has no direction.
    static let minimumHorizontal = sin(10 * Double.pi / 180) * sin(10 * Double.pi / 180)

    /// Splits one sample's reading with an attitude estimated up to it; the rotation rate has
    /// the gyroscope bias removed.
    public init(sample: IMUSample, attitude: Attitude, gyroscopeBias: Vector3 = .zero) {
        time = sample.time
        self.attitude = attitude
        rotationRate = sample.gyroscope - gyroscopeBias
        gravity = attitude.quaternion.conjugate.rotate(Vector3(0, 0, -1))
        userAcceleration = sample.accelerometer + gravity
    }
}

/// Attitude estimation sample by sample: a filter and the device motion it yields, for live
/// sensors and for replayed traces alike.
public struct MotionFusion<Filter: AttitudeFilter> {
    public var filter: Filter
    /// Use the magnetometer (9D: heading tied to north) when samples carry one; without it the
    /// heading starts at zero and drifts slowly (6D).
    public var useMagnetometer: Bool
    private let initial: Filter
    private var lastTime: Double?

    public init(filter: Filter, useMagnetometer: Bool = true) {
        self.filter = filter
        initial = filter
        self.useMagnetometer = useMagnetometer
    }

    /// Feeds one sample. A sample whose time does not advance is treated as 1 ms after the
    /// last (sensor clocks jitter); the first sample assumes 100 Hz.
    public mutating func update(_ sample: IMUSample) -> DeviceMotion {
        let dt = lastTime.map { sample.time > $0 ? sample.time - $0 : 0.001 } ?? 0.01
        lastTime = sample.time
        filter.update(sample, dt: dt, useMagnetometer: useMagnetometer && sample.magnetometer != nil)
        return DeviceMotion(sample: sample, attitude: Attitude(unit: filter.quaternion), gyroscopeBias: filter.gyroscopeBias)
    }

    /// Starts over: attitude, bias and time forgotten.
    public mutating func reset() {
        filter = initial
        lastTime = nil
    }
}

extension MotionFusion: Sendable where Filter: Sendable {}

extension MotionFusion where Filter == SentioAttitudeFilter {
    /// Sentio's own filter with its defaults.
    public init(useMagnetometer: Bool = true) {
        self.init(filter: SentioAttitudeFilter(), useMagnetometer: useMagnetometer)
    }
}
