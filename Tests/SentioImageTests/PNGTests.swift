import Foundation
import SentioImage
import Testing

@Suite("PNG")
struct PNGTests {
    struct Expected: Decodable {
        let width: Int, height: Int, colorType: Int, bitDepth: Int, interlaced: Bool
        let rgba: [Int]
    }

    static let suite: [String: Expected] = {
        let data = FileManager.default.contents(atPath: TestData.local("pngsuite/expected.json")) ?? Data()
        return (try? JSONDecoder().decode([String: Expected].self, from: data)) ?? [:]
    }()

    @Test("every colour type, bit depth and interlace decodes to the values the spec gives",
          arguments: PNGTests.suite.keys.sorted())
    func colourTypes(name: String) throws {
        let expected = try #require(Self.suite[name])
        let path = TestData.local("pngsuite/" + name)
        let info = try ImageIO.info(path)
        #expect(info.storedWidth == expected.width && info.storedHeight == expected.height)
        #expect(info.bitDepth == expected.bitDepth)
        #expect(info.progressive == expected.interlaced)
        let image = try ImageIO.read(path, options: DecodeOptions(format: .rgba8))
        let got = image.packedBytes.map(Int.init)
        #expect(got.count == expected.rgba.count)
        let worst = zip(got, expected.rgba).map { abs($0 - $1) }.max() ?? 99
        #expect(worst == 0, "largest difference \(worst) in \(name)")
    }

    @Test("natural formats: gray stays gray, palette with tRNS gets alpha")
    func naturalFormats() throws {
        #expect(try ImageIO.read(TestData.local("pngsuite/type0_depth8_plain.png")).format == .gray8)
        #expect(try ImageIO.read(TestData.local("pngsuite/type2_depth16_plain.png")).format == .rgb8)
        #expect(try ImageIO.read(TestData.local("pngsuite/type3_depth4_adam7.png")).format == .rgba8)
        #expect(try ImageIO.read(TestData.local("pngsuite/type4_depth8_plain.png")).format == .rgba8)
    }

    @Test("encode then decode is lossless", arguments: PixelFormat.allCases)
    func roundTrip(format: PixelFormat) throws {
        let image = try Image.gradient(width: 37, height: 23, format: format)
        let decoded = try PNG.decode(PNG.encode(image))
        #expect(decoded == image)
    }

    @Test("a cropped view encodes its own pixels, not its parent's")
    func cropEncodes() throws {
        let image = try Image.gradient(width: 40, height: 30)
        let crop = try image.cropped(to: PixelRect(x: 5, y: 7, width: 11, height: 13))
        #expect(try PNG.decode(PNG.encode(crop)) == crop.compacted())
        #expect(crop[0, 0, 0] == image[5, 7, 0])
    }
}
