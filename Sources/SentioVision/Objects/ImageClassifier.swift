import SentioImage
import SentioNeural

/// One class of an image classifier's answer.
public struct ImageClass: Codable, Equatable, Sendable {
    /// The class's index in the model's output.
    public var index: Int
    /// Its name, from the model's label file.
    public var label: String
    /// The model's probability for it, 0…1.
    public var score: Double

    public init(index: Int, label: String, score: Double) {
        self.index = index
        self.label = label
        self.score = score
    }
}

/// Whether a named class is in a frame: its best score over the frame's tiles.
public struct ObjectSearch: Codable, Equatable, Sendable {
    public var label: String
    /// The highest probability of the class over the tiles.
    public var score: Double
    /// `score` ≥ the search's threshold.
    public var found: Bool

    public init(label: String, score: Double, found: Bool) {
        self.label = label
        self.score = score
        self.found = found
    }
}

/// What `sentio classify` prints: the top classes of the whole frame, and the search when one
/// was asked for.
public struct ClassificationObservation: Codable, Equatable, Sendable {
    public var classes: [ImageClass]
    public var find: ObjectSearch?

    public init(classes: [ImageClass], find: ObjectSearch? = nil) {
        self.classes = classes
        self.find = find
    }
}

/// Errors of ``ImageClassifier``.
public enum ClassifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model has no label file, or its labels do not match its outputs.
    case labels(String)
    /// No class has this name; a few that come close are named.
    case unknownLabel(String, suggestions: [String])
    /// The model's input is not one RGB image.
    case unsupportedModel(String)

    public var description: String {
        switch self {
        case let .labels(why): "labels: \(why)"
        case let .unknownLabel(name, suggestions):
            "no class is called '\(name)'" + (suggestions.isEmpty ? "" : "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: ", ") + "?")
        case let .unsupportedModel(why): "unsupported classifier: \(why)"
        }
    }
}

/// Core ML's image classification for Linux: an ImageNet classifier (by default EfficientNet-
/// Lite0, int8, labels from the model's metadata) run on a frame, and a "find this object"
/// helper that looks for one class in the frame's centre and tiles.
///
/// A classifier gives no boxes, so a small object in a wide frame weighs little in the whole
/// frame's answer. ``find(_:in:)`` therefore also classifies the centre square and the four
/// squares of 60 % of the short side at the centre square's corners (each an object that
/// fills a fifth to a third of a phone frame), and takes the class's best probability; the
/// threshold (``defaultThreshold``) was chosen on the fixtures' fruit photos (docs/objects.md).
public final class ImageClassifier {
    private let interpreter: Interpreter
    public let labels: [String]
    private let inputSize: (width: Int, height: Int)
    private let inputType: ElementType

    /// The probability above which ``find(_:in:)`` says the class is there.
    public static let defaultThreshold = 0.15

    /// The classifier `model` from `store` (shared), run on `pool`.
    public init(store: ModelStore = ModelStore(), model name: String = "efficientnet_lite0", pool: ThreadPool = .serial) throws {
        let path = try store.path(of: name)
        let model = try store.model(name)
        guard let labels = try TFLiteAssociatedFiles.labels(in: MappedFile(path: path)) else {
            throw ClassifierError.labels("\(name) has no label file in its metadata")
        }
        interpreter = Interpreter(model: model, pool: pool)
        let input = interpreter.inputShape(0), output = interpreter.outputShape(0)
        guard input.count == 4, input[0] == 1, input[3] == 3 else { throw ClassifierError.unsupportedModel("input shape \(input)") }
        guard output.last == labels.count else {
            throw ClassifierError.labels("\(labels.count) labels for \(output.last ?? 0) outputs")
        }
        self.labels = labels
        inputSize = (input[2], input[1])
        inputType = interpreter.inputType(0)
    }

    /// The class index of `label` (case and surrounding spaces ignored).
    public func index(of label: String) throws -> Int {
        let wanted = label.trimmingCharacters(in: .whitespaces).lowercased()
        if let i = labels.firstIndex(where: { $0.lowercased() == wanted }) { return i }
        let close = labels.filter { $0.lowercased().contains(wanted) || wanted.contains($0.lowercased()) }.prefix(5)
        throw ClassifierError.unknownLabel(label, suggestions: Array(close))
    }

    /// The probabilities of every class for `image` (resized to the model's input, aspect not
    /// kept, as the model was trained).
    public func probabilities(_ image: Image) throws -> [Double] {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        // Area averaging when shrinking by more than 2× (bilinear would alias), else bilinear.
        let shrink = max(Double(rgb.width) / Double(inputSize.width), Double(rgb.height) / Double(inputSize.height))
        let resized = try rgb.resized(to: Size(width: inputSize.width, height: inputSize.height), method: shrink > 2 ? .area : .bilinear)
        let pixels = resized.packedBytes
        switch inputType {
        case .uint8: try interpreter.setInput(0, bytes: pixels)
        case .int8: try interpreter.setInput(0, bytes: pixels.map { $0 ^ 0x80 })
        default: try interpreter.setInput(0, pixels.map { Float($0) / 255 })
        }
        try interpreter.run()
        return interpreter.output(0).map(Double.init)
    }

    /// The `top` most probable classes of `image`.
    public func classify(_ image: Image, top: Int = 5) throws -> [ImageClass] {
        ranked(try probabilities(image), top: top)
    }

    private func ranked(_ p: [Double], top: Int) -> [ImageClass] {
        p.indices.sorted { (p[$0], -$0) > (p[$1], -$1) }.prefix(max(0, top)).map {
            ImageClass(index: $0, label: labels[$0], score: p[$0])
        }
    }

    /// The squares ``find(_:in:)`` classifies besides the whole frame.
    public static func tiles(width: Int, height: Int) -> [PixelRect] {
        let side = min(width, height)
        let centre = PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
        let small = max(1, side * 3 / 5)
        var tiles = [centre]
        for (fx, fy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            tiles.append(PixelRect(x: centre.x + fx * (side - small), y: centre.y + fy * (side - small), width: small, height: small))
        }
        return tiles
    }

    /// Whether `label` is in `image`: its best probability over the whole frame and its tiles.
    public func find(_ label: String, in image: Image, threshold: Double = ImageClassifier.defaultThreshold) throws -> ObjectSearch {
        try observe(image, top: 0, find: label, threshold: threshold).find!
    }

    /// The top classes of `image` and, with `find`, the search for that class: the whole
    /// frame is classified once for both.
    public func observe(_ image: Image, top: Int = 5, find label: String? = nil,
                        threshold: Double = ImageClassifier.defaultThreshold) throws -> ClassificationObservation {
        let whole = try probabilities(image)
        guard let label else { return ClassificationObservation(classes: ranked(whole, top: top)) }
        let i = try index(of: label)
        var best = whole[i]
        for tile in ImageClassifier.tiles(width: image.width, height: image.height) where tile.width >= 16 {
            best = max(best, try probabilities(try image.cropped(to: tile))[i])
        }
        return ClassificationObservation(classes: ranked(whole, top: top), find: ObjectSearch(label: labels[i], score: best, found: best >= threshold))
    }
}
