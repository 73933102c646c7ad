import Attendance
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
    var compute: StillCompute { StillCompute(platform: platform) }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/faces") { request, context in
            let query = try Query(request, allowed: ["model", "minScore", "iris"])
            guard let model = FaceDetector.Model(rawValue: query.string("model") ?? "short") else {
                throw HTTPError(.badRequest, message: "model is short or full")
            }
            let minScore = try query.double("minScore", in: 0...1), iris = try query.bool("iris") ?? false
            let photo = try await compute.upload(request, context)
            return try Response.json(try await compute.run(context, [photo], milliseconds: StillCost.faces(model: model, iris: iris)) {
                try $0.faces($1[0], model: model, minScore: minScore, iris: iris)
            })
        }
        router.route(.post, "/api/v1/hands") { request, context in
            let query = try Query(request, allowed: ["model", "maxHands"])
            guard let model = HandLandmarker.Model(rawValue: query.string("model") ?? "full") else {
                throw HTTPError(.badRequest, message: "model is full or lite")
            }
            let maxHands = try query.int("maxHands", in: 1...4) ?? 2
            let photo = try await compute.upload(request, context)
            return try Response.json(try await compute.run(context, [photo], milliseconds: StillCost.hands(maxHands: maxHands)) {
                try $0.hands($1[0], model: model, maxHands: maxHands)
            })
        }
        router.route(.post, "/api/v1/pose") { request, context in
            _ = try Query(request, allowed: [])
            let photo = try await compute.upload(request, context)
            return try Response.json(try await compute.run(context, [photo], milliseconds: StillCost.pose) { try $0.pose($1[0]) })
        }
        router.route(.post, "/api/v1/faces/embed") { request, context in
            let query = try Query(request, allowed: ["model", "detector", "upsample", "jitter"])
            let model = try faceModel(query)
            if model == .sface {
                guard query.string("detector") == nil, query.string("upsample") == nil, query.string("jitter") == nil else {
                    throw HTTPError(.badRequest, message: "detector, upsample and jitter are dlib's: add model=dlib")
                }
                let photo = try await compute.upload(request, context)
                return try Response.json(try await compute.run(context, [photo], milliseconds: StillCost.sface) { try $0.embedSFace($1[0]) })
            }
            guard let detector = FaceRecognizer.Detector(rawValue: query.string("detector") ?? "blazeface") else {
                throw HTTPError(.badRequest, message: "detector is blazeface or mmod")
            }
            let upsample = try query.int("upsample", in: 0...1) ?? 0, jitter = try query.int("jitter", in: 0...10) ?? 0
            let photo = try await compute.upload(request, context)
            let cost = StillCost.embed(detector: detector, upsample: upsample, jitter: jitter, pixels: photo.pixels)
            return try Response.json(try await compute.run(context, [photo], milliseconds: cost) {
                try $0.embed($1[0], detector: detector, upsample: upsample, jitter: jitter)
            })
        }
        router.route(.post, "/api/v1/faces/compare") { request, context in
            let query = try Query(request, allowed: ["model", "threshold", "jitter"])
            let model = try faceModel(query)
            let threshold = try query.double("threshold", in: 0...2) ?? (model == .sface ? FaceDescriptor.sfaceThreshold : FaceDescriptor.defaultThreshold)
            let jitter = try query.int("jitter", in: 0...10) ?? 0
            guard model == .dlib || jitter == 0 else { throw HTTPError(.badRequest, message: "jitter is dlib's: add model=dlib") }
            let (a, b) = try await pair(request, context)
            let cost = 2 * (model == .sface ? StillCost.sface : StillCost.embed(detector: .blazeFace, upsample: 0, jitter: jitter, pixels: 0))
            return try Response.json(try await compute.run(context, [a, b], milliseconds: cost) { worker, images in
                guard let first = try worker.descriptor(images[0], model: model, jitter: jitter) else {
                    throw HTTPError(.unprocessableContent, message: "no face found in a")
                }
                guard let second = try worker.descriptor(images[1], model: model, jitter: jitter) else {
                    throw HTTPError(.unprocessableContent, message: "no face found in b")
                }
                let distance = try first.distance(to: second)
                return FaceComparison(distance: distance, same: distance < threshold)
            })
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
            let screen = try await compute.upload(request, context)
            let scanned = try await compute.run(context, [screen], milliseconds: StillCost.scan) { [date] in
                try $0.scan($1[0], trainerLevel: trainerLevel, statsAsOf: date)
            }
            var response = try Response.json(scanned.report)
            // The scan's own time on its compute thread (queueing excluded), for load checks.
            response.headers[.serverTiming] = String(format: "scan;dur=%.1f", scanned.milliseconds)
            return response
        }
    }

    /// The compare form's two images.
    /// The `model` parameter: sface (the default) or dlib.
    func faceModel(_ query: Query) throws -> FaceModel {
        guard let model = FaceModel(rawValue: query.string("model") ?? "sface") else { throw HTTPError(.badRequest, message: "model is sface or dlib") }
        return model
    }

    func pair(_ request: Request, _ context: AppContext) async throws -> (Upload, Upload) {
        try compute.admitRequest(context)
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
              let boundary = Self.boundary(type)
        else { throw HTTPError(.unsupportedMediaType, message: "send a multipart/form-data form with the images as fields a and b") }
        struct Pair: Decodable { var a: Data; var b: Data }
        let form: Pair
        do {
            form = try FormDataDecoder().decode(Pair.self, from: try await compute.body(request), boundary: boundary)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, message: "the form needs two files, fields a and b: \(describe(decoding: error))")
        }
        return (try compute.upload(ByteBuffer(data: form.a), name: "field a"), try compute.upload(ByteBuffer(data: form.b), name: "field b"))
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

/// The stills' estimated costs in milliseconds of one core, decoding excluded (StillCompute adds
/// it from the pixels). Measured on this kind of machine (release build, one thread; see
/// docs/server.md, "Cost, not count"); the client's credit is corrected to the real time after
/// the work, so an estimate only has to be right in its order of magnitude and its lane.
extension StillCost {
    static func faces(model: FaceDetector.Model, iris: Bool) -> Double { (model == .fullRange ? 40 : 25) + (iris ? 20 : 0) }
    /// SFace on one face found by the full-range detector and the mesh.
    static let sface = 70.0
    /// Attendance's descriptor for a face whose mesh is known (SFace aligns by it; dlib detects again).
    static func attendanceDescriptor(_ model: FaceModel, jitter: Int) -> Double {
        model == .sface ? 30 : embed(detector: .blazeFace, upsample: 0, jitter: jitter, pixels: 0)
    }
    static func hands(maxHands: Int) -> Double { 60 + 30 * Double(maxHands) }
    static let pose = 80.0
    static let scan = 500.0
    /// One face's descriptor takes ~150 ms a chip, once plus once per jitter; mmod's detector
    /// ~2 s a megapixel, four times that upsampled.
    static func embed(detector: FaceRecognizer.Detector, upsample: Int, jitter: Int, pixels: Int) -> Double {
        let descriptor = 150 * Double(1 + jitter)
        switch detector {
        case .blazeFace: return 30 + descriptor
        case .mmod: return 2000 * Double(pixels) / 1e6 * (upsample > 0 ? 4 : 1) + descriptor
        }
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
