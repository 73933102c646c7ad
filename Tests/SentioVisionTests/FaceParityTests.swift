import Foundation
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Against MediaPipe 0.10.21's legacy face_detection (model 0 and 1) and face_mesh: the same
/// number of faces, box IoU ≥ 0.9, mean landmark distance ≤ 2% of the inter-ocular distance.
@Suite("Face parity with MediaPipe", .serialized)
struct FaceParityTests {
    struct Reference {
        let path: String, width: Int, height: Int
        let short: [[Double]], full: [[Double]], meshes: [[[Double]]]
    }

    /// The fixtures' own reference (5 photos) and the cached run of
    /// scripts/reference/mediapipe_solutions.py over the fixture photos (about 330).
    static func references() throws -> [Reference] {
        let fixtures = try Fixtures.required("faces", "reference/images")
        var refs: [Reference] = []
        if let all = VisionTestData.json(VisionTestData.mediapipeFaces) as? [String: [String: Any]] {
            for (key, v) in all.sorted(by: { $0.key < $1.key }) {
                func boxes(_ k: String) -> [[Double]] { (v[k] as? [[String: Any]] ?? []).compactMap { $0["box"] as? [Double] } }
                refs.append(Reference(path: fixtures + "/" + key, width: v["width"] as? Int ?? 0, height: v["height"] as? Int ?? 0,
                                      short: boxes("short"), full: boxes("full"), meshes: v["mesh"] as? [[[Double]]] ?? []))
            }
            return refs
        }
        // Without the cache: the fixtures' five reference photos.
        print("note: no \(VisionTestData.mediapipeFaces) (make reference); comparing on the fixtures' own MediaPipe outputs only")
        let short = VisionTestData.json(fixtures + "/reference/mediapipe_face_detection_short.json") as? [String: [String: Any]] ?? [:]
        let full = VisionTestData.json(fixtures + "/reference/mediapipe_face_detection_full.json") as? [String: [String: Any]] ?? [:]
        let mesh = VisionTestData.json(fixtures + "/reference/mediapipe_face_mesh.json") as? [String: [String: Any]] ?? [:]
        func boxes(_ entry: [String: Any]?) -> [[Double]] {
            (entry?["detections"] as? [[String: Any]] ?? []).compactMap { d in
                (d["relative_bbox"] as? [String: Double]).map { [$0["xmin"]!, $0["ymin"]!, $0["width"]!, $0["height"]!] }
            }
        }
        for name in short.keys.sorted() {
            let hw = short[name]?["image_hw"] as? [Int] ?? [0, 0]
            refs.append(Reference(path: "\(fixtures)/reference/images/\(name).png", width: hw[1], height: hw[0], short: boxes(short[name]),
                                  full: boxes(full[name]), meshes: mesh[name]?["faces"] as? [[[Double]]] ?? []))
        }
        return refs
    }

    @Test("detection with both models: same faces, IoU ≥ 0.9", .requires(fixture: "faces", "reference/images"))
    func detection() throws {
        let refs = try Self.references()
        try #require(!refs.isEmpty, "no photos in MediaPipe's outputs")
        let short = try FaceDetector(model: .shortRange, threads: 1), full = try FaceDetector(model: .fullRange, threads: 1)
        var worst = 1.0, compared = 0
        for ref in refs {
            let image = try ImageIO.read(ref.path)
            for (detector, expected) in [(short, ref.short), (full, ref.full)] {
                let ours = try detector.detect(image).map { [$0.box.x, $0.box.y, $0.box.width, $0.box.height] }
                #expect(ours.count == expected.count, "\(ref.path) \(detector.model): \(ours.count) faces, MediaPipe \(expected.count)")
                for box in expected {
                    let best = ours.map { iou($0, box) }.max() ?? 0
                    worst = min(worst, best)
                    #expect(best >= 0.9, "\(ref.path) \(detector.model): IoU \(best)")
                    compared += 1
                }
            }
        }
        print("face detection parity: \(refs.count) photos, \(compared) boxes, worst IoU \(worst)")
    }

    @Test("verified faces and meshes: same count as face_mesh, mean distance ≤ 2% of the inter-ocular distance",
          .requires(fixture: "faces", "reference/images"))
    func mesh() throws {
        let refs = try Self.references()
        try #require(!refs.isEmpty, "no photos in MediaPipe's outputs")
        let landmarker = try FaceLandmarker(threads: 1)
        var errors: [Double] = []
        for ref in refs {
            let image = try ImageIO.read(ref.path)
            // MediaPipe's face mesh does not retry zoomed out; compare like with like.
            let faces = try landmarker.faces(in: image, retryZoomedOut: false)
            #expect(faces.count == ref.meshes.count, "\(ref.path): \(faces.count) meshes, MediaPipe \(ref.meshes.count)")
            for theirs in ref.meshes {
                let best = faces.map { meshError($0.landmarks.points, theirs, w: Double(ref.width), h: Double(ref.height)) }.min() ?? .infinity
                errors.append(best)
                #expect(best <= 0.02, "\(ref.path): mean landmark distance \(best) of the inter-ocular distance")
            }
        }
        errors.sort()
        if !errors.isEmpty { print("face mesh parity: \(errors.count) faces, median \(errors[errors.count / 2]), worst \(errors.last!) of the IOD") }
    }
}
