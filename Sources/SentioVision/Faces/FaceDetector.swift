import Foundation
import SentioImage
import SentioNeural

/// A face found by BlazeFace: box, six keypoints and a score, normalized to the image
/// (top-left origin, as displayed).
public struct FaceDetection: Sendable, Equatable {
    /// Box (x, y of the top-left corner, width, height).
    public var box: (x: Double, y: Double, width: Double, height: Double)
    /// Right eye, left eye, nose tip, mouth centre, right ear tragion, left ear tragion (the
    /// subject's right and left).
    public var keypoints: [(x: Double, y: Double)]
    public var score: Double

    public static func == (a: FaceDetection, b: FaceDetection) -> Bool {
        a.box == b.box && a.score == b.score && a.keypoints.count == b.keypoints.count
            && zip(a.keypoints, b.keypoints).allSatisfy { $0 == $1 }
    }
}

/// Face detection with MediaPipe's BlazeFace models (short range for faces within ~2 m,
/// full range for ~5 m): letterboxed input, SSD anchors, sigmoid scores, weighted NMS.
public final class FaceDetector {
    public enum Model: String, Sendable, CaseIterable {
        case shortRange = "short"
        case fullRange = "full"

        var file: String { self == .shortRange ? "face_detection_short_range" : "face_detection_full_range_sparse" }
        var anchors: SSDAnchorOptions { self == .shortRange ? .faceShortRange : .faceFullRange }
        /// MediaPipe's own thresholds for each graph (0.5 short range, 0.6 full range). Below
        /// them, weak boxes would join the weighted suppression and move the merged box.
        public var defaultMinScore: Double { self == .shortRange ? 0.5 : 0.6 }
    }

    public let model: Model
    public var minScore: Double
    private let interpreter: Interpreter
    private let decoder: DetectionDecoder
    private let size: Int

    /// Loads the model from the store; `minScore` defaults to the model's own threshold.
    public init(model: Model = .shortRange, minScore: Double? = nil, store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        self.model = model
        let minScore = minScore ?? model.defaultMinScore
        self.minScore = minScore
        interpreter = try Interpreter(graph: ModelLoader.load(path: store.path(of: model.file)), threads: threads)
        let options = model.anchors
        size = options.inputWidth
        let s = Double(size)
        decoder = DetectionDecoder(anchors: options.anchors(), coordinates: 16, keypoints: 6, scale: (s, s, s, s), minScore: minScore)
    }

    /// The faces in `image`, most confident first.
    ///
    /// `zoomOut` > 1 shows the model the image shrunk by that factor on a black surround: a
    /// face that fills the whole frame (a tight crop) is too large for BlazeFace's anchors and
    /// is found at a smaller scale.
    public func detect(_ image: Image, zoomOut: Double = 1) throws -> [FaceDetection] {
        var rect = ImageToTensor.letterboxRect(imageWidth: image.width, imageHeight: image.height, aspect: 1)
        rect.width *= zoomOut
        rect.height *= zoomOut
        let input = try ImageToTensor.tensor(from: image, rect: rect.pixels(width: image.width, height: image.height),
                                             width: size, height: size, range: .minusOneToOne, border: .constant(.black))
        try interpreter.setInput(0, input)
        interpreter.invoke()
        var decoder = self.decoder
        decoder.minScore = minScore
        let raw = decoder.decode(boxes: interpreter.output(0), scores: interpreter.output(1))
        return NonMaxSuppression.weighted(raw, threshold: 0.3).map { d in
            // From tensor coordinates back to the image through the letterbox region.
            let p0 = rect.project(x: d.xMin, y: d.yMin), p1 = rect.project(x: d.xMin + d.width, y: d.yMin + d.height)
            return FaceDetection(box: (p0.x, p0.y, p1.x - p0.x, p1.y - p0.y),
                                 keypoints: d.keypoints.map { rect.project(x: $0.x, y: $0.y) }, score: d.score)
        }
    }
}
