import Foundation
import SentioImage
import SentioNeural
import SentioVision
import Testing

/// dlib's CNN face detector against dlib 20.0.1 itself (`dlib.cnn_face_detection_model_v1`,
/// not upsampled), on the fixture photos of at most a megapixel.
@Suite("MMOD face detector parity with dlib", .serialized)
struct MMODDetectorTests {
    @Test("same faces, same rectangles, same order; confidences within 1e-4")
    func parity() throws {
        guard let reference = VisionTestData.json(VisionTestData.dlibMMOD) as? [String: [String: Any]], let fixtures = VisionTestData.fixtures else {
            return print("skip: no fixtures or no \(VisionTestData.dlibMMOD) (make reference)")
        }
        let detector = try MMODFaceDetector()
        var images = 0, faces = 0, exact = 0, worst = 0.0
        for (key, entry) in reference.sorted(by: { $0.key < $1.key }) {
            let expected = (entry["faces"] as? [[String: Any]] ?? []).compactMap { f -> MMODDetection? in
                guard let r = f["rect"] as? [Int], r.count == 4, let c = f["confidence"] as? Double else { return nil }
                return MMODDetection(box: DlibRectangle(left: r[0], top: r[1], right: r[2], bottom: r[3]), confidence: c)
            }
            let found = try detector.detect(try ImageIO.read(fixtures + "/" + key))
            images += 1
            faces += expected.count
            #expect(found.map(\.box) == expected.map(\.box), "\(key): \(found.map(\.box)) vs dlib \(expected.map(\.box))")
            for (a, b) in zip(found, expected) where a.box == b.box {
                let d = abs(a.confidence - b.confidence)
                worst = max(worst, d)
                exact += d <= 1e-4 ? 1 : 0
            }
        }
        print("mmod parity: \(images) images, \(faces) faces; confidences within 1e-4 on \(exact), worst difference \(worst)")
        #expect(images > 0 && exact == faces)
    }

    @Test("small, grey and odd-shaped images")
    func edgeCases() throws {
        let detector = try MMODFaceDetector()
        // A few pixels: nothing can be found, nothing fails.
        #expect(try detector.detect(try Image(width: 8, height: 8, format: .rgb8)).isEmpty)
        #expect(try detector.detect(try Image(width: 7, height: 7, format: .rgb8)).isEmpty)
        #expect(try detector.detect(try Image(width: 1, height: 300, format: .gray8)).isEmpty)
        // A flat grey picture has no face; a long thin one still runs through the pyramid.
        #expect(try detector.detect(try Image(width: 700, height: 90, format: .gray8, fill: 128)).isEmpty)
        #expect(detector.options.windows.count == 1 && detector.pyramid.downsampling == 6)
    }

    @Test("a file that is not the detector: a typed error")
    func wrongFile() throws {
        let store = ModelStore()
        #expect(throws: ModelError.self) { try MMODFaceDetector(path: store.path(of: "dlib_face_recognition_resnet_model_v1")) }
        #expect(throws: (any Error).self) { try MMODFaceDetector(path: "/nonexistent/mmod.dat") }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store.path(of: "mmod_human_face_detector"))))
        let cut = NSTemporaryDirectory() + "sentio-mmod-cut.dat"
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: cut))
        defer { try? FileManager.default.removeItem(atPath: cut) }
        #expect(throws: ModelError.self) { try MMODFaceDetector(path: cut) }
    }
}
