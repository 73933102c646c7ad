import Foundation
import HummingbirdWebSocket
import NIOCore

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

/// A camera frame off a socket, waiting for its stream's worker.
struct PendingFrame: Sendable {
    var bytes: ByteBuffer
    /// The binary message's number on the connection, from 1 (dropped frames included).
    var number: Int
    /// Seconds since the connection began, when it arrived.
    var time: Double
    var received: ContinuousClock.Instant
}

/// The loop every image socket runs (the streams, the attendance kiosk, a puzzle level): a
/// reader takes messages off the socket — binary ones into a one-slot mailbox, the newest
/// winning (or to `binary` when it takes them itself), text ones to `text` in order — and a
/// worker hands each waiting frame to `frame` with the count dropped so far. Returns when the
/// socket has closed and the worker has finished.
func pumpFrames(inbound: WebSocketInboundStream, maxMessageBytes: Int, onDrop: @escaping @Sendable () -> Void,
                binary: (@Sendable (ByteBuffer, Int, ContinuousClock.Instant) async throws -> Void)? = nil,
                text: @escaping @Sendable (String) async throws -> Void,
                frame: @escaping @Sendable (PendingFrame, Int) async throws -> Void) async throws {
    let mailbox = FrameMailbox<PendingFrame>()
    let started = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            while let pending = await mailbox.take() { try await frame(pending, mailbox.dropped) }
        }
        var number = 0
        do {
            for try await message in inbound.messages(maxSize: maxMessageBytes) {
                let now = ContinuousClock.now
                switch message {
                case .binary(let bytes):
                    number += 1
                    if let binary {
                        try await binary(bytes, number, now)
                    } else if mailbox.put(PendingFrame(bytes: bytes, number: number, time: (now - started).milliseconds / 1000, received: now)) {
                        onDrop()
                    }
                case .text(let message):
                    try await text(message)
                }
            }
        } catch {
            mailbox.close()
            throw error
        }
        mailbox.close()
        try await group.waitForAll()
    }
}
