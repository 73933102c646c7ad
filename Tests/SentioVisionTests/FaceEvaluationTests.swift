import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// The face pipeline on the labelled real photos of the fixtures.
@Suite("Face evaluation", .serialized)
struct FaceEvaluationTests {
    @Test("a face in ≥ 98% of the identity photos, none on the negatives", .requires(fixture: "faces/identity", "faces/negatives"))
    func identityAndNegatives() throws {
        let fixtures = try Fixtures.required("faces/identity", "faces/negatives")
        let landmarker = try FaceLandmarker(threads: 1)
        let identity = VisionTestData.images(under: fixtures + "/faces/identity")
        var found = 0
        for path in identity where try !landmarker.faces(in: ImageIO.read(path)).isEmpty { found += 1 }
        let rate = Double(found) / Double(max(1, identity.count))
        print("faces found in \(found) of \(identity.count) identity photos (\(rate))")
        #expect(identity.count > 150 && rate >= 0.98)
        for path in VisionTestData.images(under: fixtures + "/faces/negatives") {
            let faces = try landmarker.faces(in: ImageIO.read(path))
            #expect(faces.isEmpty, "\(path): \(faces.count) faces")
        }
    }

    @Test("still-photo decisions on attributes.tsv: balanced accuracy ≥ 90% eyes and mouth, ≥ 85% smile", .requires(fixture: "faces/attributes.tsv"))
    func attributes() throws {
        let fixtures = try Fixtures.required("faces/attributes.tsv")
        let table = try String(contentsOfFile: fixtures + "/faces/attributes.tsv", encoding: .utf8)
        let landmarker = try FaceLandmarker(threads: 1)
        // The file has CRLF line ends.
        var rows = table.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        func column(_ name: String) -> Int { header.firstIndex(of: name)! }
        // (positives right, positives, negatives right, negatives) per attribute.
        var counts: [String: (Int, Int, Int, Int)] = ["eyes": (0, 0, 0, 0), "mouth": (0, 0, 0, 0), "smile": (0, 0, 0, 0)]
        func tally(_ key: String, positive: Bool?, decided: Bool) {
            guard let positive else { return }
            var c = counts[key]!
            if positive { c.1 += 1; c.0 += decided ? 1 : 0 } else { c.3 += 1; c.2 += decided ? 0 : 1 }
            counts[key] = c
        }
        for row in rows where row.count == header.count {
            let image = try ImageIO.read(fixtures + "/faces/" + row[0])
            let face = try landmarker.faces(in: image).first
            let s = face.map { FaceSignals($0.landmarks, imageWidth: image.width, imageHeight: image.height) }
            let eyes = row[column("eyes")], mouth = row[column("mouth")], smile = row[column("smile")]
            tally("eyes", positive: eyes == "closed" ? true : eyes == "open" ? false : nil, decided: s?.eyesClosed() ?? false)
            tally("mouth", positive: mouth.hasPrefix("open") ? true : mouth == "closed" ? false : nil,
                  decided: s?.mouthOpen(openThreshold: FaceSignals.stillMouthOpen) ?? false)
            tally("smile", positive: smile == "yes" ? true : smile == "no" ? false : nil, decided: (s?.smile ?? 0) > FaceSignals.stillSmile)
        }
        for (key, bar) in [("eyes", 0.9), ("mouth", 0.9), ("smile", 0.85)] {
            let c = counts[key]!
            let balanced = (Double(c.0) / Double(max(1, c.1)) + Double(c.2) / Double(max(1, c.3))) / 2
            print("\(key): \(c.0)/\(c.1) positives, \(c.2)/\(c.3) negatives right, balanced accuracy \(balanced)")
            #expect(c.1 > 5 && c.3 > 5 && balanced >= bar, "\(key): \(balanced)")
        }
    }
}
