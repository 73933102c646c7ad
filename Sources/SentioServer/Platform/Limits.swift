/// The server's explicit limits. Over a limit, a request gets 413 or 429 with the reason, a
/// stream gets a typed error or is closed with a close code that says why.
public struct Limits: Sendable {
    /// Largest request body for the stills (an image, or the compare form's two).
    public var maxBodyBytes = 16 << 20
    /// Largest WebSocket message on an image stream (one encoded frame).
    public var maxFrameBytes = 4 << 20
    /// Largest WebSocket message on the motion stream.
    public var maxMotionMessageBytes = 256 << 10
    /// Most pixels in a decoded image (refused before pixel memory is allocated).
    public var maxImagePixels = 24_000_000
    /// Streams (image, motion, kiosk and puzzle sockets) open at once: in all; of them,
    /// `reservedStreams` only for signed-in users; per guest address and per signed-in user.
    public var maxStreams = 96
    public var reservedStreams = 32
    public var maxStreamsPerClient = 16
    public var maxStreamsPerUser = 8
    /// Room watchers open at once, in all (a quarter kept for signed-in users) and per owner.
    public var maxWatchers = 2048
    public var maxWatchersPerClient = 16
    /// A stream that sends no message for this long is closed (it holds a slot and a session).
    public var streamIdleSeconds = 30.0
    /// Stills per client address: a burst, then this many per second.
    public var stillsBurst = 30
    public var stillsPerSecond = 5.0
    /// Compute time per client address (seconds of one core): a credit of
    /// `computeBurstSeconds`, refilled at `computeSecondsPerSecond`. A still is charged its
    /// estimate up front and what it really took once it ends (see ComputeAdmission).
    public var computeBurstSeconds = 20.0
    public var computeSecondsPerSecond = 1.0
    /// Estimated work queued on one lane (short or long) beyond which stills get 503.
    public var maxQueuedComputeSeconds = 30.0
    /// Deadlines of still work, queueing included: short work (on the compute threads) and
    /// long work (on the long lane). Past it the work is stopped and answered 503.
    public var shortDeadlineSeconds = 10.0
    public var longDeadlineSeconds = 30.0
    /// Deadline of one stream frame's work (decoding, perception, the reply).
    public var frameDeadlineSeconds = 5.0
    /// Threads of the long lane (run at a low priority beside the compute threads).
    public var longLaneThreads = 1
    /// Decoded pixels in flight, in all and per client address; a request waits up to
    /// `pixelWaitSeconds` for room, then gets 503.
    public var maxPixelsInFlight = 64_000_000
    public var maxPixelsInFlightPerClient = 48_000_000
    public var pixelWaitSeconds = 5.0
    /// Connections open at once from one client address, and in all (the total is also kept
    /// under the process's open-file limit, which the server raises to what the host allows).
    public var maxConnectionsPerClient = 256
    public var maxConnections = 16_384
    /// Addresses of proxies in front of the server (HAProxy, nginx): their connections are not
    /// capped per address, and a request from one is the client its `X-Forwarded-For` names
    /// (docs/deploy.md).
    public var trustedProxies: Set<String> = []
    /// Seconds from a connection's start, or a response's end, to the next complete request
    /// head; a body's longest pause; a body's whole time, plus its length at
    /// `requestBodyBytesPerSecond` (see ConnectionGuard).
    public var requestHeadSeconds = 10.0
    public var requestBodyPauseSeconds = 10.0
    public var requestBodySeconds = 30.0
    public var requestBodyBytesPerSecond = 64 << 10
    /// Seconds a shutdown (SIGTERM) gives requests in flight before cancelling them.
    public var shutdownGraceSeconds = 15.0
    /// Failed sign-ins allowed from one address for one user name in `loginWindowSeconds`.
    public var loginFailures = 5
    /// Failed sign-ins allowed from one address over all accounts in `loginWindowSeconds` (a
    /// class behind one address mistypes too). No limit is per account alone: a stranger's
    /// guesses never lock its owner out.
    public var loginFailuresPerAddress = 30
    public var loginWindowSeconds = 300.0
    /// Wrong check-in or room codes allowed per address and per user in a window.
    public var codeGuessFailures = 10
    public var codeGuessWindowSeconds = 60.0
    /// A sign-in session lasts this long.
    public var sessionSeconds = 12 * 3600.0
    /// bcrypt's cost (2^cost rounds): 12 takes about 0.25 s on this kind of machine.
    public var bcryptCost: UInt8 = 12

    public init() {}
}

extension Limits {
    /// The deadline of one stream frame's work, as a duration.
    var frameBudget: Duration { .milliseconds(Int64(frameDeadlineSeconds * 1000)) }
}
