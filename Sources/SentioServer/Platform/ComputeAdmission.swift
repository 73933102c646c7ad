import Foundation
import Hummingbird
import SentioNeural

/// What a still will cost, estimated from its request before any of it runs.
///
/// `milliseconds` is time on one core, from the route's parameters and the image's size as its
/// header gives it (see ``StillCost`` factories in StillRoutes); `pixels` is what decoding the
/// images will hold in memory while the work runs.
struct StillCost: Sendable {
    /// Where work runs: short work on the compute threads (one per core, beside the streams),
    /// long work on a lane of its own at a low priority, so that short work never waits behind
    /// it (issue 34, finding 4).
    enum Lane: String, Sendable, CaseIterable {
        case short, long
    }

    var milliseconds: Double
    var pixels: Int

    /// Work estimated at over a second of one core runs on the long lane, and so does any large
    /// image: a burst of 24-megapixel files (each quick to decode, but each tens of megabytes
    /// to fault in and scan) held both compute threads and made a 10 ms still wait 100 ms
    /// behind them (scripts/attack/pressure, bombs).
    var lane: Lane { milliseconds > 1000 || pixels > Self.largeImagePixels ? .long : .short }

    /// Images above this many pixels (8 MP: a phone camera's full resolution is 12) take the
    /// long lane.
    static let largeImagePixels = 8_000_000

    /// Decoding costs about 20 ms a megapixel on this kind of machine (JPEG ~10, WebP ~20).
    static func decoding(pixels: Int) -> Double { Double(pixels) / 1e6 * 20 }
}

/// Admits still work by what it costs, not by count (issue 34, findings 4 and 5).
///
/// - Each client address has a credit of compute time (``Limits/computeBurstSeconds``,
///   refilled at ``Limits/computeSecondsPerSecond``); a request's estimate is taken from it up
///   front and corrected to the time the work really took once it ends. Out of credit: 429
///   with `Retry-After`.
/// - Each lane holds at most ``Limits/maxQueuedComputeSeconds`` of estimated work; over that
///   the server is full for everyone: 503 with `Retry-After`.
/// - Decoded pixels in flight are budgeted (``Limits/maxPixelsInFlight`` in all,
///   ``Limits/maxPixelsInFlightPerClient`` per address): a request waits up to
///   ``Limits/pixelWaitSeconds`` for room, then gets 503. A 1 KB file that decodes to 24 MP
///   is charged its 24 MP.
final class ComputeAdmission: @unchecked Sendable {
    // Unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var credit: [String: (milliseconds: Double, at: ContinuousClock.Instant)] = [:]
    private var queued: [StillCost.Lane: Double] = [:]
    private var pixelsInFlight = 0
    private var clientPixels: [String: Int] = [:]
    let limits: Limits

    init(limits: Limits) {
        self.limits = limits
    }

    /// A ticket for admitted work: give it back with ``finish(_:tookMilliseconds:)``.
    struct Ticket: Sendable {
        let client: String
        let cost: StillCost
    }

    /// Admits `cost` for `client`, or throws the 429 or 503 that says why not; waits (up to the
    /// limit) for room for its pixels.
    func admit(_ cost: StillCost, client: String) async throws -> Ticket {
        try charge(cost, client: client)
        let ticket = Ticket(client: client, cost: cost)
        let waitUntil = ContinuousClock.now + .milliseconds(Int64(limits.pixelWaitSeconds * 1000))
        while !reservePixels(cost.pixels, client: client) {
            guard ContinuousClock.now < waitUntil, !Task.isCancelled else {
                finish(ticket, tookMilliseconds: 0, pixelsHeld: false)
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "2"],
                                message: "too many large images are being decoded at once; try again in 2 s")
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return ticket
    }

    /// The work of `ticket` ended after `tookMilliseconds` on its thread: its pixels and its
    /// place in the lane are freed, and the client's credit is corrected from the estimate to
    /// what it really cost.
    func finish(_ ticket: Ticket, tookMilliseconds: Double, pixelsHeld: Bool = true) {
        lock.withLock {
            queued[ticket.cost.lane, default: 0] -= ticket.cost.milliseconds
            if pixelsHeld {
                pixelsInFlight -= ticket.cost.pixels
                clientPixels[ticket.client, default: 0] -= ticket.cost.pixels
                if clientPixels[ticket.client] ?? 0 <= 0 { clientPixels[ticket.client] = nil }
            }
            if var entry = credit[ticket.client] {
                entry.milliseconds += ticket.cost.milliseconds - tookMilliseconds
                credit[ticket.client] = entry
            }
        }
    }

    /// Work queued or running in `lane`, estimated (ms of one core; for metrics and tests).
    func queuedMilliseconds(_ lane: StillCost.Lane) -> Double { lock.withLock { queued[lane] ?? 0 } }

    private func charge(_ cost: StillCost, client: String) throws {
        let burst = limits.computeBurstSeconds * 1000, rate = limits.computeSecondsPerSecond * 1000
        try lock.withLock {
            let now = ContinuousClock.now
            if credit.count > 50_000 { credit.removeAll() }  // bounded memory under address floods
            var (left, at) = credit[client] ?? (burst, now)
            left = min(burst, left + (now - at).milliseconds / 1000 * rate)
            at = now
            credit[client] = (left, at)
            // One request dearer than the whole burst is still admitted when the credit is
            // full, so that no allowed request is refused forever.
            let needed = min(cost.milliseconds, burst)
            if left < needed {
                let seconds = Int(((needed - left) / rate).rounded(.up))
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(max(1, seconds))],
                                message: "\(client) has used its share of compute time; try again in \(max(1, seconds)) s")
            }
            let lane = cost.lane
            let inLane = queued[lane] ?? 0
            if inLane > 0, inLane + cost.milliseconds > limits.maxQueuedComputeSeconds * 1000 {
                let seconds = Int((inLane / 1000 / Double(max(1, lane == .long ? limits.longLaneThreads : 2))).rounded(.up))
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: String(max(1, seconds))],
                                message: "the server has \(Int(inLane / 1000)) s of \(lane.rawValue) work queued; try again in \(max(1, seconds)) s")
            }
            credit[client] = (left - cost.milliseconds, at)
            queued[lane] = inLane + cost.milliseconds
        }
    }

    private func reservePixels(_ pixels: Int, client: String) -> Bool {
        lock.withLock {
            let mine = clientPixels[client] ?? 0
            // An image alone is always let through when nothing else is in flight, whatever its
            // size (the per-image cap, ``Limits/maxImagePixels``, already bounds it).
            let fitsAll = pixelsInFlight == 0 || pixelsInFlight + pixels <= limits.maxPixelsInFlight
            let fitsMine = mine == 0 || mine + pixels <= limits.maxPixelsInFlightPerClient
            guard fitsAll, fitsMine else { return false }
            pixelsInFlight += pixels
            clientPixels[client] = mine + pixels
            return true
        }
    }
}
