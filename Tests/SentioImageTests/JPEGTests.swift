import Foundation
import SentioImage
import SentioTestSupport
import Testing

@Suite("JPEG")
struct JPEGTests {
    @Test("baseline, progressive and grayscale encode and decode back closely")
    func variants() throws {
        let rgb = try Image.gradient(width: 64, height: 48)
        for progressive in [false, true] {
            let bytes = try JPEG.encode(rgb, quality: 95, progressive: progressive)
            let info = try JPEG.info(bytes)
            #expect(info.progressive == progressive && info.colorModel == "ycbcr" && info.channels == 3)
            let back = try JPEG.decode(bytes)
            #expect(back.format == .rgb8)
            #expect(back.meanAbsoluteDifference(rgb) < 2.5)
        }
        let gray = try Image.gradient(width: 64, height: 48, format: .gray8)
        let grayBytes = try JPEG.encode(gray, quality: 95)
        #expect(try JPEG.info(grayBytes).colorModel == "gray")
        let grayBack = try JPEG.decode(grayBytes)
        #expect(grayBack.format == .gray8)
        #expect(grayBack.meanAbsoluteDifference(gray) < 2)
        // Gray files can be asked for as RGB, and colour files as gray.
        #expect(try JPEG.decode(grayBytes, options: DecodeOptions(format: .rgb8)).format == .rgb8)
        #expect(try JPEG.decode(JPEG.encode(rgb), options: DecodeOptions(format: .gray8)).format == .gray8)
    }

    @Test("CMYK JPEGs (Adobe-inverted, as Photoshop writes them) decode to the right RGB")
    func cmyk() throws {
        // Four flat colours, given as inverted CMYK (Adobe's convention): stored value = 255 − ink.
        // Worked by hand: R = (255 − C)(255 − K)/255 with ink values C, M, Y, K.
        let inks: [(c: Int, m: Int, y: Int, k: Int, rgb: (Int, Int, Int))] = [
            (0, 0, 0, 0, (255, 255, 255)),  // no ink: white
            (255, 0, 0, 0, (0, 255, 255)),  // full cyan
            (0, 0, 0, 255, (0, 0, 0)),  // full black
            (0, 128, 255, 51, (204, 102, 0)),  // R = 255·204/255, G = 127·204/255 = 101.6, B = 0
        ]
        var stored = try Image(width: 64, height: 16, format: .rgba8)
        for (i, ink) in inks.enumerated() {
            for y in 0 ..< 16 {
                for x in i * 16 ..< (i + 1) * 16 {
                    stored[x, y, 0] = UInt8(255 - ink.c)
                    stored[x, y, 1] = UInt8(255 - ink.m)
                    stored[x, y, 2] = UInt8(255 - ink.y)
                    stored[x, y, 3] = UInt8(255 - ink.k)
                }
            }
        }
        let bytes = try JPEG.encodeCMYK(stored, quality: 100)
        let info = try JPEG.info(bytes)
        #expect(info.colorModel == "ycck" || info.colorModel == "cmyk")
        #expect(info.channels == 4)
        let rgb = try JPEG.decode(bytes)
        #expect(rgb.format == .rgb8)
        for (i, ink) in inks.enumerated() {
            let p = rgb.pixel(x: i * 16 + 8, y: 8)
            #expect(abs(Int(p.r) - ink.rgb.0) <= 3 && abs(Int(p.g) - ink.rgb.1) <= 3 && abs(Int(p.b) - ink.rgb.2) <= 3,
                    "patch \(i): got \(p), want \(ink.rgb)")
        }
    }

    @Test("decodes exactly what libjpeg-turbo's djpeg decodes", .requires(fixture: "faces"))
    func matchesDjpeg() throws {
        let fixtures = try Fixtures.required("faces")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/djpeg") else {
            Issue.record("djpeg is missing: make test installs libjpeg-turbo-progs")
            return
        }
        // A baseline colour, a progressive and a grayscale photo among the fixtures.
        var picked: [String: String] = [:]
        for path in TestData.images(under: fixtures) where path.lowercased().hasSuffix("jpg") {
            let info = try ImageIO.info(path)
            let kind = info.colorModel == "gray" ? "gray" : info.progressive ? "progressive" : "baseline"
            if picked[kind] == nil { picked[kind] = path }
            if picked.count == 3 { break }
        }
        #expect(picked.count == 3, "fixtures lack one of baseline/progressive/gray JPEGs: \(picked.keys)")
        for (kind, path) in picked {
            let ppm = FileManager.default.temporaryDirectory.appendingPathComponent("sentio-djpeg-\(kind).pnm").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/djpeg")
            process.arguments = ["-outfile", ppm, path]
            try process.run()
            process.waitUntilExit()
            let reference = try Image(netpbm: FileIO.read(ppm))
            let ours = try ImageIO.read(path, options: DecodeOptions(applyOrientation: false))
            #expect(reference.width == ours.width && reference.height == ours.height && reference.format == ours.format)
            #expect(ours.packedBytes == reference.packedBytes, "\(kind) \(path) differs from djpeg")
        }
    }
}
