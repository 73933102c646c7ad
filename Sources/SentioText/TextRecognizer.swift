import Foundation
import CTesseract
import SentioImage

/// Errors of text recognition.
public enum TextError: Error, Sendable, Equatable, CustomStringConvertible {
    case engineUnavailable(String)
    /// The recognizer's ``TextRecognizer/deadline`` passed (before or during a recognition).
    case deadlinePassed

    public var description: String {
        switch self {
        case let .engineUnavailable(why): "Tesseract could not start: \(why) (make test and make run install libtesseract-dev and tesseract-ocr-eng)"
        case .deadlinePassed: "text recognition ran past its deadline and was stopped"
        }
    }
}

/// One recognised piece of text.
public struct RecognizedText: Sendable, Equatable {
    public var text: String
    /// Tesseract's mean word confidence, 0–100.
    public var confidence: Double
}

/// Text recognition through Tesseract's C API. One recognizer per thread (Tesseract's engine
/// keeps state between calls).
public final class TextRecognizer {
    private let api: OpaquePointer

    /// When recognition must stop: a call after it throws ``TextError/deadlinePassed`` at once,
    /// and a call under way is stopped by Tesseract's own monitor at it (Tesseract checks
    /// between words). Nil: no limit. A server sets its request's deadline here, so that no
    /// screenshot holds a compute thread without bound (issue 34, finding 1).
    public var deadline: ContinuousClock.Instant?

    /// How the image is laid out (Tesseract's page segmentation modes).
    public enum Layout: Int32, Sendable {
        case singleLine = 7
        case singleWord = 8
        case sparse = 11
    }

    /// Starts Tesseract with `language` (default English) from its installed data.
    public init(language: String = "eng") throws {
        guard let api = TessBaseAPICreate() else { throw TextError.engineUnavailable("no engine") }
        guard TessBaseAPIInit3(api, nil, language) == 0 else {
            TessBaseAPIDelete(api)
            throw TextError.engineUnavailable("no '\(language)' language data")
        }
        self.api = api
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// The text in `image` (any format; recognised in gray), limited to `characters` when given.
    public func recognize(_ image: Image, layout: Layout = .singleLine, characters: String? = nil) throws -> RecognizedText {
        let left = try remainingMilliseconds()
        let gray = image.format == .gray8 ? image.compacted() : image.converted(to: .gray8)
        TessBaseAPISetPageSegMode(api, TessPageSegMode(UInt32(layout.rawValue)))
        TessBaseAPISetVariable(api, "tessedit_char_whitelist", characters ?? "")
        gray.withUnsafeBytes { bytes in
            TessBaseAPISetImage(api, bytes.baseAddress, Int32(gray.width), Int32(gray.height), 1, Int32(gray.rowStride))
        }
        // Screens are rendered at about 160 dpi; tell Tesseract so it sizes its glyph models.
        TessBaseAPISetSourceResolution(api, 160)
        if let left, let deadline {
            // Recognize under a monitor that stops at the deadline; the text is then read from
            // what was recognized (GetUTF8Text does not recognize again).
            guard let monitor = TessMonitorCreate() else { throw TextError.engineUnavailable("no monitor") }
            defer { TessMonitorDelete(monitor) }
            TessMonitorSetDeadlineMSecs(monitor, left)
            let status = TessBaseAPIRecognize(api, monitor)
            if ContinuousClock.now >= deadline { throw TextError.deadlinePassed }
            guard status == 0 else { return RecognizedText(text: "", confidence: 0) }
        }
        guard let raw = TessBaseAPIGetUTF8Text(api) else { return RecognizedText(text: "", confidence: 0) }
        defer { TessDeleteText(raw) }
        let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
        return RecognizedText(text: text, confidence: Double(TessBaseAPIMeanTextConf(api)))
    }

    /// The milliseconds left before the deadline (nil: no deadline), at least 1; throws when
    /// none are left.
    private func remainingMilliseconds() throws -> Int32? {
        guard let deadline else { return nil }
        let left = deadline - .now
        guard left > .zero else { throw TextError.deadlinePassed }
        return Int32(min(max((left / .milliseconds(1)).rounded(.up), 1), Double(Int32.max)))
    }
}
