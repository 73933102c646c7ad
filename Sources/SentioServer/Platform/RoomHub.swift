import Foundation
import Logging
import SentioStore

/// Delivers what a room's phone streams produce to the pages watching the room: directly to
/// watchers on this server, through the ``Broadcaster`` (PostgreSQL LISTEN/NOTIFY) to the others.
public final class RoomHub: @unchecked Sendable {
    // Unchecked: `watchers` is guarded by `lock`.
    private let lock = NSLock()
    private var watchers: [String: [UUID: AsyncStream<String>.Continuation]] = [:]
    let broadcaster: Broadcaster
    let logger: Logger

    init(broadcaster: Broadcaster, logger: Logger) {
        self.broadcaster = broadcaster
        self.logger = logger
    }

    /// Messages for `room` from now on. A watcher that falls behind keeps only the newest 16.
    func watch(room: String) -> (AsyncStream<String>, cancel: @Sendable () -> Void) {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(16))
        lock.withLock { watchers[room, default: [:]][id] = continuation }
        return (stream, { [weak self] in
            guard let self else { return }
            let removed = self.lock.withLock { () -> AsyncStream<String>.Continuation? in
                let c = self.watchers[room]?.removeValue(forKey: id)
                if self.watchers[room]?.isEmpty == true { self.watchers[room] = nil }
                return c
            }
            removed?.finish()
        })
    }

    /// Sends `json` to the room's watchers here and on the other servers.
    func publish(room: String, json: String) async {
        deliver(room: room, json: json)
        do {
            try await broadcaster.publish(topic: "room." + room, payload: json)
        } catch {
            logger.warning("could not broadcast to the other servers", metadata: ["room": "\(room)", "error": "\(error)"])
        }
    }

    func deliver(room: String, json: String) {
        let targets = lock.withLock { watchers[room].map { Array($0.values) } ?? [] }
        for target in targets { target.yield(json) }
    }

    /// Carries other servers' messages to this server's watchers until cancelled.
    func listen() async {
        await broadcaster.run(logger: logger) { [weak self] topic, payload in
            guard topic.hasPrefix("room.") else { return }
            self?.deliver(room: String(topic.dropFirst(5)), json: payload)
        }
    }
}
