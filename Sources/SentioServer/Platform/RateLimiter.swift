import Foundation

/// Token buckets per key (a client address): `burst` at once, refilled at `perSecond`.
final class TokenBuckets: @unchecked Sendable {
    // Unchecked: `buckets` is guarded by `lock`.
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]
    let burst: Double, perSecond: Double

    init(burst: Int, perSecond: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
    }

    /// Takes a token for `key`; nil when one was there, else the seconds until the next one.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            if buckets.count > 50_000 { buckets.removeAll() }  // bounded memory under address floods
            var (tokens, at) = buckets[key] ?? (burst, now)
            tokens = min(burst, tokens + (now - at).milliseconds / 1000 * perSecond)
            at = now
            defer { buckets[key] = (tokens, at) }
            if tokens >= 1 {
                tokens -= 1
                return nil
            }
            return (1 - tokens) / perSecond
        }
    }
}

/// Failures per key in a sliding window (failed sign-ins per address and per user name).
final class FailureWindow: @unchecked Sendable {
    // Unchecked: `failures` is guarded by `lock`.
    private let lock = NSLock()
    private var failures: [String: [ContinuousClock.Instant]] = [:]
    let limit: Int, window: Duration

    init(limit: Int, seconds: Double) {
        self.limit = limit
        self.window = .milliseconds(Int64(seconds * 1000))
    }

    /// Seconds until `key` may try again, nil when it may now.
    func blocked(_ key: String, now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            let recent = (failures[key] ?? []).filter { now - $0 < window }
            failures[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, (window - (now - oldest)).milliseconds / 1000)
        }
    }

    func fail(_ key: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if failures.count > 50_000 { failures.removeAll() }
            failures[key, default: []].append(now)
        }
    }

    func clear(_ key: String) { lock.withLock { failures[key] = nil } }
}
