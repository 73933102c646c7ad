import Foundation
import SentioImage
import SentioNeural

/// A face found by BlazeFace: box, six keypoints and a score, normalized to the image
/// (top-left origin, as displayed).
public struct FaceDetection: Codable, Sendable, Equatable {
    /// Box (x, y of the top-left corner, width, height).
    public var box: Box
    /// Right eye, left eye, nose tip, mouth centre, right ear tragion, left ear tragion (the
    /// subject's right and left).
    public var keypoints: [Point2]
    public var score: Double

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
    public var minScore: Double {
        get { ssd.decoder.minScore }
        set { ssd.decoder.minScore = newValue }
    }
    private let ssd: SSDDetector

    /// Takes the model from the store (shared with every other user of the store) and runs it
    /// on `threads` threads (default: the caller's alone); `minScore` defaults to the model's
    /// own threshold.
    public convenience init(model: Model = .shortRange, minScore: Double? = nil, store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(model: model, minScore: minScore, store: store, pool: ThreadPool(threads: threads ?? 1))
    }

    /// The same, run on `pool` (which other pipelines may share).
    public init(model: Model = .shortRange, minScore: Double? = nil, store: ModelStore, pool: ThreadPool) throws {
        self.model = model
        ssd = try SSDDetector(model: model.file, anchors: model.anchors, coordinates: 16, keypoints: 6, range: .minusOneToOne,
                              minScore: minScore ?? model.defaultMinScore, store: store, pool: pool)
    }

    /// Bytes of this detector's own working memory (the model's weights are shared).
    public var workingBytes: Int { ssd.workingBytes }

    /// The faces in `image`, most confident first.
    ///
    /// `zoomOut` > 1 shows the model the image shrunk by that factor on a black surround: a
    /// face that fills the whole frame (a tight crop) is too large for BlazeFace's anchors and
    /// is found at a smaller scale.
    public func detect(_ image: Image, zoomOut: Double = 1) throws -> [FaceDetection] {
        try ssd.detect(image, zoomOut: zoomOut).map {
            FaceDetection(box: Box(x: $0.xMin, y: $0.yMin, width: $0.width, height: $0.height), keypoints: $0.keypoints, score: $0.score)
        }
    }
}
