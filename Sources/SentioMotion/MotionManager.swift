/// Core Motion's manager, over any `MotionSource`: start and stop device-motion updates, an
/// update interval, the latest device motion, and async streams of updates.
///
/// Fusion runs on every sample (the filter needs them all); subscribers get a device motion
/// at most once per `deviceMotionUpdateInterval` seconds of sample time.
public actor MotionManager {
    public let source: any MotionSource
    public let useMagnetometer: Bool
    /// Seconds of sample time between delivered updates (0: every sample).
    public var deviceMotionUpdateInterval: Double = 0.01
    /// The device motion after the last fused sample.
    public private(set) var deviceMotion: DeviceMotion?
    public var isDeviceMotionActive: Bool { task != nil }

    private var task: Task<Void, Never>?
    private var subscribers: [Int: AsyncStream<DeviceMotion>.Continuation] = [:]
    private var nextSubscriber = 0
    private var lastDelivered = -Double.infinity
    /// Which run is current, so a stopped run finishing late cannot end a newer one.
    private var run = 0

    public init(source: any MotionSource, useMagnetometer: Bool = true) {
        self.source = source
        self.useMagnetometer = useMagnetometer
    }

    public func setDeviceMotionUpdateInterval(_ seconds: Double) { deviceMotionUpdateInterval = max(0, seconds) }

    /// Starts fusing the source's samples; a second call while running does nothing. The
    /// streams finish when the source ends or `stop` is called.
    public func startDeviceMotionUpdates() {
        guard task == nil else { return }
        let stream = source.sampleStream(), magnetometer = useMagnetometer
        run += 1
        lastDelivered = -Double.infinity
        let thisRun = run
        task = Task {
            var fusion = MotionFusion(useMagnetometer: magnetometer)
            do {
                for try await sample in stream {
                    if Task.isCancelled { break }
                    self.deliver(fusion.update(sample), run: thisRun)
                }
            } catch {}
            self.finish(run: thisRun)
        }
    }

    public func stopDeviceMotionUpdates() {
        task?.cancel()
        finish(run: run)
    }

    /// A stream of device motions from now on, one per update interval.
    public func deviceMotionUpdates() -> AsyncStream<DeviceMotion> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceMotion.self, bufferingPolicy: .bufferingNewest(256))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: Int) { subscribers[id] = nil }

    private func deliver(_ motion: DeviceMotion, run: Int) {
        guard run == self.run, task != nil else { return }
        deviceMotion = motion
        guard motion.time - lastDelivered >= deviceMotionUpdateInterval * 0.999 else { return }
        lastDelivered = motion.time
        for continuation in subscribers.values { continuation.yield(motion) }
    }

    private func finish(run: Int) {
        guard run == self.run, task != nil else { return }
        task = nil
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }
}
