import SentioMotion
import Testing

@Suite("Replay and motion manager")
struct ReplayTests {
    /// 2 s at 100 Hz, lying flat and turning about z at 1 rad/s.
    static let samples = (0 ..< 200).map {
        IMUSample(time: Double($0) / 100, gyroscope: Vector3(0, 0, 1), accelerometer: Vector3(0, 0, 1))
    }

    @Test("As fast as possible yields every sample in order; recorded pace takes the recorded time")
    func replay() async throws {
        var seen: [IMUSample] = []
        for try await s in TraceReplay(Self.samples, pace: .asFastAsPossible) { seen.append(s) }
        #expect(seen == Self.samples)
        // At 20× the 1.99 s recording lasts at least 0.0995 s (a lower bound: the machine may be slower, never faster).
        let clock = ContinuousClock(), start = clock.now
        var count = 0
        for try await _ in TraceReplay(Self.samples, pace: .recorded(speed: 20)) { count += 1 }
        #expect(count == 200 && clock.now - start >= .milliseconds(99))
    }

    /// Updates every 0.1 s of sample time from a 100 Hz trace: samples 0, 10, …, 190, 20 in all.
    /// The attitude integrates the 1 rad/s turn: yaw 1.99 rad (within the filter's tolerance) at the end.
    @Test("The manager fuses a replay, delivers at the update interval and keeps the latest")
    func manager() async throws {
        let manager = MotionManager(source: TraceReplay(Self.samples, pace: .asFastAsPossible), useMagnetometer: false)
        await manager.setDeviceMotionUpdateInterval(0.1)
        let updates = await manager.deviceMotionUpdates()
        await manager.startDeviceMotionUpdates()
        var times: [Double] = []
        for await m in updates { times.append(m.time) }
        #expect(times.count == 20 && abs(times.last! - 1.9) < 1e-9, "\(times)")
        let latest = try #require(await manager.deviceMotion)
        #expect(latest.time == 1.99)
        #expect(abs(latest.attitude.yaw - 1.99) < 0.01, "yaw \(latest.attitude.yaw)")
        #expect(await !manager.isDeviceMotionActive)
    }

    @Test("A live source feeds the manager; stop ends the streams")
    func live() async throws {
        let source = LiveMotionSource()
        let manager = MotionManager(source: source, useMagnetometer: false)
        await manager.setDeviceMotionUpdateInterval(0)
        let updates = await manager.deviceMotionUpdates()
        await manager.startDeviceMotionUpdates()
        for s in Self.samples.prefix(5) { source.send(s) }
        var received = 0
        for await _ in updates {
            received += 1
            if received == 5 { await manager.stopDeviceMotionUpdates() }
        }
        #expect(received == 5)
        #expect(await !manager.isDeviceMotionActive)
    }
}
