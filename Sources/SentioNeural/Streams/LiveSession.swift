/// A per-stream session: frames (or samples, or chunks) in, with their timestamps, one typed
/// observation out each. Sessions keep state between inputs (tracking, temporal detectors)
/// and own their working memory; they are not thread-safe: one stream, one session.
public protocol StreamSession: AnyObject {
    associatedtype Input: Sendable
    associatedtype Observation: Sendable
    /// The observation for `input`, taken at `time` seconds on the stream's clock.
    func process(_ input: Input, time: Double) throws -> Observation
    /// Forgets what was tracked (the next input starts afresh).
    func reset()
}

/// A session for async code: an actor whose work runs on a ``ComputeThread`` of its own
/// choosing, off the cooperative pool. `await live.process(frame, time: t)` suspends the
/// caller while the frame is processed on the compute thread.
public actor LiveSession<Session: StreamSession> {
    private let session: Session
    private let thread: ComputeThread
    /// Inputs processed so far.
    public private(set) var processed = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    /// Wraps `session`, which must not be used elsewhere afterwards, to run on `thread`.
    public init(_ session: sending Session, on thread: ComputeThread) {
        self.session = session
        self.thread = thread
    }

    public func process(_ input: Session.Input, time: Double) throws -> Session.Observation {
        processed += 1
        return try session.process(input, time: time)
    }

    public func reset() {
        session.reset()
    }

    /// Runs `body` with the session, on its compute thread.
    public func withSession<R: Sendable>(_ body: (Session) throws -> R) rethrows -> R {
        try body(session)
    }
}
