import Foundation
import Hummingbird
import IVScanner
import MultipartKit
import NIOCore
import SentioImage
import SentioVision

/// `POST /api/v1/faces`, `/hands`, `/pose`, `/faces/embed`, `/faces/compare`, `/iv/scan`: the
/// CLI's commands over HTTP, answering the same JSON. The image is the body (`image/jpeg`,
/// `image/png` or `image/webp`; decoded by its content); the CLI's options are query parameters
/// in camelCase. `/faces/compare` takes a multipart form with the images as fields `a` and `b`.
struct StillRoutes {
    let platform: Platform

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/faces") { request, context in
            let query = try Query(request, allowed: ["model", "minScore", "iris"])
            guard let model = FaceDetector.Model(rawValue: query.string("model") ?? "short") else {
                throw HTTPError(.badRequest, message: "model is short or full")
            }
            let minScore = try query.double("minScore", in: 0...1), iris = try query.bool("iris") ?? false
            let photo = try await image(request, context)
            return try await respond { try await platform.perception.nextWorker().faces(photo, model: model, minScore: minScore, iris: iris) }
        }
        router.route(.post, "/api/v1/hands") { request, context in
            let query = try Query(request, allowed: ["model", "maxHands"])
            guard let model = HandLandmarker.Model(rawValue: query.string("model") ?? "full") else {
                throw HTTPError(.badRequest, message: "model is full or lite")
            }
            let maxHands = try query.int("maxHands", in: 1...4) ?? 2
            let photo = try await image(request, context)
            return try await respond { try await platform.perception.nextWorker().hands(photo, model: model, maxHands: maxHands) }
        }
        router.route(.post, "/api/v1/pose") { request, context in
            _ = try Query(request, allowed: [])
            let photo = try await image(request, context)
            return try await respond { try await platform.perception.nextWorker().pose(photo) }
        }
        router.route(.post, "/api/v1/faces/embed") { request, context in
            let query = try Query(request, allowed: ["detector", "upsample", "jitter"])
            guard let detector = FaceRecognizer.Detector(rawValue: query.string("detector") ?? "blazeface") else {
                throw HTTPError(.badRequest, message: "detector is blazeface or mmod")
            }
            let upsample = try query.int("upsample", in: 0...1) ?? 0, jitter = try query.int("jitter", in: 0...10) ?? 0
            let photo = try await image(request, context)
            return try await respond { try await platform.perception.nextWorker().embed(photo, detector: detector, upsample: upsample, jitter: jitter) }
        }
        router.route(.post, "/api/v1/faces/compare") { request, context in
            let query = try Query(request, allowed: ["threshold", "jitter"])
            let threshold = try query.double("threshold", in: 0...2) ?? FaceDescriptor.defaultThreshold
            let jitter = try query.int("jitter", in: 0...10) ?? 0
            let (a, b) = try await pair(request, context)
            return try await respond { () async throws -> FaceComparison in
                let worker = platform.perception.nextWorker()
                guard let first = try await worker.descriptor(a, jitter: jitter) else { throw HTTPError(.unprocessableContent, message: "no face found in a") }
                guard let second = try await worker.descriptor(b, jitter: jitter) else { throw HTTPError(.unprocessableContent, message: "no face found in b") }
                let distance = try first.distance(to: second)
                return FaceComparison(distance: distance, same: distance < threshold)
            }
        }
        router.route(.post, "/api/v1/iv/scan") { request, context in
            let query = try Query(request, allowed: ["trainerLevel", "statsAsOf"])
            let trainerLevel = try query.int("trainerLevel", in: 1...80)
            var date: GameDate?
            if let text = query.string("statsAsOf") {
                do { date = try GameDate(text) } catch { throw HTTPError(.badRequest, message: "statsAsOf: \(error)") }
            }
            if let trainerLevel {
                do { _ = try LevelRules.highestLevel(trainerLevel: trainerLevel, on: date) } catch {
                    throw HTTPError(.badRequest, message: "trainerLevel: \(error)")
                }
            }
            let screen = try await image(request, context)
            let scanned = try await respond { try await platform.perception.nextWorker().scan(screen, trainerLevel: trainerLevel, statsAsOf: date) }
            var response = try Response.json(scanned.report)
            // The scan's own time on its compute thread (queueing excluded), for load checks.
            response.headers[.serverTiming] = String(format: "scan;dur=%.1f", scanned.milliseconds)
            return response
        }
    }

    /// The request's image, after the rate limit, size and type checks.
    func image(_ request: Request, _ context: AppContext) async throws -> Image {
        try admit(context)
        guard let type = request.headers[.contentType]?.lowercased(), Self.imageTypes.contains(where: { type.hasPrefix($0) }) else {
            throw HTTPError(.unsupportedMediaType, message: "send the image as the body with Content-Type image/jpeg, image/png or image/webp")
        }
        return try decode(try await body(request), name: "the body")
    }

    /// The compare form's two images.
    func pair(_ request: Request, _ context: AppContext) async throws -> (Image, Image) {
        try admit(context)
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.boundary(type)
        else { throw HTTPError(.unsupportedMediaType, message: "send a multipart/form-data form with the images as fields a and b") }
        struct Pair: Decodable { var a: Data; var b: Data }
        let form: Pair
        do {
            form = try FormDataDecoder().decode(Pair.self, from: try await body(request), boundary: boundary)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, message: "the form needs two files, fields a and b: \(describe(decoding: error))")
        }
        return (try decode(ByteBuffer(data: form.a), name: "field a"), try decode(ByteBuffer(data: form.b), name: "field b"))
    }

    static let imageTypes = ["image/jpeg", "image/png", "image/webp"]

    func admit(_ context: AppContext) throws {
        try platform.stillsLimiter.admit(context.client) { "too many requests from \(context.client); try again in \($0) s" }
    }

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

    func decode(_ bytes: ByteBuffer, name: String) throws -> Image {
        guard bytes.readableBytes > 0 else { throw HTTPError(.badRequest, message: "\(name) is empty") }
        do {
            return try ImageIO.decode(Array(buffer: bytes), source: name,
                                      options: DecodeOptions(maxPixels: platform.limits.maxImagePixels))
        } catch {
            throw HTTPError(.unprocessableContent, message: "\(error)")
        }
    }

    /// Runs the work; library errors become 422 with their message.
    func respond<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.unprocessableContent, message: "\(error)")
        }
    }

    /// Runs the work and answers its JSON; library errors become 422 with their message.
    func respond(_ work: () async throws -> some Encodable & Sendable) async throws -> Response {
        let value: any (Encodable & Sendable)
        do {
            value = try await work()
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.unprocessableContent, message: "\(error)")
        }
        return try Response.json(AnyEncodable(value))
    }

    static func boundary(_ contentType: String) -> String? {
        for part in contentType.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.lowercased().hasPrefix("boundary=") {
                let value = pair.dropFirst("boundary=".count)
                return String(value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
        }
        return nil
    }
}

/// A request's query parameters, checked: only the route's own, each of its type and range.
struct Query {
    let values: [String: String]

    init(_ request: Request, allowed: Set<String>) throws {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw HTTPError(.badRequest, message: allowed.isEmpty ? "this route takes no query parameters (got \(name))"
                                : "unknown query parameter \(name); this route takes \(allowed.sorted().joined(separator: ", "))")
            }
            values[name] = String(value)
        }
        self.values = values
    }

    func string(_ name: String) -> String? { values[name] }

    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), range.contains(n) else { throw HTTPError(.badRequest, message: "\(name) is a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return n
    }

    func double(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = values[name] else { return nil }
        guard let x = Double(text), x.isFinite, range.contains(x) else { throw HTTPError(.badRequest, message: "\(name) is a number from \(range.lowerBound) to \(range.upperBound)") }
        return x
    }

    func bool(_ name: String) throws -> Bool? {
        guard let text = values[name] else { return nil }
        guard let flag = Bool(text) else { throw HTTPError(.badRequest, message: "\(name) is true or false") }
        return flag
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

extension Request {
    /// The query's parameters by name (the last of a repeated one).
    var queryDictionary: [String: String] {
        Dictionary(uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { $1 })
    }
}

extension Response {
    /// A JSON response in the CLI's encoding (sorted keys).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(data: try JSON.data(value))))
    }
}
