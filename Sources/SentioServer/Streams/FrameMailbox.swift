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
/// Each message is stamped on `lastMessage` (the socket's idle watch, ``watchIdle``).
func pumpFrames(inbound: WebSocketInboundStream, maxMessageBytes: Int, onDrop: @escaping @Sendable () -> Void,
                lastMessage: LastMessage = LastMessage(),
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
            for try await message in inbound.boundedMessages(maxSize: maxMessageBytes) {
                let now = ContinuousClock.now
                lastMessage.instant = now
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

/// When a socket last sent a message (read by its idle watchdog).
final class LastMessage: @unchecked Sendable {
    // Unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = ContinuousClock.now
    var instant: ContinuousClock.Instant {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// A WebSocket message over its socket's size limit.
struct MessageTooLarge: Error, CustomStringConvertible {
    var bytes: Int
    var limit: Int
    var description: String { "a message of \(bytes) bytes; this socket takes at most \(limit)" }
}

extension WebSocketInboundStream {
    /// The socket's messages, each at most `maxSize` bytes, else ``MessageTooLarge``.
    /// swift-websocket's own `messages(maxSize:)` checks only messages split over several
    /// frames: a message in one frame passed up to the frame limit (4 MiB), 16 times the motion
    /// stream's limit (issue 34, finding 12).
    func boundedMessages(maxSize: Int) -> BoundedMessages { BoundedMessages(inbound: self, maxSize: maxSize) }
}

struct BoundedMessages: AsyncSequence {
    typealias Element = WebSocketMessage
    let inbound: WebSocketInboundStream
    let maxSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var frames: WebSocketInboundStream.AsyncIterator
        let maxSize: Int

        mutating func next() async throws -> WebSocketMessage? {
            guard let message = try await frames.nextMessage(maxSize: maxSize) else { return nil }
            let size: Int
            switch message {
            case .text(let text): size = text.utf8.count
            case .binary(let bytes): size = bytes.readableBytes
            }
            guard size <= maxSize else { throw MessageTooLarge(bytes: size, limit: maxSize) }
            return message
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: inbound.makeAsyncIterator(), maxSize: maxSize) }
}

/// Runs `body` (a socket's loop) and closes the socket with an `idle` error when no message
/// has been stamped on the `LastMessage` for `after`: an idle stream holds a slot, a
/// session on a compute thread and a socket that others need (issue 34, finding 3).
func watchIdle(after: Duration, outbound: WebSocketOutboundWriter,
               _ body: @Sendable (LastMessage) async throws -> Void) async throws {
    let last = LastMessage()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            let step = min(after / 4, .seconds(1))
            while true {
                try await Task.sleep(for: step)
                let quiet = ContinuousClock.now - last.instant
                if quiet > after {
                    let seconds = Int(after.milliseconds / 1000)
                    try? await outbound.writeTextMessage(try JSON.string(StreamError(.idle, "no message for \(seconds) s; the stream was closed")))
                    try? await outbound.close(.goingAway, reason: "idle")
                    return
                }
            }
        }
        try await body(last)
        group.cancelAll()
    }
}
