import SentioMotion

/// The motion level: a full turn about each of the three axes — roll and yaw all the way round
/// one way, pitch through all four quarters (``FullTurnTracker``, the original's rule), in any
/// order, on the attitude fused from the phone's samples.
public struct MotionJudge: Sendable {
    private var trackers = [FullTurnTracker.Axis.roll, .pitch, .yaw].map { FullTurnTracker(axis: $0) }
    private var done: Set<String> = []
    private var samples = 0

    public init() {}

    /// Feeds the fused attitude of each sample in a message.
    public mutating func judge(attitudes: [Attitude]) -> LevelReport {
        for attitude in attitudes {
            samples += 1
            for i in trackers.indices where trackers[i].update(attitude) {
                done.insert(trackers[i].axis.rawValue)
            }
        }
        var detail = LevelDetail()
        var axes: [String: LevelDetail.AxisTurn] = [:]
        for tracker in trackers {
            let finished = done.contains(tracker.axis.rawValue)
            axes[tracker.axis.rawValue] = .init(progress: finished ? 1 : tracker.progress, done: finished)
        }
        detail.axes = axes
        let progress = axes.values.reduce(0) { $0 + $1.progress } / 3
        if done.count == 3 { return LevelReport(phase: .solved, progress: 1, message: "Solved!", detail: detail) }
        let message = samples == 0 ? "Waiting for the phone's motion…" : "\(done.count) of 3"
        return LevelReport(progress: progress, message: message, detail: detail)
    }
}
