import Foundation
import SentioImage
import Testing

@Suite("Bad input")
struct ErrorTests {
    @Test("truncated files are errors that name the file and the format")
    func truncated() throws {
        let image = try Image.gradient(width: 64, height: 64)
        for (format, bytes) in [(ImageFileFormat.jpeg, try JPEG.encode(image)), (.png, try PNG.encode(image)), (.webp, try WebP.encode(image))] {
            let cut = Array(bytes.prefix(bytes.count * 2 / 3))
            #expect {
                try ImageIO.decode(cut, source: "cut.\(format.rawValue)")
            } throws: { error in
                guard case let ImageError.corrupt(source, f, _) = error else { return false }
                return source == "cut.\(format.rawValue)" && f == format
            }
        }
    }

    @Test("bytes that are no image, empty files and missing paths")
    func notImages() throws {
        #expect(throws: ImageError.unknownFormat(source: "x")) { try ImageIO.decode(Array("hello".utf8), source: "x") }
        #expect(throws: ImageError.unknownFormat(source: "x")) { try ImageIO.decode([], source: "x") }
        #expect {
            try ImageIO.read("/nonexistent/photo.jpg")
        } throws: { error in
            "\(error)" == "cannot read /nonexistent/photo.jpg: No such file or directory"
        }
        #expect {
            try ImageIO.read("/tmp")
        } throws: { error in
            "\(error)".contains("not a regular file")
        }
    }

    @Test("absurd and zero dimensions are refused before pixels are allocated")
    func dimensions() throws {
        var png = try PNG.encode(Image.gradient(width: 8, height: 8))
        // IHDR width/height at bytes 16…23: claim 30000 × 30000 (900 megapixels).
        for (i, b) in [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30].enumerated() { png[16 + i] = UInt8(b) }
        #expect(throws: ImageError.tooLarge(width: 30000, height: 30000, limit: 100_000_000)) { try PNG.decode(png) }
        // Sizes past PNG's 2³¹ − 1 (the product of two would overflow Int; found by sentio-fuzz).
        for i in 16 ..< 24 { png[i] = 0xFF }
        #expect(throws: ImageError.invalidDimensions(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)) { try PNG.decode(png) }
        for i in 16 ..< 24 { png[i] = 0 }
        #expect(throws: ImageError.invalidDimensions(width: 0, height: 0)) { try PNG.decode(png) }
        // The limit is configurable.
        let small = try JPEG.encode(Image.gradient(width: 100, height: 100))
        #expect(throws: ImageError.tooLarge(width: 100, height: 100, limit: 5000)) {
            try JPEG.decode(small, options: DecodeOptions(maxPixels: 5000))
        }
        #expect(throws: ImageError.invalidDimensions(width: 0, height: 5)) { try Image(width: 0, height: 5, format: .rgb8) }
    }

    @Test("operations refuse rectangles and sizes outside the image")
    func arguments() throws {
        let image = try Image.gradient(width: 10, height: 10)
        #expect(throws: ImageError.self) { try image.cropped(to: PixelRect(x: 5, y: 5, width: 6, height: 1)) }
        #expect(throws: ImageError.self) { try image.resized(to: Size(width: 0, height: 3)) }
        #expect(throws: ImageError.self) { try IntegralImage(image).sum(PixelRect(x: -1, y: 0, width: 2, height: 2)) }
        #expect(throws: ImageError.self) { try JPEG.encode(image, quality: 0) }
    }
}
