/// A bound on how long a piece of compute work may run, carried by the task that asked for it.
///
/// A server cannot preempt a thread running a network, so work stops itself: every model run
/// started with ``Interpreter/run()`` looks at the deadline between operators, and the stages
/// that loop (detection pyramids, jitter, candidate regions) call ``check()`` between rounds.
/// A deadline passed, or the task cancelled (the server shutting down), ends the work with
/// ``ComputeDeadlineExceeded`` within one operator's time, and the thread is free again.
///
/// Work run without a deadline (the command line, tests) is never stopped.
public struct ComputeDeadline: Sendable, Hashable {
    /// When the work must have finished.
    public let instant: ContinuousClock.Instant
    /// The budget it was given, for the error's message.
    public let budget: Duration

    /// A deadline `budget` from now.
    public init(in budget: Duration) {
        self.budget = budget
        instant = .now + budget
    }

    /// The deadline of the current task's work, if it has one.
    @TaskLocal public static var current: ComputeDeadline?

    /// Whether the current task's work must stop: its deadline has passed or it was cancelled.
    public static var expired: Bool {
        if Task.isCancelled { return true }
        guard let deadline = current else { return false }
        return ContinuousClock.now >= deadline.instant
    }

    /// Throws ``ComputeDeadlineExceeded`` when the current task's work must stop.
    public static func check() throws {
        if Task.isCancelled { throw ComputeDeadlineExceeded(budget: current?.budget, cancelled: true) }
        if let deadline = current, ContinuousClock.now >= deadline.instant {
            throw ComputeDeadlineExceeded(budget: deadline.budget, cancelled: false)
        }
    }

    /// Runs `work` with a deadline `budget` from now (a deadline already set and earlier wins).
    public static func within<R>(_ budget: Duration, _ work: () async throws -> R) async rethrows -> R {
        let own = ComputeDeadline(in: budget)
        let deadline = current.map { $0.instant < own.instant ? $0 : own } ?? own
        return try await $current.withValue(deadline, operation: work)
    }
}

/// Compute work stopped at its deadline, or because its task was cancelled: the work was
/// abandoned and its partial results thrown away. Not the caller's fault; a server answers 503.
public struct ComputeDeadlineExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The budget the work was given (nil when it had none and was cancelled).
    public var budget: Duration?
    /// True when the task was cancelled (shutdown) rather than out of time.
    public var cancelled: Bool

    public init(budget: Duration?, cancelled: Bool) {
        self.budget = budget
        self.cancelled = cancelled
    }

    public var description: String {
        if cancelled { return "the work was stopped: the server is shutting down" }
        return "the work took longer than its budget of \(budget.map { "\($0)" } ?? "no time") and was stopped"
    }
}
