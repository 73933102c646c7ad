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

    /// Checks and counts an attempt in one step, under the lock: nil when every key may try
    /// now, and then the attempt is counted as failed for each key up front (``forgive(_:at:)``
    /// takes it back when it succeeds); else the seconds until the first blocked key may try,
    /// and nothing is counted. Checking and counting after the slow password hash instead would
    /// let a burst of guesses sent at once all pass the check.
    func reserve(_ keys: [String], now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            for key in keys {
                let recent = (failures[key] ?? []).filter { now - $0 < window }
                failures[key] = recent.isEmpty ? nil : recent
                if recent.count >= limit, let oldest = recent.first { return max(1, (window - (now - oldest)).milliseconds / 1000) }
            }
            if failures.count > 50_000 { failures.removeAll() }
            for key in keys { failures[key, default: []].append(now) }
            return nil
        }
    }

    /// Takes back one attempt counted by ``reserve(_:now:)`` at `at` (it succeeded).
    func forgive(_ key: String, at: ContinuousClock.Instant) {
        lock.withLock {
            guard var times = failures[key], let index = times.lastIndex(of: at) else { return }
            times.remove(at: index)
            failures[key] = times.isEmpty ? nil : times
        }
    }

    func clear(_ key: String) { lock.withLock { failures[key] = nil } }
}
