import ArgumentParser
import SentioImage

struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Read, inspect, convert and annotate images.",
        subcommands: [Info.self, Convert.self, Demo.self])

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Format, size, channels and EXIF orientation of an image file (from its header; no pixels decoded).")

        @Argument(help: "A PNG, JPEG or WebP file (told apart by content, not by name).") var file: String
        @Flag(help: "Print JSON (keys: format, width, height, storedWidth, storedHeight, channels, colorModel, bitDepth, progressive, lossless (absent when the file does not say), animated, orientation, orientationName).")
        var json = false
        @Option(help: "Decode the whole image N times in one process and print median/min/max ms.")
        var bench: Int?

        func run() throws {
            let bytes = try FileIO.read(file)
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                try Bench.report(bench) { _ = try ImageIO.decode(bytes, source: file) }
                return
            }
            let info = try ImageIO.info(bytes, source: file)
            if json {
                try JSONOutput.print(InfoJSON(info))
            } else {
                // PNG is always lossless and JPEG never: only WebP's coding is worth a word.
                let coding = info.format == .webp ? info.lossless.map { $0 ? ", lossless" : ", lossy" } ?? "" : ""
                print("\(file): \(info.format.rawValue.uppercased()) \(info.width)×\(info.height), "
                    + "\(info.channels) channel\(info.channels == 1 ? "" : "s") (\(info.colorModel), \(info.bitDepth)-bit"
                    + "\(info.progressive ? (info.format == .png ? ", interlaced" : ", progressive") : "")\(coding)"
                    + "\(info.animated ? ", animated: first frame decoded" : "")), "
                    + "orientation \(info.orientation)")
            }
        }
    }

    struct InfoJSON: Encodable {
        let format: String, width: Int, height: Int, storedWidth: Int, storedHeight: Int
        let channels: Int, colorModel: String, bitDepth: Int, progressive: Bool
        let lossless: Bool?, animated: Bool
        let orientation: Int, orientationName: String

        init(_ i: ImageFileInfo) {
            format = i.format.rawValue
            width = i.width
            height = i.height
            storedWidth = i.storedWidth
            storedHeight = i.storedHeight
            channels = i.channels
            colorModel = i.colorModel
            bitDepth = i.bitDepth
            progressive = i.progressive
            lossless = i.lossless
            animated = i.animated
            orientation = i.orientation.rawValue
            orientationName = i.orientation.name
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert between PNG, JPEG and WebP (by the output's extension), optionally resized.")

        @Argument(help: "Input PNG, JPEG or WebP (told apart by content, not by name).") var input: String
        @Argument(help: "Output .png, .jpg, .jpeg or .webp.") var output: String
        @Option(help: "Resize to WxH pixels.") var resize: String?
        @Option(help: "Resampling: bilinear or area (default: area when shrinking, else bilinear).")
        var method: String?
        @Flag(help: "Keep the stored pixels instead of applying the EXIF orientation.")
        var keepOrientation = false
        @Option(help: "JPEG quality, 1–100; WebP (lossy) quality, 0–100.") var quality = 92
        @Flag(help: "Write a lossless WebP (the output must end in .webp).") var lossless = false
        @Option(help: "Run the whole conversion N times in one process and print median/min/max ms.")
        var bench: Int?

        func run() throws {
            let size = try resize.map { text in
                guard let s = Size(parsing: text) else { throw ValidationError("--resize takes WxH, e.g. 640x480, not '\(text)'") }
                return s
            }
            let chosen = try method.map { name in
                guard let m = ResizeMethod(rawValue: name) else { throw ValidationError("--method is bilinear or area, not '\(name)'") }
                return m
            }
            guard ImageFileFormat(pathExtension: output) != nil else {
                throw ValidationError("the output must end in .png, .jpg, .jpeg or .webp: \(output)")
            }
            if lossless && ImageFileFormat(pathExtension: output) != .webp {
                throw ValidationError("--lossless is for .webp outputs (PNG is always lossless, JPEG never): \(output)")
            }
            let convert = {
                var image = try ImageIO.read(input, options: DecodeOptions(applyOrientation: !keepOrientation))
                if let size {
                    let shrinking = size.width * size.height < image.width * image.height
                    image = try image.resized(to: size, method: chosen ?? (shrinking ? .area : .bilinear))
                }
                try ImageIO.write(image, to: output, quality: quality, lossless: lossless)
            }
            if let bench {
                guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
                try Bench.report(bench, convert)
            } else {
                try convert()
            }
        }
    }
}
