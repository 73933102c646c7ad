import Attendance
import Foundation
import SentioImage
import SentioNeural
import SentioServer
import SentioTestSupport
import SentioVision
import Testing

/// The enrolment photo's quality rules (FrameQuality) on real photos, each read as the server
/// reads it (short-range mesh, the eye model's EAR, FaceCheck.reading): shut eyes and winks
/// (the manifest's and Yale's) are refused; no photo of the identity fixtures with both eyes
/// open is refused (clear glasses and side light among them); the same photos with dark lenses
/// drawn over the eyes are refused as hidden eyes. Dark lenses are drawn because no fixture wears sunglasses:
/// an even, dark ellipse over each eye (luminance 20–45 with a little noise, on every other
/// photo a thin reflection), what a sunglasses photo puts where the eyes were.
@Suite("Enrolment quality: winks and hidden eyes", .serialized)
struct EnrolmentQualityTests {
    static let identity = (Fixtures.directory(repository: Fixtures.repository(from: #filePath, levels: 3)) ?? "/missing-fixtures") + "/faces/identity"

    struct Read {
        var path: String
        var reading: FaceReading
        var points: [Point3]
        var image: Image
    }

    /// Every single-face photo under the identity fixtures, read as the server reads it.
    static func readings(_ paths: [String], landmarker: FaceLandmarker, iris: IrisLandmarker) throws -> [Read] {
        try paths.compactMap { path in
            let image = try ImageIO.read(path)
            let faces = try landmarker.faces(in: image)
            guard faces.count == 1 else { return nil }
            return Read(path: path, reading: try FaceCheck.reading(faces[0].landmarks, box: faces[0].detection.box.width, image, iris: iris),
                        points: faces[0].landmarks.points, image: image)
        }
    }

    /// `image` with a dark lens over each eye of `points`.
    static func sunglasses(_ image: Image, _ points: [Point3], seed: UInt64, reflection: Bool) throws -> Image {
        var out = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        var random = SeededRandom(seed: seed)
        let w = Double(out.width), h = Double(out.height)
        for contour in [[33, 133, 159, 145], [263, 362, 386, 374]] {
            let xs = contour.map { points[$0].x * w }, ys = contour.map { points[$0].y * h }
            let eyeWidth = xs.max()! - xs.min()!
            // A lens sits a little above the eye's centre and reaches below the lower lid.
            let cx = xs.reduce(0, +) / 4, cy = ys.reduce(0, +) / 4 - 0.1 * eyeWidth
            let ax = 0.85 * eyeWidth, ay = 0.7 * eyeWidth
            for y in max(0, Int(cy - ay)) ... min(out.height - 1, Int(cy + ay)) {
                for x in max(0, Int(cx - ax)) ... min(out.width - 1, Int(cx + ax)) {
                    let u = (Double(x) - cx) / ax, v = (Double(y) - cy) / ay
                    guard u * u + v * v <= 1 else { continue }
                    // Darker at the top (a gradient lens), a thin diagonal reflection.
                    var level = 20 + 25 * (v + 1) / 2 + Double.random(in: -4 ... 4, using: &random)
                    if reflection && abs(u + v - 0.6) < 0.06 { level = 110 }
                    for c in 0 ..< 3 { out[x, y, c] = UInt8(max(0, min(255, level))) }
                }
            }
        }
        return out
    }

    /// Photos whose eyes the fixtures' manifest says are shut (eyes=closed) or winking
    /// (eyes=one_closed…), by path below the fixtures' faces folder.
    static func shutInManifest() throws -> [String: String] {
        let text = try String(contentsOfFile: Self.identity + "/../manifest.tsv", encoding: .utf8)
        var found: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 8, let eyes = columns[8].split(separator: ";").first(where: { $0.hasPrefix("eyes=") }) else { continue }
            if eyes == "eyes=closed" || eyes.hasPrefix("eyes=one_closed") { found[String(columns[0])] = String(eyes) }
        }
        return found
    }

    @Test("shut eyes and winks refused (the eye model's EAR); no open-eyed photo refused; the same faces behind dark lenses refused")
    func winksAndLenses() throws {
        let paths = Fixtures.images(under: Self.identity)
        try #require(paths.count >= 200, "the identity fixtures (\(paths.count) photos) are missing: set SENTIO_FIXTURES")
        let landmarker = try FaceLandmarker(model: .shortRange, store: ModelStore(), threads: 2)
        let iris = try IrisLandmarker(store: ModelStore())
        let quality = FrameQuality.standard
        let read = try Self.readings(paths, landmarker: landmarker, iris: iris)
        let manifest = try Self.shutInManifest()
        #expect(manifest.count >= 3, "the manifest names \(manifest.count) photos with shut eyes or a wink")
        func key(_ path: String) -> String { "identity/" + path.split(separator: "/").suffix(2).joined(separator: "/") }
        // The manifest's shut eyes (a laugh, a squeeze) and its wink (Yale's are counted below),
        // each refused: as such, unless the head's pose refuses it first.
        for r in read where manifest[key(r.path)] != nil && !r.path.contains("/Yale_") {
            let expected: FrameProblem = manifest[key(r.path)] == "eyes=closed" ? .eyesClosed : .oneEyeClosed
            let problem = quality.problem([r.reading])
            #expect(problem == expected || problem == .turnedAway, "\(r.path) (\(manifest[key(r.path)]!)): \(String(describing: problem)) \(Self.describe(r.reading))")
        }
        // Yale's winks: six of the ten are winks the eye model sees (the two eyes' EAR 0.46–0.57
        // of each other); in the other four the lid is half shut (0.7–0.9), and accepting those
        // is the price of never refusing an open pair (the lowest share among them is 0.63).
        // Yale's sleepy faces: eight of ten are shut enough to be refused. None is taken for
        // dark glasses.
        let winks = read.filter { $0.path.hasSuffix("_wink.png") }, sleepy = read.filter { $0.path.hasSuffix("_sleepy.png") }
        let refusedWinks = winks.filter { [.oneEyeClosed, .eyesClosed].contains(quality.problem([$0.reading])) }.count
        let refusedSleepy = sleepy.filter { quality.problem([$0.reading]) == .eyesClosed }.count
        #expect(winks.count == 10 && refusedWinks >= 6, "\(refusedWinks) of \(winks.count) Yale winks refused")
        #expect(sleepy.count == 10 && refusedSleepy >= 8, "\(refusedSleepy) of \(sleepy.count) Yale sleepy faces refused")
        for shut in winks + sleepy {
            #expect(quality.problem([shut.reading]) != .eyesHidden, "\(shut.path): \(Self.describe(shut.reading))")
        }
        let open = read.filter { !$0.path.hasSuffix("_wink.png") && !$0.path.hasSuffix("_sleepy.png") && manifest[key($0.path)] == nil }
        #expect(open.count >= 180)
        var refusedOpen: [String] = []
        for o in open {
            let problem = quality.problem([o.reading])
            if problem == .oneEyeClosed || problem == .eyesHidden || problem == .eyesClosed {
                refusedOpen.append("\(o.path.split(separator: "/").suffix(2).joined(separator: "/")): \(problem!) \(Self.describe(o.reading))")
            }
        }
        #expect(refusedOpen.isEmpty, "open eyes refused: \(refusedOpen.joined(separator: "; "))")
        // The same faces (those the rules accept: large enough, looking ahead) behind dark
        // lenses, every other one with a reflection across it, read again: the mesh runs on
        // the new photo.
        var passed: [String] = [], lensed = 0
        for (i, o) in open.enumerated() where quality.problem([o.reading]) == nil {
            let dark = try Self.sunglasses(o.image, o.points, seed: UInt64(i), reflection: i % 2 == 1)
            let faces = try landmarker.faces(in: dark)
            guard faces.count == 1 else { continue }
            let again = try FaceCheck.reading(faces[0].landmarks, box: faces[0].detection.box.width, dark, iris: iris)
            lensed += 1
            if quality.problem([again]) != .eyesHidden {
                passed.append("\(o.path.split(separator: "/").suffix(2).joined(separator: "/")): \(Self.describe(again))")
            }
        }
        // Measured when the rule was chosen: 12 of 366 (3.3 %) on both kinds of lens; 5 %
        // is the bar, a rule that misses more is not the one documented.
        #expect(lensed >= 150, "\(lensed) photos with lenses drawn and a face found")
        #expect(Double(passed.count) <= 0.05 * Double(lensed), "\(passed.count) of \(lensed) with dark lenses not refused: \(passed.joined(separator: "; "))")
    }

    static func describe(_ r: FaceReading) -> String {
        func f(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "-" }
        return "EAR \(f(r.leftEAR))/\(f(r.rightEAR)) eyes c \(f(r.leftEye?.contrast))/\(f(r.rightEye?.contrast)) b \(f(r.leftEye?.brightness))/\(f(r.rightEye?.brightness))"
    }
}
