import SentioMotion

/// The motion level: a full turn about each of the device's three axes, in any order — roll
/// (about its long y axis) and yaw (about z, out of the screen) all the way round one way, and
/// pitch (about x) all the way over, which takes it through all four quarters.
///
/// The turns are the rotation rate integrated about each device axis, not the attitude's Euler
/// angles: at ±90° of pitch, roll and yaw each jump by 180°, so pitching the phone over once
/// would count as a full roll and a full yaw too (``FullTurnTracker`` does exactly that; the
/// fixtures' pitch-only trace shows it). Turning back by more than 15° from the furthest point
/// starts that axis over, as in the original.
public struct MotionJudge: Sendable {
    public static let slack = 15 * Double.pi / 180
    static let axes = ["pitch", "roll", "yaw"]   // device x, y, z
    private var turned = [0.0, 0.0, 0.0], furthest = [0.0, 0.0, 0.0]
    private var done: Set<String> = []
    private var lastTime: Double?
    private var samples = 0

    public init() {}

    /// Feeds the samples of a message (gyroscope in rad/s, device axes, time in seconds).
    public mutating func judge(samples batch: [IMUSample]) -> LevelReport {
        for sample in batch {
            samples += 1
            defer { lastTime = sample.time }
            guard let last = lastTime else { continue }
            // A gap (a stalled stream) is not integrated across.
            let dt = sample.time - last
            guard dt > 0, dt < 0.25 else { continue }
            let rate = [sample.gyroscope.x, sample.gyroscope.y, sample.gyroscope.z]
            for i in 0..<3 where !done.contains(Self.axes[i]) {
                turned[i] += rate[i] * dt
                if abs(turned[i]) > abs(furthest[i]) { furthest[i] = turned[i] }
                if (turned[i] > 0) != (furthest[i] > 0) || abs(furthest[i]) - abs(turned[i]) > Self.slack {
                    turned[i] = 0; furthest[i] = 0
                }
                if abs(turned[i]) >= 2 * Double.pi { done.insert(Self.axes[i]) }
            }
        }
        var detail = LevelDetail()
        var axes: [String: LevelDetail.AxisTurn] = [:]
        for (i, name) in Self.axes.enumerated() {
            let finished = done.contains(name)
            axes[name] = .init(progress: finished ? 1 : min(1, abs(turned[i]) / (2 * Double.pi)), done: finished)
        }
        detail.axes = axes
        let progress = axes.values.reduce(0) { $0 + $1.progress } / 3
        if done.count == 3 { return .solved(detail) }
        let message = samples == 0 ? "Waiting for the phone's motion…" : "\(done.count) of 3"
        return LevelReport(progress: progress, message: message, detail: detail)
    }
}
