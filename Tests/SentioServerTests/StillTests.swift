import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SentioImage
import SentioNeural
import SentioServer
import SentioTestSupport
import SentioVision
import Testing

/// The stills answer what the library (and so the CLI, which encodes the same types) gives for
/// the same photo, and bad requests get a 4xx with the reason while the server stays up.
@Suite("Stills over HTTP", .requires(model: "face_detection_short_range", "face_landmark", "hand_landmark_full", "pose_landmark_full"),
       .requires(fixture: "faces/identity"))
struct StillTests {
    @Test("POST /api/v1/faces answers the library's FacesObservation for the photo")
    func faces() async throws {
        let path = try Photos.face()
        let photo = try ImageIO.read(path)
        let landmarker = try FaceLandmarker(store: TestServer.models, threads: 1)
        let expected = FacesObservation(still: try landmarker.faces(in: photo).map { Face(detection: $0.detection, landmarks: $0.landmarks) },
                                        width: photo.width, height: photo.height)
        let server = try await TestServer.make()
        try await server.run { client, _ in
            let r = try await client.execute(uri: "/api/v1/faces", method: .post, headers: [.contentType: "image/jpeg"], body: try Photos.bytes(path))
            #expect(r.status == .ok)
            #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
            let got = try JSONDecoder().decode(FacesObservation.self, from: Data(buffer: r.body))
            #expect(got == expected)
            #expect(got.faces.count == 1)
        }
    }

    @Test("POST /api/v1/faces/compare: the same photo twice is the same person at distance 0")
    func compare() async throws {
        let path = try Photos.face()
        let server = try await TestServer.make()
        try await server.run { client, _ in
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: path))
            let boundary = "sentio-\(UUID().uuidString)"
            var form = Data()
            for field in ["a", "b"] {
                form += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(field).jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                form += jpeg + Data("\r\n".utf8)
            }
            form += Data("--\(boundary)--\r\n".utf8)
            let r = try await client.execute(uri: "/api/v1/faces/compare", method: .post,
                                             headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(data: form))
            #expect(r.status == .ok, "\(r.body.text)")
            let result = try JSONDecoder().decode(FaceComparison.self, from: Data(buffer: r.body))
            #expect(result.same && result.distance < 1e-6)
        }
    }

    @Test("bad requests get a 4xx with the reason, and the server stays up")
    func badRequests() async throws {
        var limits = TestServer.limits
        limits.maxBodyBytes = 1 << 20
        let small = try await TestServer.make(limits: limits)
        let path = try Photos.face()
        let jpeg = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        try await small.run { client, _ in
            let cases: [(String, HTTPFields, ByteBuffer?, HTTPResponse.Status)] = [
                ("/api/v1/faces", [.contentType: "text/plain"], ByteBuffer(string: "hello"), .unsupportedMediaType),
                ("/api/v1/faces", [.contentType: "image/jpeg"], ByteBuffer(string: "not a jpeg"), .unprocessableContent),
                ("/api/v1/faces", [.contentType: "image/jpeg"], ByteBuffer(bytes: Array(jpeg.prefix(jpeg.count / 2))), .unprocessableContent),
                ("/api/v1/faces", [.contentType: "image/jpeg"], nil, .badRequest),
                ("/api/v1/faces?model=huge", [.contentType: "image/jpeg"], ByteBuffer(bytes: jpeg), .badRequest),
                ("/api/v1/faces?minScore=2", [.contentType: "image/jpeg"], ByteBuffer(bytes: jpeg), .badRequest),
                ("/api/v1/faces?typo=1", [.contentType: "image/jpeg"], ByteBuffer(bytes: jpeg), .badRequest),
                ("/api/v1/hands?maxHands=0", [.contentType: "image/jpeg"], ByteBuffer(bytes: jpeg), .badRequest),
                ("/api/v1/iv/scan?statsAsOf=2018-13-45", [.contentType: "image/png"], ByteBuffer(bytes: jpeg), .badRequest),
                ("/api/v1/faces", [.contentType: "image/jpeg"], ByteBuffer(repeating: 0xFF, count: 2 << 20), .contentTooLarge),
                ("/api/v1/faces/compare", [.contentType: "multipart/form-data; boundary=x"], ByteBuffer(string: "--x--\r\n"), .badRequest),
                ("/api/v1/session", [.contentType: "application/json"], ByteBuffer(string: "{\"username\": 5}"), .badRequest),
                ("/api/v1/session", [.contentType: "application/json"], ByteBuffer(string: "{not json"), .badRequest),
                ("/api/v1/rooms", [.contentType: "application/json"], ByteBuffer(string: "{\"purpose\": \"telepathy\"}"), .badRequest),
            ]
            for (uri, headers, body, status) in cases {
                let r = try await client.execute(uri: uri, method: .post, headers: headers, body: body)
                #expect(r.status == status, "\(uri) \(headers): \(r.status) \(r.body.text.prefix(160))")
                if r.status.code >= 400 {
                    let message = ((try? r.body.json())?["error"] as? [String: Any])?["message"] as? String
                    #expect(message?.isEmpty == false, "\(uri): the error says why")
                }
            }
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            let r = try await client.execute(uri: "/api/v1/faces", method: .post, headers: [.contentType: "image/jpeg"], body: ByteBuffer(bytes: jpeg))
            #expect(r.status == .ok, "a good request still works after the bad ones")
        }
    }

    @Test("the OpenAPI document names every HTTP route of the access table, and only those")
    func openAPI() async throws {
        let server = try await TestServer.make()
        try await server.run { client, _ in
            let r = try await client.execute(uri: "/api/v1/openapi.json", method: .get)
            let document = try r.body.json()
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, item) in paths {
                for method in item.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            let routes = Set(AccessTable.rules.filter { !$0.webSocket }.map { "\($0.method.rawValue) \($0.path)" })
            #expect(documented == routes, "only documented: \(documented.subtracting(routes)); only routed: \(routes.subtracting(documented))")
        }
    }
}
