import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Connections open per client address and in all, with their caps (issue 34, finding 2):
/// a connection over either cap is closed as soon as it is accepted, before it costs more than
/// its socket.
final class ConnectionTable: @unchecked Sendable {
    // Unchecked: `open` and `total` are guarded by `lock`.
    private let lock = NSLock()
    private var open: [String: Int] = [:]
    private var total = 0
    let perClient: Int
    let limit: Int
    /// Proxies carry many clients on their connections: only the total caps them.
    let proxies: Set<String>

    init(perClient: Int, limit: Int, proxies: Set<String> = []) {
        self.perClient = perClient
        self.limit = limit
        self.proxies = proxies
    }

    /// Counts a new connection from `client`; false (and nothing counted) when over a cap.
    func open(_ client: String) -> Bool {
        lock.withLock {
            let mine = open[client] ?? 0
            guard mine < perClient || proxies.contains(client), total < limit else { return false }
            open[client] = mine + 1
            total += 1
            return true
        }
    }

    func close(_ client: String) {
        lock.withLock {
            total -= 1
            let mine = (open[client] ?? 1) - 1
            open[client] = mine > 0 ? mine : nil
        }
    }

    /// Connections open now (for metrics and tests).
    var count: Int { lock.withLock { total } }
}

/// How long a connection may take over each part of a request (issue 34, finding 2).
struct ConnectionDeadlines: Sendable {
    /// From the connection's start (or the previous response's end) to a complete request head.
    /// Silent sockets and headers sent a line at a time are closed after it.
    var head: TimeAmount
    /// Longest pause between two pieces of a request's body.
    var bodyPause: TimeAmount
    /// A body's whole time: this, plus its declared length at `bodyBytesPerSecond`.
    var body: TimeAmount
    var bodyBytesPerSecond: Int

    init(_ limits: Limits) {
        head = .milliseconds(Int64(limits.requestHeadSeconds * 1000))
        bodyPause = .milliseconds(Int64(limits.requestBodyPauseSeconds * 1000))
        body = .milliseconds(Int64(limits.requestBodySeconds * 1000))
        bodyBytesPerSecond = limits.requestBodyBytesPerSecond
    }

    func body(length: Int?) -> TimeAmount {
        body + .milliseconds(Int64((length ?? 0) / max(1, bodyBytesPerSecond / 1000)))
    }
}

/// A server child channel with the connection guards in front of `base`: the per-address and
/// total caps, and the deadline of the first request head. Hummingbird's HTTP handlers (and so
/// its idle timeout) join the pipeline only once a first head has been read and is not a
/// WebSocket upgrade, so without this a socket that never sends a complete head stays open
/// for ever.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let connections: ConnectionTable
    let deadlines: ConnectionDeadlines
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let client = channel.remoteAddress?.ipAddress ?? "unknown"
        // A setup that fails would end the server's accept loop, so a connection over a cap is
        // set up like any other and closed as soon as it is active.
        let admitted = connections.open(client)
        if admitted {
            channel.closeFuture.whenComplete { [connections] _ in connections.close(client) }
        } else {
            metrics.connectionRefused()
        }
        do {
            try channel.pipeline.syncOperations.addHandler(admitted ? FirstHeadDeadline(timeout: deadlines.head, metrics: metrics)
                                                                   : FirstHeadDeadline(timeout: .zero, metrics: metrics))
        } catch {
            logger.debug("connection guard", metadata: ["error": "\(error)"])
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes the connection unless a complete request head (its blank line) arrives within the
/// deadline of its start; then leaves the pipeline (the HTTP guard takes over). Sees the
/// bytes after TLS, so a TLS client that never finishes its handshake is closed as well.
final class FirstHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let timeout: TimeAmount
    private let metrics: ServerMetrics
    private var timer: Scheduled<Void>?
    /// The last bytes seen, to find a blank line split between two reads.
    private var tail: [UInt8] = []
    private var done = false

    init(timeout: TimeAmount, metrics: ServerMetrics) {
        self.timeout = timeout
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    /// The deadline runs from the connection's start; zero closes it at once (over a cap).
    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        if timeout == .zero {
            done = true
            // On the next turn of the loop: during the set-up the channel is not registered yet
            // and a close then is lost.
            context.eventLoop.assumeIsolated().execute { context.close(promise: nil) }
            return
        }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
            guard let self, !self.done else { return }
            self.metrics.connectionTimedOut(phase: "head")
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if timeout == .zero { return }  // refused: nothing it sends is read
        if !done {
            let buffer = unwrapInboundIn(data)
            if Self.endsHead(tail: &tail, buffer.readableBytesView) {
                done = true
                timer?.cancel()
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// Whether `bytes`, after the `tail` of earlier reads, hold CR LF CR LF; keeps the new tail.
    static func endsHead(tail: inout [UInt8], _ bytes: ByteBufferView) -> Bool {
        var window = tail
        for byte in bytes {
            window.append(byte)
            if window.count > 4 { window.removeFirst(window.count - 4) }
            if window == [13, 10, 13, 10] { return true }
        }
        tail = window
        return false
    }
}

/// The deadlines of every request after the first head, on Hummingbird's HTTP parts: a body's
/// pauses and whole time, and the time from a response's end to the next complete head
/// (keep-alive idle and slow headers alike). Between a request's end and its response's end
/// the server is working and no deadline of the client's runs (the work has its own).
final class RequestDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart
    private let deadlines: ConnectionDeadlines
    private let metrics: ServerMetrics
    private var whole: Scheduled<Void>?
    private var pause: Scheduled<Void>?

    init(deadlines: ConnectionDeadlines, metrics: ServerMetrics) {
        self.deadlines = deadlines
        self.metrics = metrics
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            cancel()
            let length = head.headerFields[.contentLength].flatMap(Int.init)
            if length != 0, head.method != .get || length != nil {
                whole = schedule(context, in: deadlines.body(length: length), phase: "body")
                pause = schedule(context, in: deadlines.bodyPause, phase: "body pause")
            }
        case .body:
            if pause != nil {
                pause?.cancel()
                pause = schedule(context, in: deadlines.bodyPause, phase: "body pause")
            }
        case .end:
            cancel()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            cancel()
            whole = schedule(context, in: deadlines.head, phase: "idle")
        }
        context.write(data, promise: promise)
    }

    private func schedule(_ context: ChannelHandlerContext, in time: TimeAmount, phase: String) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: time) { [metrics] in
            metrics.connectionTimedOut(phase: phase)
            context.close(promise: nil)
        }
    }

    private func cancel() {
        whole?.cancel()
        pause?.cancel()
        whole = nil
        pause = nil
    }
}

/// The process's open-file limit raised to the most the host allows (issue 34, finding 2):
/// each connection is a file, and the default soft limit (often 1,024) is reached by a single
/// address's idle sockets. Returns the limit in force.
@discardableResult
public func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
    }
    return openFileLimit()
}

/// The process's open-file limit now.
func openFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
}
