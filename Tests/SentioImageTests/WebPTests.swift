import Foundation
import SentioImage
import Testing

@Suite("WebP")
struct WebPTests {
    /// A real photo when the fixtures are there (shrunk to keep the suite quick), else a gradient.
    static func photo() throws -> Image {
        guard let fixtures = TestData.fixtures, let path = TestData.images(under: fixtures + "/faces/identity").first else {
            print("note: no fixtures; WebP tests use a synthetic gradient instead of a photo")
            return try Image.gradient(width: 120, height: 90)
        }
        return try ImageIO.read(path)
    }

    /// `image` with an alpha ramp and a fully transparent corner whose colour must survive lossless coding.
    static func withAlpha(_ image: Image) -> Image {
        var rgba = image.converted(to: .rgba8)
        for y in 0 ..< rgba.height {
            for x in 0 ..< rgba.width { rgba[x, y, 3] = x < 8 && y < 8 ? 0 : UInt8(x * 255 / max(1, rgba.width - 1)) }
        }
        return rgba
    }

    @Test("lossless encode then decode gives exactly the pixels given (RGB, RGBA with colour under transparent pixels, gray as RGB)")
    func losslessExact() throws {
        let photo = try Self.photo()
        for image in [photo, Self.withAlpha(photo), try Image.gradient(width: 33, height: 17)] {
            let bytes = try WebP.encode(image, lossless: true)
            let info = try WebP.info(bytes)
            #expect(info.lossless == true && info.format == .webp && !info.animated)
            #expect(info.channels == image.channels && info.colorModel == (image.channels == 4 ? "rgba" : "rgb"))
            let back = try WebP.decode(bytes)
            #expect(back.format == image.format)
            #expect(back.packedBytes == image.packedBytes)
        }
        let gray = photo.converted(to: .gray8)
        let grayBytes = try WebP.encode(gray, lossless: true)
        #expect(try WebP.decode(grayBytes).packedBytes == gray.converted(to: .rgb8).packedBytes)
        #expect(try WebP.decode(grayBytes, options: DecodeOptions(format: .gray8)).packedBytes == gray.packedBytes)
    }

    // Tolerances from libwebp 1.2.4 on the first identity fixture (250×250) and the gradient,
    // with room for other versions: quality 90 gave a MAD of 1.40 and 1.13, quality 30 3.57 and 3.18.
    @Test("lossy encode then decode stays within a mean absolute difference of 2.5 (q90) and 6 (q30)")
    func lossyClose() throws {
        let photo = try Self.photo()
        for image in [photo, try Image.gradient(width: 64, height: 48)] {
            let fine = try WebP.encode(image, quality: 90)
            let coarse = try WebP.encode(image, quality: 30)
            #expect(try WebP.info(fine).lossless == false)
            #expect(coarse.count < fine.count)
            let fineBack = try WebP.decode(fine), coarseBack = try WebP.decode(coarse)
            #expect(fineBack.format == .rgb8 && fineBack.width == image.width && fineBack.height == image.height)
            print("webp lossy \(image.width)×\(image.height): q90 \(fine.count) bytes MAD \(fineBack.meanAbsoluteDifference(image)), "
                + "q30 \(coarse.count) bytes MAD \(coarseBack.meanAbsoluteDifference(image))")
            #expect(fineBack.meanAbsoluteDifference(image) < 2.5)
            #expect(coarseBack.meanAbsoluteDifference(image) < 6)
        }
    }

    @Test("lossy files with alpha decode to RGBA: alpha exact (stored losslessly), colour close where opaque")
    func lossyAlpha() throws {
        let rgba = Self.withAlpha(try Self.photo())
        let bytes = try WebP.encode(rgba, quality: 90)
        let info = try WebP.info(bytes)
        #expect(info.lossless == false && info.channels == 4)
        let back = try WebP.decode(bytes)
        #expect(back.format == .rgba8)
        var alphaExact = true, colourError = 0, opaque = 0
        for y in 0 ..< rgba.height {
            for x in 0 ..< rgba.width {
                if back[x, y, 3] != rgba[x, y, 3] { alphaExact = false }
                if rgba[x, y, 3] > 128 {
                    for k in 0 ..< 3 { colourError += abs(Int(back[x, y, k]) - Int(rgba[x, y, k])) }
                    opaque += 3
                }
            }
        }
        #expect(alphaExact)
        #expect(Double(colourError) / Double(opaque) < 2.5)
        // Asked for RGB, alpha is dropped (no background), as for PNG.
        let rgb = try WebP.decode(bytes, options: DecodeOptions(format: .rgb8))
        #expect(rgb.packedBytes == back.converted(to: .rgb8).packedBytes)
    }

    @Test("WebP bytes under a .jpg name are read by their content, through ImageIO and the header-only info")
    func chosenByContent() throws {
        let photo = try Self.photo()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-webp-named-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileIO.write(WebP.encode(photo, lossless: true), to: path)
        let info = try ImageIO.info(path)
        #expect(info.format == .webp && info.width == photo.width && info.height == photo.height && info.orientation == .up)
        #expect(try ImageIO.read(path).packedBytes == photo.packedBytes)
        // Writing goes by the name asked for.
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-webp-out-\(getpid()).webp").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try ImageIO.write(photo, to: out, quality: 80)
        #expect(try ImageIO.info(out).lossless == false)
        try ImageIO.write(photo, to: out, lossless: true)
        #expect(try ImageIO.read(out).packedBytes == photo.packedBytes)
    }

    @Test("the pixel format asked for: gray by Rec. 601 luma, RGBA with opaque alpha")
    func formats() throws {
        let image = try Image.gradient(width: 40, height: 30)
        let bytes = try WebP.encode(image, lossless: true)
        #expect(try WebP.decode(bytes, options: DecodeOptions(format: .gray8)).packedBytes == image.converted(to: .gray8).packedBytes)
        #expect(try WebP.decode(bytes, options: DecodeOptions(format: .rgba8)).packedBytes == image.converted(to: .rgba8).packedBytes)
    }

    @Test("animated files: the header says so, decoding gives the first frame; truncated ones are typed errors")
    func animated() throws {
        let first = try Image.gradient(width: 48, height: 32)
        var second = first
        for y in 0 ..< 32 { for x in 0 ..< 48 { second[x, y, 0] = 255 - first[x, y, 0] } }
        for frames in [[first, second], [Self.withAlpha(first), Self.withAlpha(second)]] {
            let bytes = try WebP.encodeAnimation(frames, lossless: true)
            let info = try ImageIO.info(bytes)
            #expect(info.format == .webp && info.animated && info.lossless == nil)
            #expect(info.width == 48 && info.height == 32 && info.channels == frames[0].channels)
            let decoded = try ImageIO.decode(bytes)
            #expect(decoded.format == frames[0].format)
            #expect(decoded.packedBytes == frames[0].packedBytes)
            #expect(try ImageIO.decode(bytes, options: DecodeOptions(format: .rgb8)).packedBytes == frames[0].converted(to: .rgb8).packedBytes)
            #expect(throws: ImageError.tooLarge(width: 48, height: 32, limit: 1000)) {
                try ImageIO.decode(bytes, options: DecodeOptions(maxPixels: 1000))
            }
            for cut in stride(from: 12, to: bytes.count, by: 7) {
                #expect(throws: ImageError.self) { try ImageIO.decode(Array(bytes.prefix(cut))) }
            }
        }
        // Lossy frames decode too, close to the first.
        let lossy = try ImageIO.decode(WebP.encodeAnimation([first, second], quality: 90))
        #expect(lossy.meanAbsoluteDifference(first) < 2.5)
    }

    @Test("every truncation and damaged header is a typed error that names the file and WebP, never a crash")
    func damaged() throws {
        let image = try Image.gradient(width: 30, height: 20)
        for bytes in [try WebP.encode(image, quality: 80), try WebP.encode(image, lossless: true),
                      try WebP.encode(Self.withAlpha(image), quality: 80)] {
            for cut in 0 ..< bytes.count {
                do {
                    _ = try ImageIO.decode(Array(bytes.prefix(cut)), source: "cut.webp")
                    Issue.record("a \(cut)-byte prefix of \(bytes.count) decoded")
                } catch let error as ImageError {
                    switch error {
                    case let .corrupt(source, format, _): #expect(source == "cut.webp" && format == .webp)
                    case .unknownFormat: #expect(cut < 12)
                    default: Issue.record("\(cut) bytes: \(error)")
                    }
                }
            }
        }
        // The header alone is enough for info, as for the other formats.
        let bytes = try WebP.encode(image, quality: 80)
        #expect(try ImageIO.info(Array(bytes.prefix(40))).width == 30)
        // A RIFF file that is not WebP (a WAV) is no image at all.
        let wav = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 28)
        #expect(throws: ImageError.unknownFormat(source: "x.wav")) { try ImageIO.decode(wav, source: "x.wav") }
        #expect(ImageFileFormat.sniff(bytes) == .webp && ImageFileFormat(pathExtension: "A.WEBP") == .webp)
    }

    @Test("absurd sizes are refused before libwebp allocates anything")
    func limits() throws {
        var lossless = try WebP.encode(Image.gradient(width: 30, height: 20), lossless: true)
        // VP8L: the signature byte 0x2F at 20, then 14 bits of width − 1 and 14 of height − 1.
        #expect(lossless[20] == 0x2F)
        lossless[21] = 0xFF; lossless[22] = 0xFF; lossless[23] = 0xFF; lossless[24] |= 0x0F
        #expect(throws: ImageError.tooLarge(width: 16384, height: 16384, limit: 100_000_000)) { try WebP.decode(lossless) }
        let small = try WebP.encode(Image.gradient(width: 100, height: 100), quality: 80)
        #expect(throws: ImageError.tooLarge(width: 100, height: 100, limit: 5000)) {
            try WebP.decode(small, options: DecodeOptions(maxPixels: 5000))
        }
        // An animation's canvas (VP8X: width − 1 and height − 1 in 24 bits at 24 and 27): 20000 × 20000.
        var animation = try WebP.encodeAnimation([Image.gradient(width: 8, height: 8)], lossless: true)
        #expect(Array(animation[12 ..< 16]) == Array("VP8X".utf8))
        for (i, b) in [0x1F, 0x4E, 0, 0x1F, 0x4E, 0].enumerated() { animation[24 + i] = UInt8(b) }
        #expect(throws: ImageError.tooLarge(width: 20000, height: 20000, limit: 100_000_000)) { try WebP.decode(animation) }
        #expect(throws: ImageError.self) { try WebP.encode(Image.gradient(width: 4, height: 4), quality: 101) }
        #expect(throws: ImageError.self) { try WebP.encode(Image(width: 16384, height: 1, format: .rgb8)) }
    }

    @Test("decodes a cwebp file exactly as dwebp does, and dwebp reads Sentio's files as Sentio does")
    func matchesLibwebpTools() throws {
        let tools = ["/usr/bin/cwebp", "/usr/bin/dwebp"]
        for tool in tools where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: make test (scripts/install-deps) installs Debian's webp package")
            return
        }
        let photo = try Self.photo()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-webp-tools-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let png = directory + "/photo.png"
        try FileIO.write(PNG.encode(photo), to: png)

        // cwebp's lossy and lossless files, decoded by dwebp to PPM and by Sentio.
        for (name, flags) in [("lossy", ["-q", "75"]), ("lossless", ["-lossless", "-exact"])] {
            let webp = directory + "/cwebp-\(name).webp"
            try run(tools[0], flags + ["-quiet", png, "-o", webp])
            let ours = try ImageIO.read(webp)
            #expect(try ImageIO.info(webp).lossless == (name == "lossless"))
            #expect(ours.packedBytes == (try dwebp(webp, in: directory)).packedBytes, "\(name): Sentio and dwebp differ")
            if name == "lossless" { #expect(ours.packedBytes == photo.packedBytes) }
        }
        // Sentio's own lossy file, read by dwebp.
        let ourFile = directory + "/sentio.webp"
        try ImageIO.write(photo, to: ourFile, quality: 75)
        #expect(try ImageIO.read(ourFile).packedBytes == (try dwebp(ourFile, in: directory)).packedBytes)
    }

    private func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) \(arguments.joined(separator: " ")) failed")
    }

    /// dwebp's decoding of `path`, through a PPM.
    private func dwebp(_ path: String, in directory: String) throws -> Image {
        let ppm = directory + "/dwebp.ppm"
        try run("/usr/bin/dwebp", ["-quiet", path, "-ppm", "-o", ppm])
        return try Image(netpbm: FileIO.read(ppm))
    }
}
