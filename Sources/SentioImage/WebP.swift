import CWebP

/// WebP through libwebp: lossy (VP8) and lossless (VP8L) files, with or without alpha, and the
/// first frame of animated files (composited on a transparent canvas, as a browser shows it
/// before it starts playing). Unlike libpng and libjpeg, libwebp reports errors by return value,
/// so Swift calls it directly rather than through CSentioCodecs.
public enum WebP {
    /// Decodes a WebP; animated files give their first frame.
    public static func decode(_ bytes: [UInt8], source: String = "image", options: DecodeOptions = DecodeOptions()) throws -> Image {
        let features = try self.features(bytes, source: source)
        let width = Int(features.width), height = Int(features.height)
        // libwebp would allocate its own buffers (a full ARGB plane for lossless, two canvases
        // for animations) as soon as it is asked to decode; check the limit first.
        try ImageIO.checkLimits(width: width, height: height, options: options)
        let native: PixelFormat = features.has_alpha != 0 ? .rgba8 : .rgb8
        // WebP stores colour only; gray is made from the decoded RGB, as for colour PNGs.
        let wanted = options.format ?? native
        let decoded = wanted == .gray8 ? native : wanted
        let image = features.has_animation != 0
            ? try firstFrame(bytes, source: source, width: width, height: height, format: decoded)
            : try still(bytes, source: source, width: width, height: height, format: decoded)
        return image.converted(to: wanted)
    }

    /// The header of a WebP: canvas size, alpha, lossy or lossless, animation. Only the
    /// container and bitstream headers are read.
    public static func info(_ bytes: [UInt8], source: String = "image") throws -> ImageFileInfo {
        let features = try self.features(bytes, source: source)
        let alpha = features.has_alpha != 0
        // An animation's frames can mix lossy and lossless; libwebp then says neither.
        let lossless: Bool? = switch features.format {
        case 1: false
        case 2: true
        default: nil
        }
        return ImageFileInfo(format: .webp, storedWidth: Int(features.width), storedHeight: Int(features.height),
                             channels: alpha ? 4 : 3, colorModel: alpha ? "rgba" : "rgb", bitDepth: 8,
                             progressive: false, orientation: .up, lossless: lossless,
                             animated: features.has_animation != 0)
    }

    /// Encodes `image`: lossy at `quality` (0–100, as cwebp's `-q`), or lossless (`quality`
    /// ignored; cwebp's default effort), keeping alpha when the image has it. Lossless output
    /// keeps the colour under fully transparent pixels too (cwebp's `-exact`), so it decodes to
    /// exactly the pixels given. Gray images are stored as RGB (WebP has no gray).
    public static func encode(_ image: Image, quality: Int = 90, lossless: Bool = false) throws -> [UInt8] {
        guard (0 ... 100).contains(quality) else { throw ImageError.invalidArgument("WebP quality \(quality) is not in 0…100") }
        // WebP's headers hold 14-bit sizes.
        guard image.width <= Int(WEBP_MAX_DIMENSION), image.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImageError.encodeFailed(format: .webp, detail: "WebP is limited to \(WEBP_MAX_DIMENSION) pixels a side")
        }
        let source = image.format == .gray8 ? image.converted(to: .rgb8) : image
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw ImageError.encodeFailed(format: .webp, detail: "libwebp version mismatch") }
        if lossless {
            _ = WebPConfigLosslessPreset(&config, 6)  // method 4, quality 75: cwebp -lossless
            config.exact = 1
        } else {
            config.quality = Float(quality)
        }
        guard WebPValidateConfig(&config) != 0 else { throw ImageError.encodeFailed(format: .webp, detail: "invalid configuration") }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw ImageError.encodeFailed(format: .webp, detail: "libwebp version mismatch") }
        picture.width = Int32(source.width)
        picture.height = Int32(source.height)
        picture.use_argb = lossless ? 1 : 0
        defer { WebPPictureFree(&picture) }
        let imported = source.withUnsafeBytes { pixels in
            source.channels == 4
                ? WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(source.rowStride))
                : WebPPictureImportRGB(&picture, pixels.baseAddress, Int32(source.rowStride))
        }
        guard imported != 0 else { throw ImageError.encodeFailed(format: .webp, detail: encodeMessage(picture.error_code)) }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let status = withUnsafeMutablePointer(to: &writer) { sink in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(sink)
            return WebPEncode(&config, &picture)
        }
        guard status != 0, let memory = writer.mem else {
            throw ImageError.encodeFailed(format: .webp, detail: encodeMessage(picture.error_code))
        }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }

    /// An animated WebP of `frames` (all the size of the first), each shown for `milliseconds`,
    /// looping forever; each frame covers the whole canvas. For tests and debugging: it is how
    /// Sentio makes the animated files it decodes, without libwebpmux.
    public static func encodeAnimation(_ frames: [Image], milliseconds: Int = 100, quality: Int = 90,
                                       lossless: Bool = false) throws -> [UInt8] {
        guard let first = frames.first else { throw ImageError.invalidArgument("an animation needs at least one frame") }
        guard frames.allSatisfy({ $0.width == first.width && $0.height == first.height }) else {
            throw ImageError.invalidArgument("every frame of an animation must be \(first.width)×\(first.height)")
        }
        guard (0 ..< 1 << 24).contains(milliseconds) else {
            throw ImageError.invalidArgument("frame duration \(milliseconds) ms does not fit WebP's 24 bits")
        }
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0 ..< bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let alpha = frames.contains { $0.format == .rgba8 }
        var body = chunk("VP8X", [alpha ? 0x12 : 0x02, 0, 0, 0] + le(first.width - 1, 3) + le(first.height - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0] + le(0, 2))  // transparent background, loop forever
        for frame in frames {
            // A still file's bitstream chunks (ALPH and VP8, or VP8L) are what a frame holds.
            let still = try encode(frame, quality: quality, lossless: lossless)
            var bitstream: [UInt8] = []
            var at = 12
            while at + 8 <= still.count {
                let size = still[at + 4 ..< at + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
                let end = min(still.count, at + 8 + size + size % 2)
                let fourCC = String(decoding: still[at ..< at + 4], as: UTF8.self)
                if ["ALPH", "VP8 ", "VP8L"].contains(fourCC) { bitstream += still[at ..< end] }
                at = end
            }
            // Offsets 0, 0; full size; duration; no blending, no disposal.
            body += chunk("ANMF", le(0, 3) + le(0, 3) + le(first.width - 1, 3) + le(first.height - 1, 3)
                                  + le(milliseconds, 3) + [0x02] + bitstream)
        }
        return Array("RIFF".utf8) + le(body.count + 4, 4) + Array("WEBP".utf8) + body
    }

    /// What the headers say; errors for bytes that are no WebP or whose headers are damaged.
    private static func features(_ bytes: [UInt8], source: String) throws -> WebPBitstreamFeatures {
        guard ImageFileFormat.sniff(bytes) == .webp else {
            throw ImageError.corrupt(source: source, format: .webp, detail: "no RIFF…WEBP header")
        }
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw ImageError.corrupt(source: source, format: .webp, detail: decodeMessage(status)) }
        guard features.width > 0, features.height > 0 else {
            throw ImageError.invalidDimensions(width: Int(features.width), height: Int(features.height))
        }
        return features
    }

    /// A still file decoded straight into the image's storage.
    private static func still(_ bytes: [UInt8], source: String, width: Int, height: Int, format: PixelFormat) throws -> Image {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError.corrupt(source: source, format: .webp, detail: "libwebp version mismatch")
        }
        var status = VP8_STATUS_OK
        let image = Image(uninitializedWidth: width, height: height, format: format) { out in
            config.output.colorspace = format == .rgba8 ? MODE_RGBA : MODE_RGB
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(width * format.channels)
            config.output.u.RGBA.size = out.count
            status = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        }
        WebPFreeDecBuffer(&config.output)  // frees nothing it did not allocate (external memory)
        guard status == VP8_STATUS_OK else { throw ImageError.corrupt(source: source, format: .webp, detail: decodeMessage(status)) }
        return image
    }

    /// The first frame of an animation, as the demuxer's decoder composites it (RGBA canvas).
    private static func firstFrame(_ bytes: [UInt8], source: String, width: Int, height: Int, format: PixelFormat) throws -> Image {
        try bytes.withUnsafeBufferPointer { data in
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else {
                throw ImageError.corrupt(source: source, format: .webp, detail: "libwebp version mismatch")
            }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            var webpData = WebPData(bytes: data.baseAddress, size: data.count)
            guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
                throw ImageError.corrupt(source: source, format: .webp, detail: "damaged or truncated animation")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == width,
                  Int(info.canvas_height) == height, info.frame_count > 0
            else { throw ImageError.corrupt(source: source, format: .webp, detail: "animation without frames or with two canvas sizes") }
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw ImageError.corrupt(source: source, format: .webp, detail: "the first frame of the animation does not decode")
            }
            let rgba = UnsafeBufferPointer(start: canvas, count: width * height * 4)
            return Image(uninitializedWidth: width, height: height, format: format) { out in
                if format == .rgba8 {
                    _ = out.initialize(from: rgba)
                } else {
                    for p in 0 ..< width * height {
                        out[3 * p] = rgba[4 * p]; out[3 * p + 1] = rgba[4 * p + 1]; out[3 * p + 2] = rgba[4 * p + 2]
                    }
                }
            }
        }
    }

    private static func decodeMessage(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "damaged bitstream or container"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "a feature libwebp does not support"
        case VP8_STATUS_NOT_ENOUGH_DATA: "file ends early (truncated)"
        default: "libwebp status \(status.rawValue)"
        }
    }

    private static func encodeMessage(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad dimensions"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW: "a partition grew past 512 KiB (try a lower quality)"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "the file would exceed 4 GiB"
        default: "libwebp error \(error.rawValue)"
        }
    }
}
