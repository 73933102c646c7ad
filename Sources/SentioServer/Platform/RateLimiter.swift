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
    // Unchecked: `attempts` is guarded by `lock`.
    private let lock = NSLock()
    /// Per key: when each attempt began, and whether it is known to have failed (`settled`) or
    /// is still being checked.
    private var attempts: [String: [(at: ContinuousClock.Instant, settled: Bool)]] = [:]
    let limit: Int, window: Duration

    init(limit: Int, seconds: Double) {
        self.limit = limit
        self.window = .milliseconds(Int64(seconds * 1000))
    }

    /// Checks and counts an attempt in one step, under the lock: nil when every key may try
    /// now, and then the attempt counts against each key until it is settled as failed
    /// (``fail(_:at:)``) or taken back (``forgive(_:at:)``); else the seconds to wait, and
    /// nothing is counted. Checking before the slow password hash and counting after it would
    /// let a burst of guesses sent at once all pass the check. When the limit is reached only
    /// with attempts still being checked, the wait is a second (most will be taken back).
    func reserve(_ keys: [String], now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            for key in keys {
                let recent = (attempts[key] ?? []).filter { now - $0.at < window }
                attempts[key] = recent.isEmpty ? nil : recent
                guard recent.count >= limit else { continue }
                let failed = recent.filter(\.settled)
                guard failed.count >= limit, let oldest = failed.first else { return 1 }
                return max(1, (window - (now - oldest.at)).milliseconds / 1000)
            }
            if attempts.count > 50_000 { attempts.removeAll() }
            for key in keys { attempts[key, default: []].append((now, false)) }
            return nil
        }
    }

    /// The attempt reserved at `at` failed: it counts for the whole window.
    func fail(_ keys: [String], at: ContinuousClock.Instant) {
        lock.withLock {
            for key in keys {
                guard let index = attempts[key]?.lastIndex(where: { $0.at == at && !$0.settled }) else { continue }
                attempts[key]![index].settled = true
            }
        }
    }

    /// Takes back the attempt reserved at `at` (it succeeded).
    func forgive(_ key: String, at: ContinuousClock.Instant) {
        lock.withLock {
            guard var list = attempts[key], let index = list.lastIndex(where: { $0.at == at && !$0.settled }) else { return }
            list.remove(at: index)
            attempts[key] = list.isEmpty ? nil : list
        }
    }

    func clear(_ key: String) { lock.withLock { attempts[key] = nil } }
}

/// Failed sign-ins, counted per (address, account) and per address — never per account alone,
/// so that nobody can lock a person out by guessing wrong in their name from elsewhere (issue
/// 34, finding 9). One address guessing one account gets `perPair` tries a window; one address
/// guessing many accounts gets `perAddress`.
struct SignInThrottle: Sendable {
    let pairs: FailureWindow
    let addresses: FailureWindow

    init(perPair: Int, perAddress: Int, seconds: Double) {
        pairs = FailureWindow(limit: perPair, seconds: seconds)
        addresses = FailureWindow(limit: perAddress, seconds: seconds)
    }

    private static func keys(_ client: String, _ name: String) -> (pair: String, address: String) {
        ("pair \(client) \(name)", "client \(client)")
    }

    /// Counts an attempt before the password check (see ``FailureWindow/reserve(_:now:)``):
    /// nil when it may go ahead, else the seconds to wait.
    func reserve(client: String, name: String, now: ContinuousClock.Instant) -> Double? {
        let keys = Self.keys(client, name)
        if let wait = pairs.reserve([keys.pair], now: now) { return wait }
        if let wait = addresses.reserve([keys.address], now: now) {
            pairs.forgive(keys.pair, at: now)
            return wait
        }
        return nil
    }

    func failed(client: String, name: String, at: ContinuousClock.Instant) {
        let keys = Self.keys(client, name)
        pairs.fail([keys.pair], at: at)
        addresses.fail([keys.address], at: at)
    }

    func succeeded(client: String, name: String, at: ContinuousClock.Instant) {
        let keys = Self.keys(client, name)
        pairs.clear(keys.pair)
        addresses.forgive(keys.address, at: at)
    }
}
