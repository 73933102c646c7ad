import Foundation
import SentioImage
import SentioTestSupport
import Testing

@Suite("Geometry")
struct GeometryTests {
    @Test("crops are views: they read the parent's pixels and copy only when written")
    func cropViews() throws {
        let image = try Image.gradient(width: 20, height: 10)
        var crop = try image.cropped(to: PixelRect(x: 3, y: 2, width: 5, height: 4))
        #expect(crop.width == 5 && crop.rowStride == image.rowStride && !crop.isContiguous)
        #expect(crop.pixel(x: 0, y: 0) == image.pixel(x: 3, y: 2))
        let before = image.pixel(x: 3, y: 2)
        crop[0, 0, 0] = 7
        #expect(image.pixel(x: 3, y: 2) == before)
        #expect(crop[0, 0, 0] == 7)
        let nested = try crop.cropped(to: PixelRect(x: 1, y: 1, width: 2, height: 2))
        #expect(nested.pixel(x: 0, y: 0) == image.pixel(x: 4, y: 3))
    }

    @Test("area resize averages covered pixels (worked by hand)")
    func areaResize() throws {
        // 4×1 → 2×1: (10 + 30)/2 = 20, (50 + 70)/2 = 60. 3×1 → 2×1: each output covers 1.5
        // inputs: (10 + 0.5·30)/1.5 = 16.67 → 17 and (0.5·30 + 50)/1.5 = 43.33 → 43.
        let row = try Image(width: 4, height: 1, format: .gray8, bytes: [10, 30, 50, 70])
        #expect(try row.resized(to: Size(width: 2, height: 1), method: .area).packedBytes == [20, 60])
        let three = try Image(width: 3, height: 1, format: .gray8, bytes: [10, 30, 50])
        #expect(try three.resized(to: Size(width: 2, height: 1), method: .area).packedBytes == [17, 43])
    }

    @Test("bilinear resize uses half-pixel centres (worked by hand)")
    func bilinearResize() throws {
        // 2 → 4: output centres map to source −0.25, 0.25, 0.75, 1.25, clamped to [0, 1]:
        // 0, 0.25·255 = 63.75 → 64, 0.75·255 = 191.25 → 191, 255.
        let row = try Image(width: 2, height: 1, format: .gray8, bytes: [0, 255])
        #expect(try row.resized(to: Size(width: 4, height: 1)).packedBytes == [0, 64, 191, 255])
    }

    @Test("the identity warp copies, and a 90° rotated crop equals the EXIF rotation")
    func warps() throws {
        let image = try Image.gradient(width: 12, height: 8)
        #expect(try image.warped(.identity, size: Size(width: 12, height: 8)) == image)
        // A rectangle over the whole image, turned by −90°, read into 8×12: the picture turned
        // 90° clockwise, which is what orientation 6 (.right) displays.
        let region = RotatedRect(center: Point(6, 4), width: 8, height: 12, rotation: -.pi / 2)
        let (turned, back) = try image.cropped(to: region, size: Size(width: 8, height: 12))
        #expect(turned == image.applying(.right))
        // The returned map sends output pixel centres to the source pixels they show.
        let p = back.apply(Point(0.5, 0.5))
        #expect(abs(p.x - 0.5) < 1e-9 && abs(p.y - 7.5) < 1e-9)
    }

    @Test("affine transforms compose and invert")
    func affine() throws {
        let m = AffineTransform.translation(3, -2).concatenating(after: .rotation(0.7)).concatenating(after: .scale(2, 0.5))
        let inv = try #require(m.inverted)
        let p = Point(1.25, -4)
        let q = inv.apply(m.apply(p))
        #expect(abs(q.x - p.x) < 1e-12 && abs(q.y - p.y) < 1e-12)
        #expect(AffineTransform.scale(0, 1).inverted == nil)
    }

    @Test("letterboxing keeps the aspect ratio, centres the picture and maps points back")
    func letterbox() throws {
        let wide = try Image(width: 200, height: 100, format: .rgb8, fill: 255)
        let (boxed, box) = try wide.letterboxed(to: Size(width: 128, height: 128))
        #expect(box.scale == 0.64 && box.padX == 0 && box.padY == 32)
        #expect(boxed.pixel(x: 64, y: 10) == .black && boxed.pixel(x: 64, y: 64) == .white && boxed.pixel(x: 64, y: 120) == .black)
        // The centre of the target is the centre of the source; the top of the content band
        // (y = 32/128) is the top of the source.
        let c = box.sourceNormalized(fromTarget: Point(0.5, 0.5))
        #expect(abs(c.x - 0.5) < 1e-12 && abs(c.y - 0.5) < 1e-12)
        #expect(abs(box.sourceNormalized(fromTarget: Point(0, 0.25)).y) < 1e-12)
    }

    @Test("integral image sums equal brute-force sums")
    func integral() throws {
        var rng = SeededRandom(seed: 42)
        var image = try Image(width: 31, height: 17, format: .rgb8)
        for y in 0 ..< 17 { for x in 0 ..< 31 { for k in 0 ..< 3 { image[x, y, k] = UInt8.random(in: 0 ... 255, using: &rng) } } }
        let table = try IntegralImage(image, channel: 1)
        for _ in 0 ..< 200 {
            let x = Int.random(in: 0 ..< 31, using: &rng), y = Int.random(in: 0 ..< 17, using: &rng)
            let r = PixelRect(x: x, y: y, width: Int.random(in: 1 ... 31 - x, using: &rng), height: Int.random(in: 1 ... 17 - y, using: &rng))
            var sum: UInt64 = 0, squares: UInt64 = 0
            for yy in r.y ..< r.y + r.height { for xx in r.x ..< r.x + r.width { let v = UInt64(image[xx, yy, 1]); sum += v; squares += v * v } }
            #expect(try table.sum(r) == sum)
            let n = Double(r.width * r.height), mean = Double(sum) / n
            #expect(abs(try table.variance(r) - (Double(squares) / n - mean * mean)) < 1e-6)
        }
    }

    @Test("drawing: rectangles, lines and points land on the pixels they should")
    func drawing() throws {
        var canvas = try Image(width: 20, height: 20, format: .rgb8)
        canvas.drawRectangle(PixelRect(x: 2, y: 3, width: 10, height: 6), color: .white)
        var lit = 0
        for y in 0 ..< 20 { for x in 0 ..< 20 where canvas.pixel(x: x, y: y) == .white { lit += 1 } }
        #expect(lit == 2 * 10 + 2 * 4)  // the outline of a 10×6 rectangle
        #expect(canvas.pixel(x: 6, y: 5) == .black)
        canvas.drawLine(from: Point(0.5, 19.5), to: Point(19.5, 0.5), color: .red)
        #expect(canvas.pixel(x: 0, y: 19) == .red && canvas.pixel(x: 19, y: 0) == .red && canvas.pixel(x: 10, y: 9) == .red)
        canvas.drawPoint(Point(15.5, 15.5), radius: 2, color: .blue)
        #expect(canvas.pixel(x: 15, y: 15) == .blue && canvas.pixel(x: 15, y: 17) == .blue && canvas.pixel(x: 18, y: 18) == .black)
        // Half-transparent colours blend: white at alpha 128 over black gives 128.
        canvas.blend(x: 0, y: 0, RGBA(255, 255, 255, 128))
        #expect(canvas.pixel(x: 0, y: 0) == RGBA(128, 128, 128))
        // Drawing far outside clips instead of crashing.
        canvas.drawLine(from: Point(-1e6, -1e6), to: Point(1e6, 1e6), color: .green, thickness: 3)
        canvas.drawPolyline([Point(-5, 2), Point(30, 2), Point(30, 40)], closed: true, color: .yellow, thickness: 2)
    }

    @Test("planar float images convert both ways and crop as views")
    func planar() throws {
        let image = try Image.gradient(width: 9, height: 7)
        let planar = PlanarImage(image, scale: 2.0 / 255, offset: -1)
        #expect(planar[8, 0, 0] == 1 && planar[0, 0, 0] == -1)
        #expect(try planar.image(scale: 2.0 / 255, offset: -1) == image)
        let hwc = planar.interleaved()
        #expect(hwc.count == 9 * 7 * 3 && hwc[(2 * 9 + 4) * 3 + 1] == planar[4, 2, 1])
        let crop = try planar.cropped(to: PixelRect(x: 2, y: 1, width: 3, height: 3))
        #expect(crop[0, 0, 2] == planar[2, 1, 2])
    }
}
