import Foundation
import Hummingbird
import NIOCore
import SentioImage
import SentioNeural

/// An uploaded image, checked and sized from its header but not decoded yet: decoding waits
/// until the work is admitted and happens on the work's own thread.
struct Upload: Sendable {
    var bytes: [UInt8]
    /// How errors name it ("the body", "field a").
    var name: String
    /// Pixels it decodes to (from its header).
    var pixels: Int
}

/// The one way a request runs compute work: the count limit, the body's size and type, the
/// image's header, admission by cost (``ComputeAdmission``), a lane, a deadline, decoding and
/// the work on a compute thread, and the client's credit corrected to what the work took.
/// Every still route, the attendance photos and the IV scan go through it.
struct StillCompute {
    let platform: Platform

    static let imageTypes = ["image/jpeg", "image/png", "image/webp"]

    /// Takes one of the client's still requests from its count limit (429 over it).
    func admitRequest(_ context: AppContext) throws {
        try platform.stillsLimiter.admit(context.client) { "too many requests from \(context.client); try again in \($0) s" }
    }

    /// The request's body as an image upload, after the count limit and the type and size checks.
    func upload(_ request: Request, _ context: AppContext, name: String = "the body") async throws -> Upload {
        try admitRequest(context)
        guard let type = request.headers[.contentType]?.lowercased(), Self.imageTypes.contains(where: { type.hasPrefix($0) }) else {
            throw HTTPError(.unsupportedMediaType, message: "send the image as the body with Content-Type image/jpeg, image/png or image/webp")
        }
        return try upload(try await body(request), name: name)
    }

    /// `bytes` as an image upload: not empty, an image by its content, within the pixel limit.
    func upload(_ bytes: ByteBuffer, name: String) throws -> Upload {
        guard bytes.readableBytes > 0 else { throw HTTPError(.badRequest, message: "\(name) is empty") }
        let array = Array(buffer: bytes)
        let info = try ImageIO.info(array, source: name)
        guard info.width > 0, info.height > 0 else { throw ImageError.invalidDimensions(width: info.width, height: info.height) }
        let (pixels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        guard !overflow, pixels <= platform.limits.maxImagePixels else {
            throw ImageError.tooLarge(width: info.width, height: info.height, limit: platform.limits.maxImagePixels)
        }
        return Upload(bytes: array, name: name, pixels: pixels)
    }

    /// The request's body, refused with 413 over the stills' limit.
    func body(_ request: Request) async throws -> ByteBuffer {
        let limit = platform.limits.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPError(.contentTooLarge, message: "the body is \(length) bytes; the limit is \(limit)")
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch {
            throw HTTPError(.contentTooLarge, message: "the body is over the limit of \(limit) bytes")
        }
    }

    /// Runs `work` over the decoded `uploads` once admitted: `milliseconds` is the work's
    /// estimated cost on one core without decoding (decoding is added from the pixels). The
    /// work runs on its lane's thread within the lane's deadline; errors keep their own status
    /// (``StatusError``).
    func run<T: Sendable>(_ context: AppContext, _ uploads: [Upload], milliseconds: Double,
                          _ work: @escaping @Sendable (isolated StillWorker, [Image]) throws -> T) async throws -> T {
        let limits = platform.limits
        let pixels = uploads.reduce(0) { $0 + $1.pixels }
        let cost = StillCost(milliseconds: milliseconds + StillCost.decoding(pixels: pixels), pixels: pixels)
        let ticket = try await platform.admission.admit(cost, client: context.client)
        let started = ContinuousClock.now
        var took: Double?
        defer { platform.admission.finish(ticket, tookMilliseconds: took ?? (ContinuousClock.now - started).milliseconds) }
        let seconds = cost.lane == .long ? limits.longDeadlineSeconds : limits.shortDeadlineSeconds
        let worker = platform.perception.worker(for: cost.lane)
        let maxPixels = limits.maxImagePixels
        let result = try await ComputeDeadline.within(.milliseconds(Int64(seconds * 1000))) {
            try await worker.timed { worker in
                let images = try uploads.map { try worker.decode($0.bytes, name: $0.name, maxPixels: maxPixels) }
                return try work(worker, images)
            }
        }
        took = result.milliseconds
        platform.metrics.stillFinished(lane: cost.lane.rawValue, estimated: cost.milliseconds, took: result.milliseconds)
        return result.value
    }
}

extension TokenBuckets {
    /// Takes a token for `key`, or refuses with 429 and Retry-After; `message` is given the
    /// seconds to wait.
    func admit(_ key: String, message: (Int) -> String) throws {
        if let wait = take(key) {
            let seconds = Int(wait.rounded(.up))
            throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(seconds)], message: message(seconds))
        }
    }
}
