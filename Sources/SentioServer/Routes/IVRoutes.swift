import Foundation
import Hummingbird
import IVCollection
import IVScanner
import MultipartKit
import NIOCore
import SentioImage
import SentioStore

/// The IV application's API (the pages are in Public/iv). A thin layer: the rules live in
/// IVScanner and IVCollection.
///
/// Anyone: `POST /api/v1/iv/evaluate` (an entry → its combinations, plan and ranks),
/// `GET /api/v1/iv/species` and `/api/v1/iv/species/{name}` (game info). Signed in, each player
/// their own collection only (another's Pokémon is 404, as if it did not exist):
/// `/api/v1/iv/collection` (list, save), `/api/v1/iv/collection/{pokemon}` (get, edit,
/// delete), `/api/v1/iv/scans/{scan}/image`, `/api/v1/iv/collection.csv` (export, import) and
/// `/api/v1/iv/collection-by-species`.
struct IVRoutes {
    let platform: Platform

    struct Evaluate: Decodable {
        var entry: IVEntry
        var chosen: ScanReport.IV?
        var rules: LeagueRules?
    }
    struct Edit: Decodable { var entry: IVEntry; var nickname: String? }
    struct Detail: Encodable { var pokemon: CollectedPokemon; var scans: [ScanRecord] }
    struct Imported: Encodable { var imported: Int }

    func register(on router: Router<AppContext>) {
        router.route(.post, "/api/v1/iv/evaluate") { request, context in
            try admit(context)
            let body = try await decode(Evaluate.self, request, context)
            let chosen = body.chosen.map { IVCombination(level: $0.level, attack: $0.attack, defense: $0.defense, stamina: $0.stamina) }
            return try Response.json(try body.entry.evaluate(with: platform.iv.calculator, chosen: chosen, rules: body.rules ?? .init()))
        }
        router.route(.get, "/api/v1/iv/species") { request, _ in
            _ = try Query(request, allowed: [])
            return try Response.json(try GameInfo.list(platform.iv.calculator.data))
        }
        router.route(.get, "/api/v1/iv/species/{name}") { request, context in
            let query = try Query(request, allowed: ["form"])
            let name = try context.parameters.require("name")
            try admit(context)
            return try Response.json(try GameInfo.species(name, form: query.string("form"), calculator: platform.iv.calculator))
        }
        router.route(.get, "/api/v1/iv/collection") { request, context in
            let owner = try player(context)
            return try Response.json(try await platform.iv.list(owner: owner, try listing(request)))
        }
        router.route(.post, "/api/v1/iv/collection") { request, context in
            let owner = try player(context)
            try admit(context)
            let upload = try await saveForm(request, context)
            let outcome = try await platform.iv.save(owner: owner, entry: upload.entry, image: upload.image, imageType: upload.imageType, fields: upload.fields)
            return try Response.json(outcome, status: outcome.kind == .new ? .created : .ok)
        }
        router.route(.get, "/api/v1/iv/collection/{pokemon}") { _, context in
            let owner = try player(context), id = try context.parameters.require("pokemon")
            guard let found = try await platform.iv.pokemon(owner: owner, id: id) else { throw HTTPError(.notFound, message: "no Pokémon \(id) in your collection") }
            return try Response.json(Detail(pokemon: found.pokemon, scans: found.scans))
        }
        router.route(.put, "/api/v1/iv/collection/{pokemon}") { request, context in
            let owner = try player(context), id = try context.parameters.require("pokemon")
            try admit(context)
            let edit = try await decode(Edit.self, request, context)
            return try Response.json(try await platform.iv.update(owner: owner, id: id, entry: edit.entry, nickname: edit.nickname))
        }
        router.route(.delete, "/api/v1/iv/collection/{pokemon}") { _, context in
            let owner = try player(context), id = try context.parameters.require("pokemon")
            try await platform.iv.delete(owner: owner, id: id)
            return Response(status: .noContent)
        }
        router.route(.get, "/api/v1/iv/scans/{scan}/image") { _, context in
            let owner = try player(context), id = try context.parameters.require("scan")
            guard let image = try await platform.iv.image(owner: owner, scanID: id) else { throw HTTPError(.notFound, message: "no screenshot for scan \(id)") }
            return Response(status: .ok, headers: [.contentType: image.type, .cacheControl: "private, max-age=86400"],
                            body: .init(byteBuffer: ByteBuffer(data: image.data)))
        }
        router.route(.get, "/api/v1/iv/collection.csv") { request, context in
            let owner = try player(context)
            try admit(context)
            let csv = try await platform.iv.exportCSV(owner: owner, try listing(request))
            return Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"sentio-iv.csv\""],
                            body: .init(byteBuffer: ByteBuffer(string: csv)))
        }
        router.route(.post, "/api/v1/iv/collection.csv") { request, context in
            let owner = try player(context)
            try admit(context)
            guard request.headers[.contentType]?.lowercased().hasPrefix("text/csv") == true else {
                throw HTTPError(.unsupportedMediaType, message: "send the CSV as the body with Content-Type text/csv")
            }
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: 8 << 20) } catch { throw HTTPError(.contentTooLarge, message: "a CSV file has at most 8 MiB") }
            guard let text = body.getString(at: body.readerIndex, length: body.readableBytes) else { throw HTTPError(.badRequest, message: "the CSV is not UTF-8 text") }
            return try Response.json(Imported(imported: try await platform.iv.importCSV(owner: owner, text)), status: .created)
        }
        router.route(.get, "/api/v1/iv/collection-by-species") { request, context in
            let owner = try player(context)
            _ = try Query(request, allowed: [])
            return try Response.json(try await platform.iv.species(owner: owner))
        }
    }

    /// The signed-in player's id (the access table has already refused guests).
    func player(_ context: AppContext) throws -> String {
        guard let identity = context.identity else { throw HTTPError(.unauthorized, message: "sign in to keep a collection") }
        return identity.user.id
    }

    /// The stills' rate limit per client address, for the routes that compute or write.
    func admit(_ context: AppContext) throws { try StillCompute(platform: platform).admitRequest(context) }

    /// The list's query parameters: `search`, `sort` (date, iv, cp, hp, name), `order` (asc,
    /// desc), `species`, `minPercent`, `lucky`, `shadow`.
    func listing(_ request: Request) throws -> CollectionQuery {
        let query = try Query(request, allowed: ["search", "sort", "order", "species", "minPercent", "lucky", "shadow"])
        var q = CollectionQuery()
        q.search = query.string("search").map { String($0.prefix(100)) }
        if let sort = query.string("sort") {
            guard let value = CollectionQuery.Sort(rawValue: sort) else {
                throw HTTPError(.badRequest, message: "sort is one of \(CollectionQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            q.sort = value
        }
        switch query.string("order") {
        case nil, "desc": q.descending = true
        case "asc": q.descending = false
        default: throw HTTPError(.badRequest, message: "order is asc or desc")
        }
        q.species = query.string("species").map { String($0.prefix(60)) }
        q.minPercent = try query.double("minPercent", in: 0...100)
        q.lucky = try query.bool("lucky")
        q.shadow = try query.bool("shadow")
        return q
    }

    struct Upload { var entry: IVEntry; var image: Data?; var imageType: String?; var fields: [String: ScanReport.Field]? }

    /// The save form: multipart/form-data with `entry` (JSON), optionally `fields` (the scan's
    /// fields, JSON) and `image` (the screenshot, JPEG, PNG or WebP by its content); or JSON
    /// `{"entry": …}` for a hand entry without a screenshot.
    func saveForm(_ request: Request, _ context: AppContext) async throws -> Upload {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/json") {
            struct Body: Decodable { var entry: IVEntry; var fields: [String: ScanReport.Field]? }
            let body = try await decode(Body.self, request, context)
            return Upload(entry: body.entry, fields: body.fields)
        }
        guard type.hasPrefix("multipart/form-data"), let boundary = StillRoutes.boundary(request.headers[.contentType] ?? "") else {
            throw HTTPError(.unsupportedMediaType, message: "send a multipart/form-data form (entry, image, fields) or JSON {\"entry\": …}")
        }
        struct Form: Decodable { var entry: String; var fields: String?; var image: Data? }
        let form: Form
        do {
            form = try FormDataDecoder().decode(Form.self, from: try await StillCompute(platform: platform).body(request), boundary: boundary)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, message: "the form needs a field entry (JSON) and may have image and fields: \(describe(decoding: error))")
        }
        func json<T: Decodable>(_ type: T.Type, _ text: String, _ name: String) throws -> T {
            do { return try JSONDecoder().decode(type, from: Data(text.utf8)) } catch {
                throw HTTPError(.badRequest, message: "\(name): \(describe(decoding: error))")
            }
        }
        var upload = Upload(entry: try json(IVEntry.self, form.entry, "entry"), fields: try form.fields.map { try json([String: ScanReport.Field].self, $0, "fields") })
        if let image = form.image, !image.isEmpty {
            // Kept only when it decodes, on a compute thread like any image (issue 34, finding
            // 12: any bytes behind an image signature were stored); its type from its content.
            let compute = StillCompute(platform: platform)
            let checked = try compute.upload(ByteBuffer(data: image), name: "image")
            guard let format = ImageFileFormat.sniff(checked.bytes) else { throw ImageError.unknownFormat(source: "image") }
            _ = try await compute.run(context, [checked], milliseconds: 0) { _, images in images[0].width }
            upload.image = image
            upload.imageType = format.mediaType
        }
        return upload
    }
}
