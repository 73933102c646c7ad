import IVScanner
import SentioImage
import Testing

/// The appraisal's bars drawn by hand the way the game draws them (measured on a 2026 iPhone
/// screenshot: bars from x 140 to 547 of 1179, 24 px thick, 112 px apart, orange fill
/// (244, 166, 76), red-pink (224, 126, 132) when full, gray track (226, 226, 228), white
/// dividers after every five units), then read back.
@Suite("Appraisal bars")
struct AppraisalTests {
    static func screen(_ values: [Int]) throws -> Image {
        var image = try Image(width: 1179, height: 2556, format: .rgb8, fill: 255)
        let x0 = 140, length = 408
        for (i, value) in values.enumerated() {
            let colour: [UInt8] = value == 15 ? [224, 126, 132] : [244, 166, 76]
            let fillEnd = x0 + length * value / 15
            for y in 1962 + 112 * i ..< 1986 + 112 * i {
                for x in x0 ..< x0 + length {
                    let divider = [1, 2].contains { abs(x - (x0 + length * 5 * $0 / 15)) < 3 }
                    let rgb: [UInt8] = divider ? [255, 255, 255] : x < fillEnd ? colour : [226, 226, 228]
                    for k in 0 ..< 3 { image[x, y, k] = rgb[k] }
                }
            }
        }
        return image
    }

    @Test("every value 0…15 in each bar reads back", arguments: 0 ... 15)
    func values(_ v: Int) throws {
        let bars = AppraisalBars.read(try Self.screen([v, 15 - v, (v * 7) % 16]))
        #expect(bars == AppraisalBars(attack: v, defense: 15 - v, stamina: (v * 7) % 16))
    }

    @Test("two bars, or bars of different lengths, are no appraisal")
    func notAppraisal() throws {
        var image = try Self.screen([5, 10])
        #expect(AppraisalBars.read(image) == nil)
        image = try Self.screen([5, 10, 12])
        for y in 2186 ..< 2210 { for x in 400 ..< 548 { for k in 0 ..< 3 { image[x, y, k] = 255 } } }
        #expect(AppraisalBars.read(image) == nil)
    }
}
