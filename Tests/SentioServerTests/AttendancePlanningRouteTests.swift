import Attendance
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SentioServer
import SentioTestSupport
import Testing

/// Timetables, remarks and reports over HTTP (issue 37, item 5), on the world of
/// ``AttendanceRouteTests``: who may define a timetable and read a report (a student may not; a
/// professor of another course finds nothing), bad input answered 400 or 422 with the reason,
/// a remark set with the status in the face-confirmed edit, and the report's CSV.
@Suite("Attendance timetables and reports over HTTP", .timeLimit(.minutes(5)), .requires(fixture: "faces/identity"), .requires(.model("face_landmark")))
struct AttendancePlanningRouteTests {
    typealias T = AttendanceRouteTests

    static func send(_ client: some TestClientProtocol, _ who: SignedIn, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> TestResponse {
        try await client.execute(uri: path, method: method, headers: T.json(who), body: body.map { ByteBuffer(string: $0) })
    }

    static func list(_ response: TestResponse) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]] ?? []
    }

    @Test("timetables: the course's professor and the administrator; a student 403, another professor 404; bad slots and dates 422 with the reason")
    func timetable() async throws {
        let server = try await TestServer.make(challenge: T.challenge)
        try await server.run { client, port in
            let w = try await T.world(client, server)
            let slots = "/api/v1/attendance/courses/\(w.course)/slots"
            let slot = #"{"weekday": 1, "startTime": "10:15", "durationMinutes": 90, "title": "Vision", "room": "P1", "firstDate": "2027-03-15", "lastDate": "2027-04-05", "timeZone": "Europe/Ljubljana"}"#
            // A student may not define a timetable nor make its lectures (the access table).
            #expect(try await Self.send(client, w.ann, .post, slots, slot).status == .forbidden)
            #expect(try await Self.send(client, w.ann, .post, "/api/v1/attendance/courses/\(w.course)/timetable").status == .forbidden)
            #expect(try await Self.send(client, w.ann, .get, slots).status == .forbidden)
            // The professor, before the face check: refused, saying why.
            let early = try await Self.send(client, w.professor, .post, slots, slot)
            #expect(early.status == .forbidden && early.body.text.contains("check their face"))
            let (token, message) = try await T.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            #expect(token != nil, "\(message)")
            // Bad slots: each names its field.
            for (body, field) in [(slot.replacingOccurrences(of: #""weekday": 1"#, with: #""weekday": 9"#), "weekday"),
                                  (slot.replacingOccurrences(of: "10:15", with: "10h15"), "startTime"),
                                  (slot.replacingOccurrences(of: "Europe/Ljubljana", with: "Mars/Olympus"), "timeZone"),
                                  (slot.replacingOccurrences(of: "2027-04-05", with: "2027-02-30"), "lastDate")] {
                let r = try await Self.send(client, w.professor, .post, slots, body)
                #expect(r.status == .unprocessableContent && r.body.text.contains(field), "\(field): \(r.status) \(r.body.text)")
            }
            #expect(try await Self.send(client, w.professor, .post, slots, #"{"weekday": "Monday"}"#).status == .badRequest)
            let made = try await Self.send(client, w.professor, .post, slots, slot)
            #expect(made.status == .created, "\(made.body.text)")
            let slotID = try made.body.json()["id"] as! String
            // Another professor: this course and its slot are not found; ann's course either.
            for (method, path) in [(HTTPRequest.Method.get, slots), (.post, "/api/v1/attendance/courses/\(w.course)/timetable"),
                                   (.delete, "\(slots)/\(slotID)"), (.post, "\(slots)/\(slotID)/exceptions")] {
                let r = try await Self.send(client, w.other, method, path, #"{"date": "2027-03-22"}"#)
                #expect(r.status == .notFound, "\(method) \(path): \(r.status)")
            }
            // The slot under a course it is not in: not found.
            let foreign = try await Self.send(client, w.admin, .post, "/api/v1/attendance/courses/\(w.otherCourse)/slots/\(slotID)/exceptions", #"{"date": "2027-03-22"}"#)
            #expect(foreign.status == .notFound)
            // Making the lectures: four Mondays; again, none.
            let run = try await Self.send(client, w.professor, .post, "/api/v1/attendance/courses/\(w.course)/timetable")
            let created = try run.body.json()["created"] as? Int
            #expect(run.status == .ok && created == 4, "\(run.body.text)")
            let again = try await Self.send(client, w.professor, .post, "/api/v1/attendance/courses/\(w.course)/timetable").body.json()["created"] as? Int
            #expect(again == 0)
            // Exceptions: a Tuesday, a date outside, a non-date are 422 with the reason; a Monday removes its lecture.
            for (date, why) in [("2027-03-23", "not a Monday"), ("2027-05-03", "outside"), ("soon", "a date like")] {
                let r = try await Self.send(client, w.professor, .post, "\(slots)/\(slotID)/exceptions", #"{"date": "\#(date)"}"#)
                #expect(r.status == .unprocessableContent && r.body.text.contains(why), "\(date): \(r.status) \(r.body.text)")
            }
            let holiday = try await Self.send(client, w.professor, .post, "\(slots)/\(slotID)/exceptions", #"{"date": "2027-03-22"}"#)
            #expect(holiday.status == .created && holiday.body.text.contains("2027-03-22"))
            let lectures = try Self.list(try await Self.send(client, w.professor, .get, "/api/v1/attendance/courses/\(w.course)/lectures"))
            #expect(lectures.compactMap { $0["slotDate"] as? String }.sorted() == ["2027-03-15", "2027-03-29", "2027-04-05"])
            // The UTC instants: 09:15 before the change, 08:15 after (AttendanceTests' PlanningChecks work them out).
            let starts = Dictionary(uniqueKeysWithValues: lectures.map { ($0["slotDate"] as! String, ($0["startsAt"] as! NSNumber).int64Value) })
            #expect(starts["2027-03-15"] == 1_805_102_100_000 && starts["2027-03-29"] == 1_806_308_100_000)
            let back = try await Self.send(client, w.professor, .delete, "\(slots)/\(slotID)/exceptions/2027-03-22")
            #expect(back.status == .ok && !back.body.text.contains("2027-03-22"))
            #expect(try await Self.send(client, w.professor, .delete, "\(slots)/\(slotID)/exceptions/2027-03-22").status == .notFound)
            // The administrator may plan any course.
            #expect(try await Self.send(client, w.admin, .post, "/api/v1/attendance/courses/\(w.otherCourse)/slots", slot).status == .created)
            let listed = try Self.list(try await Self.send(client, w.professor, .get, slots))
            #expect(listed.count == 1 && listed[0]["timeZone"] as? String == "Europe/Ljubljana")
            let deleted = try await Self.send(client, w.professor, .delete, "\(slots)/\(slotID)")
            let removed = try deleted.body.json()["removedLectures"] as? Int
            #expect(deleted.status == .ok && removed == 3)
        }
    }

    @Test("remarks and reports: the remark with the status in the face-confirmed edit; a report per course and student; a student 403, another's course 404; the CSV")
    func report() async throws {
        let server = try await TestServer.make(challenge: T.challenge)
        try await server.run { client, port in
            let w = try await T.world(client, server)
            // A student reads no report.
            #expect(try await Self.send(client, w.ann, .get, "/api/v1/attendance/report").status == .forbidden)
            #expect(try await Self.send(client, w.ann, .get, "/api/v1/attendance/report.csv").status == .forbidden)
            let (token, _) = try await T.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            // One lecture held on 15 March 2027 (UTC 09:15): ann and ben absent when confirmed.
            let lecture = try await T.post(client, w.professor, "/api/v1/attendance/courses/\(w.course)/lectures",
                                           #"{"title": "Week 1", "startsAt": 1805102100000, "endsAt": 1805107500000}"#)["id"] as! String
            _ = try await T.post(client, w.professor, "/api/v1/attendance/lectures/\(lecture)/open", "{}")
            _ = try await T.post(client, w.professor, "/api/v1/attendance/lectures/\(lecture)/confirm", #"{"proof": "\#(token!)"}"#)
            // A remark of 201 characters: 422 before the face check is spent …
            let (fresh, _) = try await T.proof(port, w.professor, try LiveFace.clip("01", neutral: "noglasses"))
            let record = "/api/v1/attendance/lectures/\(lecture)/records/\(w.ann.userID)"
            let long = try await Self.send(client, w.professor, .put, record, #"{"status": "excused", "remark": "\#(String(repeating: "x", count: 201))", "proof": "\#(fresh!)"}"#)
            #expect(long.status == .unprocessableContent && long.body.text.contains("remark"), "\(long.body.text)")
            // … which then serves the edit.
            let edited = try await Self.send(client, w.professor, .put, record, #"{"status": "excused", "remark": "Doctor's note", "proof": "\#(fresh!)"}"#)
            let remark = try edited.body.json()["remark"] as? String
            #expect(edited.status == .ok && remark == "Doctor's note", "\(edited.body.text)")
            #expect(try await Self.send(client, w.professor, .get, "/api/v1/attendance/lectures/\(lecture)").body.text.contains("Doctor's note"))
            #expect(try await Self.send(client, w.ann, .get, "/api/v1/attendance/my-attendance").body.text.contains("Doctor's note"))
            #expect(try await Self.send(client, w.professor, .get, "/api/v1/attendance/courses/\(w.course)/attendance.csv").body.text.contains(",Doctor's note"))
            // The report for March: ann excused (no share, not flagged), ben absent (0 %, flagged).
            let report = try await Self.send(client, w.professor, .get, "/api/v1/attendance/report?from=2027-03-01&to=2027-03-31")
            #expect(report.status == .ok, "\(report.body.text)")
            let courses = try report.body.json()["courses"] as? [[String: Any]] ?? []
            #expect(courses.map { $0["code"] as? String } == ["CV101"], "the professor's own courses only")
            let students = courses.first?["students"] as? [[String: Any]] ?? []
            let ann = students.first { $0["username"] as? String == "ann" }, ben = students.first { $0["username"] as? String == "ben" }
            #expect(ann?["excused"] as? Int == 1 && ann?["percent"] == nil && ann?["flagged"] as? Bool == false)
            #expect(ben?["absent"] as? Int == 1 && ben?["percent"] as? Double == 0 && ben?["flagged"] as? Bool == true)
            // April has nothing held.
            let april = try await Self.send(client, w.professor, .get, "/api/v1/attendance/report?from=2027-04-01&to=2027-04-30&course=\(w.course)")
            let aprilCourses = try april.body.json()["courses"] as? [[String: Any]] ?? []
            #expect(aprilCourses.count == 1 && aprilCourses.first?["lecturesHeld"] as? Int == 0, "\(april.body.text)")
            // Another professor's course: not found; bad parameters: 400 with the reason.
            #expect(try await Self.send(client, w.professor, .get, "/api/v1/attendance/report?course=\(w.otherCourse)").status == .notFound)
            for (query, why) in [("threshold=101", "threshold"), ("from=2027-02-30", "from"), ("from=2027-04-01&to=2027-03-01", "to"),
                                 ("zone=Nowhere", "zone"), ("student=ann", "unknown query parameter")] {
                let r = try await Self.send(client, w.professor, .get, "/api/v1/attendance/report?\(query)")
                #expect(r.status == .badRequest && r.body.text.contains(why), "\(query): \(r.status) \(r.body.text)")
            }
            // The CSV: its type, a header, a row per student; the threshold flags.
            let csv = try await Self.send(client, w.professor, .get, "/api/v1/attendance/report.csv?from=2027-03-01&to=2027-03-31&threshold=0")
            #expect(csv.status == .ok && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = csv.body.text.split(separator: "\n")
            #expect(lines.first == "course,academic_year,username,name,present,late,excused,absent,lectures_held,percent,flagged")
            // At 0 % nobody is under: ben's 0 is not below 0.
            #expect(lines.contains("CV101,2026/27,ben,Ben,0,0,0,1,1,0.0,no") && lines.contains("CV101,2026/27,ann,Ann,0,0,1,0,1,,no"), "\(lines)")
            // The administrator sees every course.
            let all = try await Self.send(client, w.admin, .get, "/api/v1/attendance/report")
            let codes = (try all.body.json()["courses"] as? [[String: Any]])?.compactMap { $0["code"] as? String }.sorted()
            #expect(codes == ["CV101", "ML201"])
        }
    }
}
