import Foundation
import Prometheus

/// The server's Prometheus metrics, served at `/metrics`: per-route latency, per-stream frames,
/// failures and drops, streams and sessions open. One registry per server (not the process-wide
/// metrics system, so tests can run several servers in one process).
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    static let latencyBuckets: [Duration] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000].map { .milliseconds($0) }

    func requestFinished(route: String, method: String, status: Int, duration: Duration) {
        registry.makeDurationHistogram(name: "sentio_http_request_duration_seconds",
                                       labels: [("route", route), ("method", method)], buckets: Self.latencyBuckets)
            .recordNanoseconds(Int64(duration.milliseconds * 1e6))
        registry.makeCounter(name: "sentio_http_requests_total", labels: [("route", route), ("method", method), ("status", String(status))])
            .increment()
    }

    func streamOpened(_ kind: StreamKind) { streamOpened(kind.rawValue) }
    func streamClosed(_ kind: StreamKind) { streamClosed(kind.rawValue) }
    func frameProcessed(_ kind: StreamKind, failed: Bool) { frameProcessed(kind.rawValue, failed: failed) }
    func frameDropped(_ kind: StreamKind) { frameDropped(kind.rawValue) }

    /// `stream`: a stream kind's name, or an application's socket ("puzzler", "kiosk").
    func streamOpened(_ stream: String) {
        registry.makeGauge(name: "sentio_streams_open", labels: [("stream", stream)]).increment()
        registry.makeCounter(name: "sentio_streams_total", labels: [("stream", stream)]).increment()
    }

    func streamClosed(_ stream: String) {
        registry.makeGauge(name: "sentio_streams_open", labels: [("stream", stream)]).decrement()
    }

    func streamRefused(reason: String) {
        registry.makeCounter(name: "sentio_streams_refused_total", labels: [("reason", reason)]).increment()
    }

    func frameProcessed(_ stream: String, failed: Bool) {
        registry.makeCounter(name: failed ? "sentio_stream_frames_failed_total" : "sentio_stream_frames_total",
                             labels: [("stream", stream)]).increment()
    }

    func frameDropped(_ stream: String) {
        registry.makeCounter(name: "sentio_stream_frames_dropped_total", labels: [("stream", stream)]).increment()
    }

    func sessions(open count: Int) {
        registry.makeGauge(name: "sentio_sessions_open").set(Double(count))
    }

    /// A still's work ended: its lane, and its estimated and real cost (ms of one core).
    func stillFinished(lane: String, estimated: Double, took: Double) {
        registry.makeCounter(name: "sentio_still_compute_estimated_ms_total", labels: [("lane", lane)]).increment(by: Int64(estimated))
        registry.makeCounter(name: "sentio_still_compute_ms_total", labels: [("lane", lane)]).increment(by: Int64(took))
    }

    /// A connection closed at once: its address, or the server, had as many as allowed.
    func connectionRefused() { registry.makeCounter(name: "sentio_connections_refused_total").increment() }

    /// A connection closed because the client was too slow: `phase` is head, body, body pause
    /// or idle.
    func connectionTimedOut(phase: String) {
        registry.makeCounter(name: "sentio_connections_timed_out_total", labels: [("phase", phase)]).increment()
    }

    func loginFailed() { registry.makeCounter(name: "sentio_logins_failed_total").increment() }
}
