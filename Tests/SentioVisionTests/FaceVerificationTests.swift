import Foundation
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Verification on the labelled pairs of ../shared/fixtures/faces/verification_pairs.tsv with
/// the whole pipeline (BlazeFace → box → 5 landmarks → chip → descriptor), largest face of each
/// photo, dlib's threshold 0.6: accuracy (≥ 97% on `wild`), ROC AUC and the true-accept rate at
/// 0.1% false accepts for every subset. A photo where no face is found fails its pairs.
@Suite("Face verification on labelled pairs", .serialized)
struct FaceVerificationTests {
    struct Pair { let a: String, b: String, same: Bool, subset: String }

    static func pairs() throws -> [Pair] {
        let fixtures = try Fixtures.required("faces/verification_pairs.tsv")
        let text = try String(contentsOfFile: fixtures + "/faces/verification_pairs.tsv", encoding: .utf8)
        // The file has CRLF line ends ("\r\n" is one Character in Swift).
        return text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6 else { return nil }
            return Pair(a: fixtures + "/faces/" + f[0], b: fixtures + "/faces/" + f[1], same: f[2] == "1", subset: f[5])
        }
    }

    /// Area under the ROC curve: the probability that a genuine pair is closer than an
    /// impostor pair (ties count half).
    static func auc(genuine: [Double], impostor: [Double]) -> Double {
        guard !genuine.isEmpty, !impostor.isEmpty else { return .nan }
        var wins = 0.0
        for g in genuine {
            for i in impostor { wins += g < i ? 1 : (g == i ? 0.5 : 0) }
        }
        return wins / Double(genuine.count * impostor.count)
    }

    /// The share of genuine pairs accepted at the largest threshold that accepts at most
    /// `far` of the impostor pairs.
    static func trueAcceptRate(genuine: [Double], impostor: [Double], far: Double) -> Double {
        guard !genuine.isEmpty, !impostor.isEmpty else { return .nan }
        let sorted = impostor.sorted()
        let allowed = Int((far * Double(impostor.count)).rounded(.down))
        // Accept distances strictly below the (allowed+1)-th closest impostor.
        let threshold = sorted[min(allowed, sorted.count - 1)]
        return Double(genuine.filter { $0 < threshold }.count) / Double(genuine.count)
    }

    @Test("accuracy at 0.6, ROC AUC and TAR at 0.1% FAR per subset; wild ≥ 97%", .requires(fixture: "faces/verification_pairs.tsv"))
    func verification() throws {
        let pairs = try Self.pairs()
        try #require(!pairs.isEmpty, "no pairs in verification_pairs.tsv")
        let recognizer = try FaceRecognizer(threads: 1)
        var descriptors: [String: FaceDescriptor?] = [:]
        for path in Set(pairs.flatMap { [$0.a, $0.b] }).sorted() {
            descriptors[path] = try recognizer.recognizeAll(ImageIO.read(path)).first?.descriptor
        }
        let missing = descriptors.filter { $0.value == nil }.keys.sorted()
        print("verification: \(descriptors.count) photos, no face found in \(missing.count)\(missing.isEmpty ? "" : ": " + missing.map { $0.split(separator: "/").suffix(2).joined(separator: "/") }.joined(separator: ", "))")
        for subset in Set(pairs.map(\.subset)).sorted() {
            let chosen = pairs.filter { $0.subset == subset }
            var right = 0
            var genuine: [Double] = [], impostor: [Double] = []
            for p in chosen {
                guard let a = descriptors[p.a] ?? nil, let b = descriptors[p.b] ?? nil else {
                    // No face: the pair counts as wrong, and as the worst distance for the curves.
                    if p.same { genuine.append(.infinity) } else { impostor.append(-.infinity) }
                    continue
                }
                let d = try a.distance(to: b)
                if (d < FaceDescriptor.defaultThreshold) == p.same { right += 1 }
                if p.same { genuine.append(d) } else { impostor.append(d) }
            }
            let accuracy = Double(right) / Double(chosen.count)
            let auc = Self.auc(genuine: genuine, impostor: impostor)
            let tar = Self.trueAcceptRate(genuine: genuine, impostor: impostor, far: 0.001)
            print(String(format: "verification %@: %d pairs (%d genuine), accuracy %.4f at 0.6, ROC AUC %.4f, TAR@FAR0.1%% %.4f",
                         subset, chosen.count, genuine.count, accuracy, auc, tar))
            if subset == "wild" { #expect(accuracy >= 0.97, "wild accuracy \(accuracy)") }
        }
    }

    /// Pairs the label file does not list: every pair of photos of the `wild` identities (same
    /// folder = same person) plus the unlabelled singletons as impostors against all of them.
    @Test("pairs not in the label file: wild identities and singletons, accuracy ≥ 97%",
          .requires(fixture: "faces/verification_identities.tsv", "faces/verification_pairs.tsv", "faces/identity/_singletons"))
    func unseenPairs() throws {
        let fixtures = try Fixtures.required("faces/verification_identities.tsv", "faces/identity/_singletons")
        let text = try String(contentsOfFile: fixtures + "/faces/verification_identities.tsv", encoding: .utf8)
        let listed = Set(try Self.pairs().flatMap { [$0.a + "|" + $0.b, $0.b + "|" + $0.a] })
        var photos: [(path: String, person: String)] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 4, f[2] == "wild" else { continue }
            photos += f[3].split(separator: ",").map { (fixtures + "/faces/" + $0, f[0]) }
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: fixtures + "/faces/identity/_singletons").sorted() {
            photos.append((fixtures + "/faces/identity/_singletons/" + file, "singleton " + file))
        }
        let recognizer = try FaceRecognizer(threads: 1)
        let descriptors = try photos.map { try recognizer.recognizeAll(ImageIO.read($0.path)).first?.descriptor }
        var right = 0, total = 0, genuine = 0
        var wrong: [String] = []
        for i in photos.indices {
            for j in photos.indices where j > i && !listed.contains(photos[i].path + "|" + photos[j].path) {
                let same = photos[i].person == photos[j].person
                total += 1
                genuine += same ? 1 : 0
                guard let a = descriptors[i], let b = descriptors[j] else { continue }
                let d = try a.distance(to: b)
                if (d < FaceDescriptor.defaultThreshold) == same {
                    right += 1
                } else {
                    wrong.append(String(format: "%@ / %@ %.3f", photos[i].path.split(separator: "/").suffix(2).joined(separator: "/"),
                                        photos[j].path.split(separator: "/").suffix(2).joined(separator: "/"), d))
                }
            }
        }
        let accuracy = Double(right) / Double(max(1, total))
        print(String(format: "unseen pairs: %d (%d genuine) among %d photos, accuracy %.4f at 0.6", total, genuine, photos.count, accuracy))
        for w in wrong.prefix(10) { print("  wrong: \(w)") }
        #expect(total > 0)
        #expect(accuracy >= 0.97)
    }

    @Test("ROC helpers on hand-worked cases")
    func rocHelpers() {
        // Genuine 0.1, 0.3; impostor 0.2, 0.4: of the 4 orderings, 3 favour genuine → 0.75.
        #expect(Self.auc(genuine: [0.1, 0.3], impostor: [0.2, 0.4]) == 0.75)
        // 1,000 impostors 1…1000 allow one false accept at 0.1%: threshold 2, genuine < 2 → 1 of 2.
        #expect(Self.trueAcceptRate(genuine: [1.5, 2.5], impostor: (1 ... 1000).map(Double.init), far: 0.001) == 0.5)
    }
}

/// Descriptors of the wrong length (another model's, or cut short) and boxes that make no box:
/// typed errors, never a trap (which would end this test process).
@Suite("Face descriptors and gallery: bad input")
struct FaceRecognitionInputTests {
    static func descriptor(_ count: Int, _ value: Float = 0.1) -> FaceDescriptor { FaceDescriptor([Float](repeating: value, count: count)) }

    @Test("distance and verify: descriptors of different lengths are an error naming both")
    func distance() throws {
        let a = Self.descriptor(128), b = Self.descriptor(128, 0.2)
        #expect(abs(try a.distance(to: b) - (128 * 0.01).squareRoot()) < 1e-6)
        #expect(try verify(a, b) == false && verify(a, a))
        #expect(throws: RecognitionError.descriptorLength(expected: 128, got: 127)) { try a.distance(to: Self.descriptor(127)) }
        #expect(throws: RecognitionError.descriptorLength(expected: 0, got: 128)) { try verify(FaceDescriptor([]), a) }
        #expect(try FaceDescriptor([]).distance(to: FaceDescriptor([])) == 0)
    }

    @Test("gallery: a descriptor of the wrong length is an error and leaves it unchanged")
    func gallery() throws {
        var gallery = FaceGallery()
        try gallery.add(Self.descriptor(128), name: "ada")
        try gallery.add(Self.descriptor(128, 0.3), name: "grace")
        #expect(throws: RecognitionError.descriptorLength(expected: 128, got: 129)) { try gallery.add(Self.descriptor(129), name: "bad") }
        #expect(throws: RecognitionError.descriptorLength(expected: 128, got: 0)) { try gallery.add(FaceDescriptor([]), name: "empty") }
        #expect(gallery.count == 2 && gallery.names == ["ada", "grace"])
        #expect(throws: RecognitionError.descriptorLength(expected: 128, got: 64)) { try gallery.identify(Self.descriptor(64)) }
        let found = try gallery.identify(Self.descriptor(128, 0.11), k: 5)
        #expect(found.identity == "ada" && found.candidates.map(\.name) == ["ada", "grace"])
        #expect(try gallery.identify(Self.descriptor(128), k: 0).candidates.isEmpty)
        // Another model's dimension; none at all is an error.
        var small = try FaceGallery(dimension: 3)
        try small.add(FaceDescriptor([1, 0, 0]), name: "x")
        #expect(try small.identify(FaceDescriptor([1, 0, 0])).identity == "x")
        for dimension in [0, -1, Int.min] {
            #expect(throws: RecognitionError.galleryDimension(dimension)) { try FaceGallery(dimension: dimension) }
        }
        #expect(try FaceGallery().identify(Self.descriptor(128)).candidates.isEmpty)
    }

    @Test("a detector's box that is no box (not finite, or absurdly far) is an error, not a trapped conversion")
    func boxes() throws {
        let fine = try FaceRecognizer.dlibBox(for: Box(x: 0.25, y: 0.25, width: 0.5, height: 0.5), width: 100, height: 100)
        #expect(fine.width > 40 && fine.width < 55)
        for bad in [Box(x: .nan, y: 0, width: 0.5, height: 0.5), Box(x: 0, y: 0, width: .infinity, height: 0.5),
                    Box(x: 1e300, y: 0, width: 0.1, height: 0.1), Box(x: 0, y: 0, width: -0.5, height: 0.5)] {
            #expect(throws: RecognitionError.self, "\(bad)") { try FaceRecognizer.dlibBox(for: bad, width: 100, height: 100) }
        }
    }

    @Test("a given box beyond any image is an error before the shape predictor sees it",
          .requires(model: "dlib_face_recognition_resnet_model_v1", "shape_predictor_5_face_landmarks"))
    func givenBoxes() throws {
        let recognizer = try FaceRecognizer(threads: 1)
        let image = try Image(width: 64, height: 64, format: .rgb8, fill: 128)
        _ = try recognizer.recognize(image, box: DlibRectangle(left: 8, top: 8, right: 55, bottom: 55))
        for box in [DlibRectangle(left: 0, top: 0, right: Int.max - 1, bottom: Int.max - 1), DlibRectangle(left: Int.min, top: 0, right: 10, bottom: 10),
                    DlibRectangle(left: 20, top: 20, right: 10, bottom: 30)] {
            #expect(throws: RecognitionError.self, "\(box)") { try recognizer.recognize(image, box: box) }
        }
    }
}
