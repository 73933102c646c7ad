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
    /// Streams open at once, over all clients, and from one client address.
    public var maxStreams = 96
    public var maxStreamsPerClient = 48
    /// Stills per client address: a burst, then this many per second.
    public var stillsBurst = 30
    public var stillsPerSecond = 5.0
    /// Failed sign-ins allowed per client address and per user name in `loginWindowSeconds`.
    public var loginFailures = 5
    public var loginWindowSeconds = 300.0
    /// A sign-in session lasts this long.
    public var sessionSeconds = 12 * 3600.0
    /// bcrypt's cost (2^cost rounds): 12 takes about 0.25 s on this kind of machine.
    public var bcryptCost: UInt8 = 12

    public init() {}
}
