import Foundation
import CTesseract
import SentioImage

/// Errors of text recognition.
public enum TextError: Error, Sendable, Equatable, CustomStringConvertible {
    case engineUnavailable(String)

    public var description: String {
        switch self {
        case let .engineUnavailable(why): "Tesseract could not start: \(why) (make test and make run install libtesseract-dev and tesseract-ocr-eng)"
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
    public func recognize(_ image: Image, layout: Layout = .singleLine, characters: String? = nil) -> RecognizedText {
        let gray = image.format == .gray8 ? image.compacted() : image.converted(to: .gray8)
        TessBaseAPISetPageSegMode(api, TessPageSegMode(UInt32(layout.rawValue)))
        TessBaseAPISetVariable(api, "tessedit_char_whitelist", characters ?? "")
        gray.withUnsafeBytes { bytes in
            TessBaseAPISetImage(api, bytes.baseAddress, Int32(gray.width), Int32(gray.height), 1, Int32(gray.rowStride))
        }
        // Screens are rendered at about 160 dpi; tell Tesseract so it sizes its glyph models.
        TessBaseAPISetSourceResolution(api, 160)
        guard let raw = TessBaseAPIGetUTF8Text(api) else { return RecognizedText(text: "", confidence: 0) }
        defer { TessDeleteText(raw) }
        let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
        return RecognizedText(text: text, confidence: Double(TessBaseAPIMeanTextConf(api)))
    }
}
