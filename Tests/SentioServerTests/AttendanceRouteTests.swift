import Attendance
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SentioServer
import SentioStore
import SentioTestSupport
import SQLKit
import Testing

/// The attendance application over HTTP, with real photos and the real face pipeline: the
/// role rules route by route (a student reads only their own attendance, a professor only
/// their own courses and only after a face check, the hand-over needs the administrator's
/// password and face), face proofs, and deleting a person's face data.
@Suite("Attendance over HTTP", .timeLimit(.minutes(5)), .requires(fixture: "faces/identity"), .requires(.model("face_landmark")))
struct AttendanceRouteTests {
    static let password = "correct horse battery"
    /// Yale subjects: two neutral photos each to enrol (noglasses, sad), another to check with (glasses).
    static func yale(_ subject: String, _ condition: String) throws -> ByteBuffer {
        try Photos.bytes(try Fixtures.required("faces/identity") + "/faces/identity/Yale_subject\(subject)/yale_subject\(subject)_\(condition).png")
    }

    struct World {
        let admin: SignedIn, professor: SignedIn, other: SignedIn, ann: SignedIn, ben: SignedIn
        let course: String, otherCourse: String
    }

    /// An administrator, two professors (prof teaches CV101, other teaches ML201), students
    /// ann and ben in CV101; faces enrolled for prof (Yale 01) and ann (Yale 02).
    static func world(_ client: some TestClientProtocol, _ server: TestServer) async throws -> World {
        for (name, role) in [("root", Role.admin), ("prof", .professor), ("other", .professor), ("ann", .student), ("ben", .student)] {
            _ = try await server.platform.createUser(username: name, displayName: name.capitalized, role: role, password: Self.password)
        }
        let admin = try await SignedIn.signIn(client, "root", Self.password)
        let professor = try await SignedIn.signIn(client, "prof", Self.password)
        let other = try await SignedIn.signIn(client, "other", Self.password)
        let ann = try await SignedIn.signIn(client, "ann", Self.password)
        let ben = try await SignedIn.signIn(client, "ben", Self.password)
        let course = try await post(client, admin, "/api/v1/attendance/courses", #"{"code": "CV101", "title": "Vision", "academicYear": "2026/27"}"#)["id"] as! String
        let otherCourse = try await post(client, admin, "/api/v1/attendance/courses", #"{"code": "ML201", "title": "Learning", "academicYear": "2026/27"}"#)["id"] as! String
        _ = try await post(client, admin, "/api/v1/attendance/courses/\(course)/professors", #"{"user": "\#(professor.userID)"}"#)
        _ = try await post(client, admin, "/api/v1/attendance/courses/\(otherCourse)/professors", #"{"user": "\#(other.userID)"}"#)
        for s in [ann, ben] { _ = try await post(client, admin, "/api/v1/attendance/courses/\(course)/students", #"{"user": "\#(s.userID)"}"#) }
        // Enrolled with other photos than the ones their clips play (``LiveFace``).
        for (who, subject, conditions) in [(professor, "01", ["normal", "sad"]), (ann, "02", ["noglasses", "sad"])] {
            for condition in conditions {
                let r = try await client.execute(uri: "/api/v1/attendance/people/\(who.userID)/faces", method: .post,
                                                 headers: image(admin), body: try yale(subject, condition))
                #expect(r.status == .created, "\(r.body.text)")
            }
        }
        return World(admin: admin, professor: professor, other: other, ann: ann, ben: ben, course: course, otherCourse: otherCourse)
    }

    static func image(_ who: SignedIn) -> HTTPFields {
        var h = who.headers
        h[.contentType] = "image/png"
        return h
    }

    static func json(_ who: SignedIn) -> HTTPFields {
        var h = who.headers
        h[.contentType] = "application/json"
        return h
    }

    static func post(_ client: some TestClientProtocol, _ who: SignedIn, _ path: String, _ body: String) async throws -> [String: Any] {
        let r = try await client.execute(uri: path, method: .post, headers: json(who), body: ByteBuffer(string: body))
        guard r.status.code < 300 else { throw TestFailure("\(path): \(r.status) \(r.body.text)") }
        // Objects as dictionaries; lists (the enrolled students) are not read.
        return (try? JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any]) ?? [:]
    }

    /// The challenge the clips act out (``LiveFace``).
    static let challenge = try! LivenessChallenge(actions: [.blink, .openMouth])

    /// A face proof of `who` made over the face-proof stream with `frames` (the liveness
    /// challenge and all): the proof token, or the refusal's message.
    static func proof(_ port: Int, _ who: SignedIn, _ frames: [ByteBuffer]) async throws -> (proof: String?, message: String) {
        let m = try await LiveFace.run(port: port, path: "/api/v1/attendance/face-proof", cookie: who.cookie, frames: frames)
        return (m["proof"] as? String, m["message"] as? String ?? "")
    }

    @Test("professors: only after a face check, only their own courses; confirming and editing need a fresh proof")
    func professors() async throws {
        let server = try await TestServer.make(challenge: Self.challenge)
        try await server.run { client, port in
            let w = try await Self.world(client, server)
            // Before the face check: refused with the reason.
            let early = try await client.execute(uri: "/api/v1/attendance/courses", method: .get, headers: w.professor.headers)
            #expect(early.status == .forbidden && early.body.text.contains("check their face"))
            // Someone else's face does not pass (ann, live, for prof); a photo of prof does not either.
            let ann = try await Self.proof(port, w.professor, try LiveFace.clip("02", neutral: "glasses"))
            #expect(ann.proof == nil && ann.message.contains("does not match"), "\(ann.message)")
            let photo = try await Self.proof(port, w.professor, try LiveFace.still("01", "noglasses"))
            #expect(photo.proof == nil && photo.message.contains("liveness"), "\(photo.message)")
            #expect(try await client.execute(uri: "/api/v1/attendance/courses", method: .get, headers: w.professor.headers).status == .forbidden)
            let (token, message) = try await Self.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            #expect(token != nil, "\(message)")
            let courses = try await client.execute(uri: "/api/v1/attendance/courses", method: .get, headers: w.professor.headers)
            #expect(courses.status == .ok && courses.body.text.contains("CV101") && !courses.body.text.contains("ML201"))
            // Another professor's course is not found; its lectures cannot be planned.
            #expect(try await client.execute(uri: "/api/v1/attendance/courses/\(w.otherCourse)", method: .get, headers: w.professor.headers).status == .notFound)
            let foreign = try await client.execute(uri: "/api/v1/attendance/courses/\(w.otherCourse)/lectures", method: .post, headers: Self.json(w.professor),
                                                   body: ByteBuffer(string: #"{"title": "x", "startsAt": 1790000000000, "endsAt": 1790005400000}"#))
            #expect(foreign.status == .notFound)
            // Own course: plan, open, confirm with the proof; a second confirm is refused; the proof is spent.
            let lecture = try await Self.post(client, w.professor, "/api/v1/attendance/courses/\(w.course)/lectures",
                                              #"{"title": "Week 1", "startsAt": 1790000000000, "endsAt": 1790005400000}"#)["id"] as! String
            _ = try await Self.post(client, w.professor, "/api/v1/attendance/lectures/\(lecture)/open", "{}")
            let unproven = try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/confirm", method: .post, headers: Self.json(w.professor),
                                                    body: ByteBuffer(string: #"{"headcount": 2, "proof": "forged"}"#))
            #expect(unproven.status == .forbidden)
            let confirmed = try await Self.post(client, w.professor, "/api/v1/attendance/lectures/\(lecture)/confirm", #"{"headcount": 2, "proof": "\#(token!)"}"#)
            #expect(confirmed["absent"] as? Int == 2 && confirmed["headcountDifference"] as? Int == 2)
            let again = try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/records/\(w.ann.userID)", method: .put, headers: Self.json(w.professor),
                                                 body: ByteBuffer(string: #"{"status": "excused", "proof": "\#(token!)"}"#))
            #expect(again.status == .forbidden && again.body.text.contains("already used"))
            let (fresh, _) = try await Self.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            let edited = try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/records/\(w.ann.userID)", method: .put, headers: Self.json(w.professor),
                                                  body: ByteBuffer(string: #"{"status": "excused", "proof": "\#(fresh!)"}"#))
            #expect(edited.status == .ok, "\(edited.body.text)")
            // The other professor cannot read this lecture even after their own face check fails (no enrolment).
            #expect(try await Self.proof(port, w.other, try LiveFace.clip("01", neutral: "noglasses")).message.contains("no enrolled face"))
            #expect(try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)", method: .get, headers: w.other.headers).status.code >= 403)
            // Students see only their own attendance.
            let mine = try await client.execute(uri: "/api/v1/attendance/my-attendance", method: .get, headers: w.ann.headers)
            #expect(mine.status == .ok && mine.body.text.contains("excused"))
            #expect(try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)", method: .get, headers: w.ann.headers).status == .forbidden)
            #expect(try await client.execute(uri: "/api/v1/attendance/courses/\(w.course)/students", method: .get, headers: w.ann.headers).status == .forbidden)
            #expect(try await client.execute(uri: "/api/v1/attendance/people/\(w.ben.userID)/faces", method: .get, headers: w.ann.headers).status == .forbidden)
            #expect(try await client.execute(uri: "/api/v1/attendance/courses/\(w.otherCourse)", method: .get, headers: w.ann.headers).status == .notFound)
            let audit = try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/audit", method: .get, headers: w.professor.headers)
            #expect(audit.body.text.contains("lecture.confirm") && audit.body.text.contains("absent → excused"))
        }
    }

    /// The cookie `name` a response sets ("name=value"), or nil.
    static func cookie(_ response: TestResponse, _ name: String) -> String? {
        response.headers[values: .setCookie].map { String($0.split(separator: ";")[0]) }.first { $0.hasPrefix(name + "=") }
    }

    @Test("a kiosk is a device: the student left with it reaches no professor page or act, and a photo of the professor cannot leave it")
    func kioskDevice() async throws {
        let server = try await TestServer.make(challenge: Self.challenge)
        try await server.run { client, port in
            let w = try await Self.world(client, server)
            let (token, _) = try await Self.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            #expect(token != nil)
            let lecture = try await Self.post(client, w.professor, "/api/v1/attendance/courses/\(w.course)/lectures",
                                              #"{"title": "Week 1", "startsAt": 1790000000000, "endsAt": 1790005400000}"#)["id"] as! String
            _ = try await Self.post(client, w.professor, "/api/v1/attendance/lectures/\(lecture)/open", "{}")
            // A student cannot make a kiosk; the professor turns this browser into one, and
            // her session in it ends.
            #expect(try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/kiosk-device", method: .post, headers: w.ann.headers).status == .forbidden)
            let made = try await client.execute(uri: "/api/v1/attendance/lectures/\(lecture)/kiosk-device", method: .post, headers: w.professor.headers)
            #expect(made.status == .created, "\(made.body.text)")
            let kiosk = try #require(Self.cookie(made, "sentio_kiosk"))
            #expect(kiosk.count == "sentio_kiosk=".count + 64)
            #expect(Self.cookie(made, "sentio_session") == "sentio_session=")
            #expect(made.headers[values: .setCookie].contains { $0.hasPrefix("sentio_kiosk=") && $0.contains("HttpOnly") && $0.contains("Path=/api/v1/attendance/kiosk") })
            #expect(Self.cookie(made, "sentio_kiosk_device") == "sentio_kiosk_device=1", "the page's readable hint")
            #expect(try await client.execute(uri: "/api/v1/session", method: .get, headers: w.professor.headers).status == .unauthorized)

            // The kiosk: its lecture and a count, names only by two letters or more.
            let about = try await client.execute(uri: "/api/v1/attendance/kiosk", method: .get, headers: [.cookie: kiosk]).body.json()
            #expect(about["courseCode"] as? String == "CV101" && about["expected"] as? Int == 2 && about["operatorName"] as? String == "Prof")
            let few = try await client.execute(uri: "/api/v1/attendance/kiosk/names?q=a", method: .get, headers: [.cookie: kiosk])
            #expect(few.status == .ok && few.body.text == "[]")
            let found = try await client.execute(uri: "/api/v1/attendance/kiosk/names?q=AN", method: .get, headers: [.cookie: kiosk])
            #expect(found.body.text.contains(w.ann.userID) && !found.body.text.contains(w.ben.userID) && !found.body.text.contains("username"))
            // Everything else of the professor's is closed to it: pages' data and acts alike.
            for (method, path) in [(HTTPRequest.Method.get, "/api/v1/attendance/lectures/\(lecture)"), (.get, "/api/v1/attendance/courses"),
                                   (.get, "/api/v1/attendance/lectures/\(lecture)/audit"), (.post, "/api/v1/attendance/lectures/\(lecture)/kiosk-device"),
                                   (.put, "/api/v1/attendance/lectures/\(lecture)/records/\(w.ben.userID)"), (.get, "/api/v1/session")] {
                let r = try await client.execute(uri: path, method: method, headers: [.cookie: kiosk, .contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"status": "present", "proof": "x"}"#))
                #expect(r.status == .unauthorized, "\(method) \(path): \(r.status)")
            }
            // No session here, so no session face proof either (the socket is refused).
            await #expect(throws: (any Error).self) {
                try await LiveFace.run(port: port, path: "/api/v1/attendance/face-proof", cookie: kiosk, frames: try LiveFace.still("01", "noglasses"))
            }

            // What the kiosk is for: a student checks in.
            let checkIn = try await LiveFace.run(port: port, path: "/api/v1/attendance/kiosk/stream", cookie: kiosk,
                                                 start: #"{"type": "start", "student": "\#(w.ann.userID)"}"#, frames: try LiveFace.clip("02", neutral: "glasses"))
            #expect(checkIn["type"] as? String == "checked-in", "\(checkIn)")

            // Leaving: a photo of the professor held to the camera fails the challenge …
            let leaveStart = #"{"type": "start", "purpose": "proof"}"#
            let photo = try await LiveFace.run(port: port, path: "/api/v1/attendance/kiosk/stream", cookie: kiosk, start: leaveStart, frames: try LiveFace.still("01", "noglasses"))
            #expect(photo["type"] as? String == "refused" && (photo["message"] as? String ?? "").contains("liveness"), "\(photo)")
            // … the password alone opens nothing …
            func leave(_ password: String, _ proof: String) async throws -> TestResponse {
                try await client.execute(uri: "/api/v1/attendance/kiosk/leave", method: .post, headers: [.cookie: kiosk, .contentType: "application/json"],
                                         body: ByteBuffer(string: #"{"password": "\#(password)", "proof": "\#(proof)"}"#))
            }
            #expect(try await leave(Self.password, "forged").status == .forbidden)
            // … nor the face without the password.
            let live = try await LiveFace.run(port: port, path: "/api/v1/attendance/kiosk/stream", cookie: kiosk, start: leaveStart, frames: try LiveFace.clip("01", neutral: "noglasses"))
            let leaveProof = try #require(live["proof"] as? String, "\(live)")
            #expect(try await leave("not the password", leaveProof).status == .forbidden)
            // The professor with both: signed in again here, face checked, the kiosk ended.
            let left = try await leave(Self.password, leaveProof)
            #expect(left.status == .ok, "\(left.body.text)")
            #expect(Self.cookie(left, "sentio_kiosk") == "sentio_kiosk=")
            let session = try #require(Self.cookie(left, "sentio_session"))
            #expect(try await client.execute(uri: "/api/v1/attendance/courses", method: .get, headers: [.cookie: session]).status == .ok)
            #expect(try await client.execute(uri: "/api/v1/attendance/kiosk", method: .get, headers: [.cookie: kiosk]).status == .unauthorized)
            let trail = try await server.platform.attendance.auditTrail(lecture: lecture)
            // The photo at the camera, the forged proof, the wrong password: three refusals, none naming a person as the actor.
            let refusedLeaves = trail.filter { $0.action == "kiosk.leave" && $0.outcome == "refused" }
            #expect(refusedLeaves.count == 3 && refusedLeaves.allSatisfy { $0.actor == nil }, "\(refusedLeaves)")
            #expect(trail.contains { $0.action == "kiosk.start" } && trail.contains { $0.action == "kiosk.end" })

            // A student's phone with a code: their own lecture's is named; another course's
            // says so in words (the outside run read "the service could not be reached").
            let code = try #require(try await server.platform.attendance.lecture(lecture)?.checkinCode)
            let own = try await client.execute(uri: "/api/v1/attendance/checkin/lecture?code=\(code)", method: .get, headers: w.ann.headers)
            #expect(own.status == .ok && own.body.text.contains("CV101"), "\(own.body.text)")
            let foreign = try await Self.post(client, w.admin, "/api/v1/attendance/courses/\(w.otherCourse)/lectures",
                                              #"{"title": "ML week 1", "startsAt": 1790000000000, "endsAt": 1790005400000}"#)["id"] as! String
            let foreignCode = try #require(try await Self.post(client, w.admin, "/api/v1/attendance/lectures/\(foreign)/open", "{}")["checkinCode"] as? String)
            let wrongRoom = try await client.execute(uri: "/api/v1/attendance/checkin/lecture?code=\(foreignCode)", method: .get, headers: w.ann.headers)
            #expect(wrongRoom.status == .forbidden && wrongRoom.body.text.contains("not enrolled in ML201"), "\(wrongRoom.body.text)")
            let unknown = try await client.execute(uri: "/api/v1/attendance/checkin/lecture?code=00000000", method: .get, headers: w.ann.headers)
            #expect(unknown.status == .notFound)
        }
    }

    @Test("the administrator hand-over needs the password and the administrator's own face")
    func handOver() async throws {
        let server = try await TestServer.make(challenge: Self.challenge)
        try await server.run { client, port in
            let w = try await Self.world(client, server)
            // The administrator has no enrolled face yet: no proof, no hand-over.
            #expect(try await Self.proof(port, w.admin, try LiveFace.clip("01", neutral: "noglasses")).message.contains("no enrolled face"))
            let noFace = try await client.execute(uri: "/api/v1/attendance/admin-handover", method: .post, headers: Self.json(w.admin),
                                                  body: ByteBuffer(string: #"{"user": "\#(w.professor.userID)", "password": "\#(Self.password)", "proof": "none"}"#))
            #expect(noFace.status == .forbidden)
            let enrol = try await client.execute(uri: "/api/v1/attendance/people/\(w.admin.userID)/faces", method: .post, headers: Self.image(w.admin),
                                                 body: try Self.yale("04", "noglasses"))
            #expect(enrol.status == .created)
            // Another person's face (the professor's photo) is no proof of the administrator.
            #expect(try await Self.proof(port, w.admin, try LiveFace.clip("01", neutral: "noglasses")).proof == nil)
            let (proof, message) = try await Self.proof(port, w.admin, try LiveFace.clip("04"))
            let token = try #require(proof, "\(message)")
            let wrongPassword = try await client.execute(uri: "/api/v1/attendance/admin-handover", method: .post, headers: Self.json(w.admin),
                                                         body: ByteBuffer(string: #"{"user": "\#(w.professor.userID)", "password": "wrong one!", "proof": "\#(token)"}"#))
            #expect(wrongPassword.status == .forbidden)
            let done = try await client.execute(uri: "/api/v1/attendance/admin-handover", method: .post, headers: Self.json(w.admin),
                                                body: ByteBuffer(string: #"{"user": "\#(w.professor.userID)", "password": "\#(Self.password)", "proof": "\#(token)"}"#))
            #expect(done.status == .noContent, "\(done.body.text)")
            // Roles follow at once: the old administrator may no longer create courses.
            let after = try await client.execute(uri: "/api/v1/attendance/courses", method: .post, headers: Self.json(w.admin),
                                                 body: ByteBuffer(string: #"{"code": "X1", "title": "x", "academicYear": "2026/27"}"#))
            #expect(after.status == .forbidden)
        }
    }

    @Test("enrolment refuses photos without a usable face; deleting a person's face data leaves no descriptor or photo")
    func faces() async throws {
        let server = try await TestServer.make(challenge: Self.challenge)
        try await server.run { client, _ in
            let w = try await Self.world(client, server)
            let dir = try Fixtures.required("faces/negatives") + "/faces/negatives"
            let negative = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).sorted().first { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") })
            var h = w.admin.headers
            h[.contentType] = negative.hasSuffix(".png") ? "image/png" : "image/jpeg"
            let none = try await client.execute(uri: "/api/v1/attendance/people/\(w.ben.userID)/faces", method: .post, headers: h,
                                                body: try Photos.bytes(dir + "/" + negative))
            #expect(none.status == .unprocessableContent && none.body.text.contains("No face"), "\(none.body.text)")
            let sleepy = try await client.execute(uri: "/api/v1/attendance/people/\(w.ben.userID)/faces", method: .post, headers: Self.image(w.admin),
                                                  body: try Self.yale("14", "sleepy"))
            #expect(sleepy.status == .unprocessableContent && sleepy.body.text.contains("eyes are closed"), "\(sleepy.body.text)")
            // Enrolment is the administrator's, not the student's own.
            let selfEnrol = try await client.execute(uri: "/api/v1/attendance/people/\(w.ann.userID)/faces", method: .post,
                                                     headers: Self.image(w.ann), body: try Self.yale("02", "centerlight"))
            #expect(selfEnrol.status == .forbidden)
            // Ann agreed to keep a photo; she reads her face data and deletes it herself.
            let kept = try await client.execute(uri: "/api/v1/attendance/people/\(w.ann.userID)/faces?keepPhoto=true", method: .post,
                                                headers: Self.image(w.admin), body: try Self.yale("02", "centerlight"))
            #expect(kept.status == .created, "\(kept.body.text)")
            let listed = try await client.execute(uri: "/api/v1/attendance/people/\(w.ann.userID)/faces", method: .get, headers: w.ann.headers).body.json()
            #expect(listed["faces"] as? Int == 3 && (listed["photos"] as? [String])?.count == 1)
            #expect(try await client.execute(uri: "/api/v1/attendance/people/\(w.ann.userID)/faces", method: .delete, headers: w.ann.headers).status == .noContent)
            let rows = try await server.platform.store.read { db in
                try await db.raw("SELECT COUNT(*) AS n, COUNT(photo) AS p FROM att_faces WHERE user_id = \(bind: w.ann.userID)").first()
            }
            #expect(try rows?.decode(column: "n", as: Int.self) == 0 && rows?.decode(column: "p", as: Int.self) == 0)
        }
    }

    /// Posts a class list and polls its import job until it ends; the job's last state.
    static func importList(_ client: some TestClientProtocol, _ admin: SignedIn, course: String, _ csv: String) async throws -> (Int, [String: Any]) {
        var headers = admin.headers
        headers[.contentType] = "text/csv"
        let r = try await client.execute(uri: "/api/v1/attendance/courses/\(course)/students.csv", method: .post, headers: headers, body: ByteBuffer(string: csv))
        guard r.status == .accepted else { return (Int(r.status.code), (try? r.body.json()) ?? [:]) }
        var job = try r.body.json()
        let id = try #require(job["id"] as? String)
        for _ in 0 ..< 600 where !["done", "failed"].contains(job["state"] as? String ?? "") {
            try await Task.sleep(for: .milliseconds(100))
            job = try await client.execute(uri: "/api/v1/attendance/imports/\(id)", method: .get, headers: admin.headers).body.json()
        }
        return (202, job)
    }

    @Test("a class list is imported in the background, all or nothing, its names compared as accounts store them")
    func importStudents() async throws {
        let server = try await TestServer.make(challenge: Self.challenge)
        try await server.run { client, _ in
            let world = try await Self.world(client, server)
            _ = try await server.platform.createUser(username: "alice", displayName: "Alice", role: .student, password: Self.password)
            // "Alice" is the account "alice" that exists (the old import compared names as typed,
            // failed there, and kept the rows before it with their passwords never shown).
            let (status, job) = try await Self.importList(client, world.admin, course: world.course,
                                                          "username,display name\nnew.one,New One\nAlice,Alice A.\nNEW.one,twice\nnew.two,\n")
            #expect(status == 202)
            #expect(job["state"] as? String == "done", "\(job)")
            let result = try #require(job["result"] as? [String: Any])
            #expect(result["enrolled"] as? Int == 3)
            let created = (result["created"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String }.sorted()
            #expect(created == ["new.one", "new.two"])
            // All or nothing: a professor's name in the list fails it whole, naming the line.
            let (_, failed) = try await Self.importList(client, world.admin, course: world.course, "fresh.student,Fresh\nprof,Prof\n")
            #expect(failed["state"] as? String == "failed" && (failed["error"] as? String ?? "").contains("line 2"), "\(failed)")
            let users = try await client.execute(uri: "/api/v1/users", method: .get, headers: world.admin.headers).body.text
            #expect(!users.contains("fresh.student"), "nothing of a failed import is kept")
            // A bad line is refused before anything is queued.
            let (badStatus, bad) = try await Self.importList(client, world.admin, course: world.course, "ok.name,Fine\nno spaces allowed,Bad\n")
            #expect(badStatus == 422 && "\(bad)".contains("line 2"), "\(badStatus) \(bad)")
            // Another administrator cannot read this one's job (its passwords).
            #expect(try await client.execute(uri: "/api/v1/attendance/imports/\(job["id"] as! String)", method: .get,
                                             headers: world.ann.headers).status == .forbidden)
        }
    }
}
