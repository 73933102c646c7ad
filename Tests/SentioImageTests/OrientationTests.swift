import Foundation
import SentioImage
import Testing

@Suite("EXIF orientation")
struct OrientationTests {
    enum Side { case top, bottom, left, right }

    /// The EXIF 2.3 definition of tag 0x0112, as the specification words it: for each value,
    /// the visual side the stored 0th row lies on and the visual side the 0th column lies on.
    static let specification: [Int: (row0: Side, column0: Side)] = [
        1: (.top, .left), 2: (.top, .right), 3: (.bottom, .right), 4: (.bottom, .left),
        5: (.left, .top), 6: (.right, .top), 7: (.right, .bottom), 8: (.left, .bottom),
    ]

    /// Four flat, very different quadrants, so the corners survive JPEG compression.
    static func quadrants(width: Int, height: Int) throws -> Image {
        var image = try Image(width: width, height: height, format: .rgb8)
        let colours: [RGBA] = [RGBA(250, 20, 20), RGBA(20, 250, 20), RGBA(20, 20, 250), RGBA(250, 250, 250)]
        for y in 0 ..< height {
            for x in 0 ..< width {
                let c = colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
                image[x, y, 0] = c.r; image[x, y, 1] = c.g; image[x, y, 2] = c.b
            }
        }
        return image
    }

    @Test("all eight orientations are applied as the EXIF specification defines", arguments: 1 ... 8)
    func orientation(value: Int) throws {
        let stored = try Self.quadrants(width: 64, height: 32)
        let orientation = try #require(ImageOrientation(rawValue: value))
        let file = try JPEG.encode(stored, quality: 100, orientation: orientation)
        let info = try JPEG.info(file)
        #expect(info.orientation == orientation)
        let shown = try JPEG.decode(file)
        let rule = try #require(Self.specification[value])
        // Rows run along the top/bottom side when row 0 is on top or bottom.
        let rowsHorizontal = rule.row0 == .top || rule.row0 == .bottom
        #expect(shown.width == (rowsHorizontal ? 64 : 32) && shown.height == (rowsHorizontal ? 32 : 64))
        #expect(info.width == shown.width && info.height == shown.height)

        // Each stored corner (first/last row × first/last column) must land on the displayed
        // corner made of the sides the specification names.
        func opposite(_ s: Side) -> Side { switch s { case .top: .bottom; case .bottom: .top; case .left: .right; case .right: .left } }
        func displayed(_ a: Side, _ b: Side) -> (x: Int, y: Int) {
            let sides = [a, b]
            return (sides.contains(.left) ? 4 : shown.width - 5, sides.contains(.top) ? 4 : shown.height - 5)
        }
        for (storedY, rowSide) in [(4, rule.row0), (27, opposite(rule.row0))] {
            for (storedX, columnSide) in [(4, rule.column0), (59, opposite(rule.column0))] {
                let want = stored.pixel(x: storedX, y: storedY)
                let at = displayed(rowSide, columnSide)
                let got = shown.pixel(x: at.x, y: at.y)
                #expect(abs(Int(got.r) - Int(want.r)) < 12 && abs(Int(got.g) - Int(want.g)) < 12 && abs(Int(got.b) - Int(want.b)) < 12,
                        "orientation \(value): stored (\(storedX), \(storedY)) should show at \(at)")
            }
        }
        // --keep-orientation: the stored pixels as they are.
        let kept = try JPEG.decode(file, options: DecodeOptions(applyOrientation: false))
        #expect(kept.width == 64 && kept.height == 32)
    }

    @Test("a damaged EXIF block leaves the picture upright instead of failing")
    func damagedEXIF() {
        #expect(EXIF.orientation(inAPP1: Array("Exif\0\0MM\0*\0\0\0\u{FF}".utf8)) == nil)
        #expect(EXIF.orientation(inAPP1: []) == nil)
        var app1 = EXIF.app1(orientation: .right)
        #expect(EXIF.orientation(inAPP1: app1) == .right)
        app1[app1.count - 7] = 9  // value 9 is not an orientation
        #expect(EXIF.orientation(inAPP1: app1) == nil)
    }

    @Test("applying an orientation then its inverse gives the picture back")
    func inverses() throws {
        let image = try Image.gradient(width: 7, height: 5)
        let inverse: [ImageOrientation: ImageOrientation] = [
            .up: .up, .upMirrored: .upMirrored, .down: .down, .downMirrored: .downMirrored,
            .leftMirrored: .leftMirrored, .right: .left, .rightMirrored: .rightMirrored, .left: .right,
        ]
        for (o, inv) in inverse { #expect(image.applying(o).applying(inv) == image, "\(o)") }
    }
}
