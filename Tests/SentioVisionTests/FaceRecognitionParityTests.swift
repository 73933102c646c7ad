import Foundation
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Against dlib 20.0.1 / face_recognition 1.3.0, given the same face box: the shape
/// predictors' landmarks, the aligned chip and the descriptor (distance ≤ 0.01).
@Suite("Face recognition parity with dlib", .serialized)
struct FaceRecognitionParityTests {
    struct Face {
        let image: String
        let rect: DlibRectangle
        let landmarks5: [[Int]]
        let landmarks68: [[Int]]
        let descriptor: [Float]
        /// dlib's chip for this face, when the fixtures have it.
        let chip: String?
    }

    static func rect(_ r: [Int]) -> DlibRectangle { DlibRectangle(left: r[0], top: r[1], right: r[2], bottom: r[3]) }

    /// The fixtures' dlib reference (7 faces in 5 photos, with chips), and the cached run of
    /// scripts/reference/dlib_faces.py over the fixture photos.
    static func faces() throws -> [Face] {
        let fixtures = try Fixtures.required(dlibReference)
        var faces: [Face] = []
        if let ref = VisionTestData.json(fixtures + "/" + dlibReference) as? [String: Any],
           let images = ref["images"] as? [String: [String: Any]] {
            for (_, entry) in images.sorted(by: { $0.key < $1.key }) {
                guard let image = entry["image"] as? String else { continue }
                for f in entry["faces"] as? [[String: Any]] ?? [] {
                    guard let r = f["rect"] as? [Int], let l5 = f["landmarks5"] as? [[Int]], let l68 = f["landmarks68"] as? [[Int]],
                          let d = f["encoding_5pt"] as? [Double] else { continue }
                    faces.append(Face(image: fixtures + "/" + image, rect: rect(r), landmarks5: l5, landmarks68: l68,
                                      descriptor: d.map(Float.init), chip: (f["chip_png"] as? String).map { fixtures + "/" + $0 }))
                }
            }
        }
        if let all = VisionTestData.json(VisionTestData.dlibFaces) as? [String: [String: Any]] {
            for (key, entry) in all.sorted(by: { $0.key < $1.key }) {
                for f in entry["faces"] as? [[String: Any]] ?? [] {
                    guard let r = f["rect"] as? [Int], let l5 = f["landmarks5"] as? [[Int]], let l68 = f["landmarks68"] as? [[Int]],
                          let d = f["descriptor"] as? [Double] else { continue }
                    faces.append(Face(image: fixtures + "/" + key, rect: rect(r), landmarks5: l5, landmarks68: l68, descriptor: d.map(Float.init), chip: nil))
                }
            }
        } else {
            print("note: no \(VisionTestData.dlibFaces) (make reference); comparing on the fixtures' own dlib outputs only")
        }
        return faces
    }

    /// The fixtures' dlib outputs, which every test here needs.
    static let dlibReference = "reference/dlib_reference.json"

    /// The faces, failing when there are none.
    static func someFaces() throws -> [Face] {
        let faces = try Self.faces()
        try #require(!faces.isEmpty, "no faces in dlib's outputs")
        return faces
    }

    @Test("5- and 68-point landmarks equal dlib's from the same box", .requires(fixture: FaceRecognitionParityTests.dlibReference))
    func landmarks() throws {
        let faces = try Self.someFaces()
        let store = ModelStore()
        let sp5 = try ShapePredictor(path: store.path(of: "shape_predictor_5_face_landmarks"))
        let sp68 = try ShapePredictor(path: store.path(of: "shape_predictor_68_face_landmarks"))
        var exact5 = 0, exact68 = 0, worst = 0
        for face in faces {
            let image = try ImageIO.read(face.image)
            let p5 = sp5.predict(image, box: face.rect), p68 = sp68.predict(image, box: face.rect)
            let d5 = zip(p5, face.landmarks5).map { max(abs($0.x - $1[0]), abs($0.y - $1[1])) }.max() ?? 0
            let d68 = zip(p68, face.landmarks68).map { max(abs($0.x - $1[0]), abs($0.y - $1[1])) }.max() ?? 0
            exact5 += d5 == 0 ? 1 : 0
            exact68 += d68 == 0 ? 1 : 0
            worst = max(worst, d5, d68)
            // A pixel intensity sampled one pixel off can send a tree down another branch; a
            // landmark may then move a pixel, never more.
            #expect(d5 <= 1 && d68 <= 1, "\(face.image) \(face.rect): 5-point off by \(d5) px, 68-point by \(d68) px")
        }
        print("landmarks: \(faces.count) faces; 5-point exact on \(exact5), 68-point exact on \(exact68), worst \(worst) px")
        #expect(exact5 * 100 >= faces.count * 95)
    }

    @Test("chips equal dlib's and descriptors lie within 0.01 of dlib's", .requires(fixture: FaceRecognitionParityTests.dlibReference))
    func descriptors() throws {
        let faces = try Self.someFaces()
        let recognizer = try FaceRecognizer(threads: 1)
        var worst = 0.0, worstFace = "", total = 0.0
        for face in faces {
            let image = try ImageIO.read(face.image)
            // The landmarks dlib found, so that this compares the chip and the net alone.
            let landmarks = face.landmarks5.map { PixelPoint(x: $0[0], y: $0[1]) }
            let chip = try FaceChip(from: image, landmarks5: landmarks)
            if let path = face.chip {
                let theirs = try ImageIO.read(path).converted(to: .rgb8)
                let differing = zip(chip.image.packedBytes, theirs.packedBytes).filter { $0 != $1 }.count
                #expect(differing == 0, "\(path): \(differing) channel values differ from dlib's chip")
            }
            let d = try recognizer.descriptor(chip: chip.image).distance(to: FaceDescriptor(face.descriptor))
            total += d
            if d > worst { (worst, worstFace) = (d, face.image) }
            #expect(d <= 0.01, "\(face.image) \(face.rect): descriptor distance \(d) to dlib's")
        }
        print("descriptors: \(faces.count) faces, mean distance to dlib \(total / Double(faces.count)), worst \(worst) (\(worstFace))")
    }

    @Test("the whole path from dlib's box (our landmarks, chip and net) stays within 0.01", .requires(fixture: FaceRecognitionParityTests.dlibReference))
    func fromBox() throws {
        let faces = try Self.someFaces()
        let recognizer = try FaceRecognizer(threads: 1)
        var worst = 0.0
        for face in faces {
            let ours = try recognizer.recognize(ImageIO.read(face.image), box: face.rect)
            let d = try ours.descriptor.distance(to: FaceDescriptor(face.descriptor))
            worst = max(worst, d)
            #expect(d <= 0.01, "\(face.image) \(face.rect): descriptor distance \(d) to dlib's")
        }
        print("from the box: \(faces.count) faces, worst distance \(worst)")
    }
}

/// Shape-predictor files that are cut short or are something else: a typed error.
@Suite("Shape predictor files")
struct ShapePredictorFileTests {
    @Test("truncated or foreign files: ModelError", .requires(model: "shape_predictor_5_face_landmarks", "dlib_face_recognition_resnet_model_v1"))
    func damaged() throws {
        let path = try ModelStore().path(of: "shape_predictor_5_face_landmarks")
        let data = try #require(FileManager.default.contents(atPath: path), "cannot read \(path)")
        let bytes = [UInt8](data)
        let model = try ShapePredictor(file: MappedFile(bytes: bytes))
        #expect(model.partCount == 5)
        for cut in [0, 1, 3, 100, 10_000, bytes.count / 3, bytes.count - 1] {
            #expect(throws: ModelError.self, "cut at \(cut)") { try ShapePredictor(file: MappedFile(bytes: Array(bytes.prefix(cut)))) }
        }
        // The face-recognition net is a dlib file too, but not a shape predictor.
        let net = try ModelStore().path(of: "dlib_face_recognition_resnet_model_v1")
        #expect(throws: ModelError.self) { try ShapePredictor(path: net) }
    }
}
