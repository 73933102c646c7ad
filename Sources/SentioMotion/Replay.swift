/// A recorded trace played back as an `AsyncSequence` of samples: at the recorded rate (or a
/// multiple of it), as a live sensor would deliver them, or as fast as possible.
public struct TraceReplay: AsyncSequence, Sendable {
    public typealias Element = IMUSample

    public enum Pace: Sendable, Equatable {
        /// Each sample when its time comes, `speed` times faster than recorded.
        case recorded(speed: Double)
        case asFastAsPossible
    }

    public let samples: [IMUSample]
    public let pace: Pace

    public init(_ samples: [IMUSample], pace: Pace = .recorded(speed: 1)) {
        self.samples = samples
        self.pace = pace
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let samples: [IMUSample]
        let pace: Pace
        var index = 0
        var start: ContinuousClock.Instant?

        public mutating func next() async throws -> IMUSample? {
            guard index < samples.count, !Task.isCancelled else { return nil }
            let sample = samples[index]
            if case let .recorded(speed) = pace, speed > 0 {
                let clock = ContinuousClock()
                let origin = start ?? clock.now
                start = origin
                let due = origin + .seconds((sample.time - samples[0].time) / speed)
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            }
            index += 1
            return sample
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(samples: samples, pace: pace) }
}

/// Where a motion manager's samples come from: a replayed trace, or a live source that
/// something else (a sensor driver, a browser over a socket) feeds.
public protocol MotionSource: Sendable {
    func sampleStream() -> AsyncThrowingStream<IMUSample, Error>
}

extension TraceReplay: MotionSource {
    public func sampleStream() -> AsyncThrowingStream<IMUSample, Error> {
        let replay = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await sample in replay { continuation.yield(sample) }
                    continuation.finish()
                } catch { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A live source: whoever receives sensor readings calls `send`, the manager consumes them.
public final class LiveMotionSource: MotionSource, @unchecked Sendable {
    // The stream and its continuation are made once and are themselves thread-safe.
    private let stream: AsyncThrowingStream<IMUSample, Error>
    private let continuation: AsyncThrowingStream<IMUSample, Error>.Continuation

    public init(buffering: Int = 1024) {
        (stream, continuation) = AsyncThrowingStream.makeStream(of: IMUSample.self, bufferingPolicy: .bufferingNewest(buffering))
    }

    public func send(_ sample: IMUSample) { continuation.yield(sample) }
    public func finish() { continuation.finish() }
    public func sampleStream() -> AsyncThrowingStream<IMUSample, Error> { stream }
}
