import Foundation

/// A one-slot mailbox between a connection's reader and its worker: the newest frame wins.
///
/// When the client sends faster than the stream is processed, a frame still waiting is replaced
/// by the next one and counted as dropped, so a stream's memory never exceeds one waiting frame
/// and what comes back is always about the latest picture.
final class FrameMailbox<Frame: Sendable>: @unchecked Sendable {
    // Unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var waiting: Frame?
    private var taker: CheckedContinuation<Frame?, Never>?
    private var closed = false
    private var droppedCount = 0

    /// Frames replaced before they were processed.
    var dropped: Int { lock.withLock { droppedCount } }

    /// Leaves `frame` for the worker; returns whether it replaced one that was waiting.
    @discardableResult
    func put(_ frame: Frame) -> Bool {
        lock.lock()
        if closed { lock.unlock(); return false }
        if let taker {
            self.taker = nil
            lock.unlock()
            taker.resume(returning: frame)
            return false
        }
        let replaced = waiting != nil
        if replaced { droppedCount += 1 }
        waiting = frame
        lock.unlock()
        return replaced
    }

    /// The next frame, waiting for one; nil once closed and empty.
    func take() async -> Frame? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Frame?, Never>) in
            lock.lock()
            if let frame = waiting {
                waiting = nil
                lock.unlock()
                continuation.resume(returning: frame)
            } else if closed {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                taker = continuation
                lock.unlock()
            }
        }
    }

    /// No more frames: a waiting `take` returns nil (a frame already waiting is still taken).
    func close() {
        lock.lock()
        closed = true
        let taker = self.taker
        self.taker = nil
        lock.unlock()
        taker?.resume(returning: nil)
    }
}
