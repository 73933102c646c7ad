import Attendance
import Foundation
import Hummingbird
import NIOCore
import SentioImage
import SentioStore

/// Faces in the attendance app: enrolment photos (a person's own or the administrator's
/// upload; the photo kept only with `keepPhoto=true`, the person's consent), their deletion,
/// the administrator's 1:1 check
/// (`verify`, what the kiosk decides, for measuring the threshold through the API), and the
/// administrator hand-over.
struct AttendanceFaceRoutes {
    let platform: Platform
    var register: AttendanceRegister { platform.attendance }

    /// dlib's jitter for enrolment photos: ten jittered chips averaged; measured to lower false
    /// rejects (docs/attendance.md). Check-in frames use one chip (speed). SFace has none.
    static let enrolmentJitter = 10

    struct HandOver: Decodable { var user: String; var password: String; var proof: String; var newRole: Role? }
    struct Faces: Encodable { var faces: Int; var staleFaces: Int; var staleKeptPhotos: Int; var model: FaceModel; var photos: [String] }
    struct Reenrolled: Encodable { var reenrolled: Int; var refused: [String]; var faces: Int; var staleFaces: Int }
    struct Enrolled: Encodable { var faces: Int; var yaw: Double; var keptPhoto: Bool }
    struct Verified: Encodable { var match: FaceMatch; var threshold: Double }

    func register(on router: Router<AppContext>) {
        router.route(.get, "/api/v1/attendance/people/{id}/faces") { _, context in
            let id = try context.parameters.require("id")
            guard let person = try await register.person(id) else { throw HTTPError(.notFound, message: "no person \(id)") }
            return try Response.json(Faces(faces: person.faces, staleFaces: person.staleFaces, staleKeptPhotos: try await register.staleKeptPhotoCount(person: id),
                                           model: register.faceModel, photos: try await register.photos(person: id).map(\.id)))
        }
        // Enrolment again, with the server's model, from the photos the person let it keep:
        // each is checked as a new enrolment photo would be; one that fails now is left as it
        // was (and named in `refused`), never compared.
        router.route(.post, "/api/v1/attendance/people/{id}/reenrol") { _, context in
            guard let me = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
            let id = try context.parameters.require("id")
            guard try await register.person(id) != nil else { throw HTTPError(.notFound, message: "no person \(id)") }
            let compute = StillCompute(platform: platform)
            let model = register.faceModel
            var done = 0, refused: [String] = []
            for kept in try await register.staleKeptPhotos(person: id) {
                let upload = try compute.upload(ByteBuffer(data: kept.photo), name: "kept photo \(kept.id)")
                let cost = StillCost.faces(model: .shortRange, iris: false) + StillCost.attendanceDescriptor(model, jitter: Self.enrolmentJitter)
                do {
                    let check = try await compute.run(context, [upload], milliseconds: cost) { worker, images in
                        try worker.faceCheck(images[0], model: model, jitter: Self.enrolmentJitter)
                    }
                    try await register.reenrol(person: id, face: kept.id, descriptor: try usable(check), actor: me.user.id)
                    done += 1
                } catch let error as AttendanceError {
                    refused.append("\(kept.id): \(error.description)")
                }
            }
            guard let person = try await register.person(id) else { throw HTTPError(.notFound, message: "no person \(id)") }
            return try Response.json(Reenrolled(reenrolled: done, refused: refused, faces: person.faces, staleFaces: person.staleFaces))
        }
        router.route(.post, "/api/v1/attendance/people/{id}/faces") { request, context in
            guard let me = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
            let id = try context.parameters.require("id")
            let keep = try Query(request, allowed: ["keepPhoto"]).bool("keepPhoto") ?? false
            let (check, photo) = try await face(request, context, jitter: Self.enrolmentJitter, keepPhoto: keep)
            let descriptor = try usable(check)
            let count = try await register.addFace(person: id, descriptor: descriptor, yaw: check.readings[0].yaw, photo: photo, photoType: "image/jpeg", actor: me.user.id)
            return try Response.json(Enrolled(faces: count, yaw: check.readings[0].yaw, keptPhoto: keep), status: .created)
        }
        router.route(.delete, "/api/v1/attendance/people/{id}/faces") { _, context in
            guard let me = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
            try await register.deleteFaces(person: try context.parameters.require("id"), actor: me.user.id)
            return Response(status: .noContent)
        }
        router.route(.get, "/api/v1/attendance/people/{id}/faces/{photo}") { _, context in
            let id = try context.parameters.require("id"), photo = try context.parameters.require("photo")
            guard let found = try await register.photo(person: id, id: photo) else { throw HTTPError(.notFound, message: "no kept photo \(photo)") }
            return Response(status: .ok, headers: [.contentType: found.type, .cacheControl: "private, no-store"],
                            body: .init(byteBuffer: ByteBuffer(data: found.data)))
        }
        router.route(.post, "/api/v1/attendance/people/{id}/verify") { request, context in
            let id = try context.parameters.require("id")
            // With course=ID, the kiosk's whole rule: also nobody enrolled (in any course) nearer.
            let course = try Query(request, allowed: ["course"]).string("course")
            var cohort: [FaceTemplate] = []
            if let course {
                guard try await register.course(course) != nil else { throw HTTPError(.notFound, message: "no course \(course)") }
                cohort = try await register.allTemplates()
            }
            let (check, _) = try await face(request, context, jitter: 0)
            guard let template = try await register.templates([id]).first else { throw HTTPError(.notFound, message: "no enrolled face for \(id)") }
            let match = try FaceMatcher.verify(try usable(check), against: template, cohort: cohort, policy: register.policy)
            return try Response.json(Verified(match: match, threshold: register.policy.threshold))
        }
        router.route(.post, "/api/v1/attendance/admin-handover") { request, context in
            guard let me = context.identity else { throw HTTPError(.unauthorized, message: "sign in first") }
            let body = try await decode(HandOver.self, request, context)
            guard body.user != me.user.id else { throw HTTPError(.badRequest, message: "hand the role to someone else") }
            let newRole = body.newRole ?? .professor
            guard newRole != .admin else { throw HTTPError(.badRequest, message: "newRole is your role after the hand-over: professor, student or player") }
            // Counted as failed before the password is checked, as at sign-in.
            try await platform.checkPassword(body.password, username: me.user.username) {
                try await register.audit(AuditEntry(actor: me.user.id, subject: body.user, action: "admin.handover", outcome: "refused", detail: "wrong password"))
            }
            do {
                _ = try await register.useFaceProof(body.proof, user: me.user.id, session: me.tokenHash)
            } catch let error as AttendanceError {
                try await register.audit(AuditEntry(actor: me.user.id, subject: body.user, action: "admin.handover", outcome: "refused", detail: error.description))
                throw error
            }
            do {
                try await platform.accounts.handOverAdmin(from: me.user.id, to: body.user, newRole: newRole)
            } catch let error as StoreError {
                // Another hand-over got there first: the same 403 as any non-administrator's.
                if case .notAllowed = error { throw HTTPError(.forbidden, message: "\(error)") }
                throw HTTPError(.notFound, message: "\(error)")
            }
            return Response(status: .noContent)
        }
    }

    /// The request's image (JPEG, PNG or WebP by content), its faces and, when exactly one is
    /// in view, its descriptor; computed on a compute thread (admitted by its cost). With
    /// `keepPhoto`, also the photo to keep: decoded and encoded again as JPEG, upright, so that
    /// none of the upload's metadata (GPS position, camera, time) is kept with it.
    func face(_ request: Request, _ context: AppContext, jitter: Int, keepPhoto: Bool = false) async throws -> (FaceCheck, Data?) {
        let compute = StillCompute(platform: platform)
        let photo = try await compute.upload(request, context, name: "the photo")
        let model = register.faceModel
        let cost = StillCost.faces(model: .shortRange, iris: false) + StillCost.attendanceDescriptor(model, jitter: jitter)
        return try await compute.run(context, [photo], milliseconds: cost) { worker, images in
            let check = try worker.faceCheck(images[0], model: model, jitter: jitter)
            return (check, keepPhoto ? Data(try ImageIO.encode(images[0], as: .jpeg, quality: 90)) : nil)
        }
    }

    /// The descriptor of a photo fit for a face check, or the problem in the kiosk's words.
    func usable(_ check: FaceCheck) throws -> [Float] {
        if let problem = FrameQuality.standard.problem(check.readings) { throw AttendanceError.faceRejected(problem.message) }
        guard let descriptor = check.descriptor else { throw AttendanceError.faceRejected(FrameProblem.noFace.message) }
        return descriptor
    }
}
