import Foundation
import SentioImage
import SentioTestSupport
import Testing

@Suite("Fixtures")
struct FixtureTests {
    @Test("every image under the shared fixtures decodes, upright, at the size its header gives", .requires(fixture: "faces"))
    func everyFixtureDecodes() throws {
        let fixtures = try Fixtures.required("faces")
        let paths = TestData.images(under: fixtures)
        #expect(paths.count > 400)
        var oriented = 0
        // By content: a file's name says nothing (browsers save WebP as .jpg).
        var formats: [ImageFileFormat: Int] = [:]
        for path in paths {
            do {
                let info = try ImageIO.info(path)
                let image = try ImageIO.read(path)
                #expect(image.width == info.width && image.height == info.height, "\(path)")
                if info.orientation != .up { oriented += 1 }
                formats[info.format, default: 0] += 1
            } catch {
                Issue.record("\(path): \(error)")
            }
        }
        let tally = ImageFileFormat.allCases.map { "\(formats[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        print("fixtures: \(paths.count) images decoded (\(tally)), \(oriented) with a non-trivial EXIF orientation")
    }
}
