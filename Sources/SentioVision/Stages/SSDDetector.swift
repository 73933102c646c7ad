import Foundation
import SentioImage
import SentioNeural

/// The detection half of a MediaPipe pipeline, shared by faces and palms: the whole image
/// letterboxed into a square tensor, the SSD model, decoding with anchors, weighted
/// suppression, and the boxes and keypoints projected back to the image.
final class SSDDetector {
    let interpreter: Interpreter
    var decoder: DetectionDecoder
    let size: Int
    let range: ImageToTensor.Range

    init(model: String, anchors: SSDAnchorOptions, coordinates: Int, keypoints: Int, range: ImageToTensor.Range,
         minScore: Double, store: ModelStore, pool: ThreadPool) throws {
        interpreter = Interpreter(model: try store.model(model), pool: pool)
        size = anchors.inputWidth
        let s = Double(size)
        decoder = DetectionDecoder(anchors: anchors.anchors(), coordinates: coordinates, keypoints: keypoints,
                                   scale: (s, s, s, s), minScore: minScore)
        self.range = range
    }

    /// Most detections kept from one image. No photo the applications see holds more faces or
    /// palms; the cap bounds the work that follows (a mesh per face) when a minimum score of 0
    /// makes every one of the 896 anchors a detection.
    static let maxDetections = 64

    /// Bytes of this detector's own memory (its interpreter's arena and scratch).
    var workingBytes: Int { interpreter.workingBytes }

    /// Detections in image-normalized coordinates, most confident first. `zoomOut` > 1 shows
    /// the image shrunk by that factor inside a black surround.
    func detect(_ image: Image, zoomOut: Double = 1) throws -> [Detection] {
        var rect = ImageToTensor.letterboxRect(imageWidth: image.width, imageHeight: image.height, aspect: 1)
        rect.width *= zoomOut
        rect.height *= zoomOut
        let input = try ImageToTensor.tensor(from: image, rect: rect.pixels(width: image.width, height: image.height),
                                             width: size, height: size, range: range, border: .constant(.black))
        try interpreter.setInput(0, input)
        try interpreter.run()
        let raw = decoder.decode(boxes: interpreter.output(0), scores: interpreter.output(1))
        return NonMaxSuppression.weighted(raw, threshold: 0.3, maxCount: Self.maxDetections).map { d in
            let p0 = rect.project(x: d.xMin, y: d.yMin), p1 = rect.project(x: d.xMin + d.width, y: d.yMin + d.height)
            return Detection(xMin: p0.x, yMin: p0.y, width: p1.x - p0.x, height: p1.y - p0.y,
                             keypoints: d.keypoints.map { rect.project(x: $0.x, y: $0.y) }, score: d.score)
        }
    }
}

extension NormalizedRect {
    /// MediaPipe's DetectionsToRects with rotation: the box of `detection`, turned so that the
    /// vector from keypoint `start` to keypoint `end` points at `targetAngle` (radians, 0 =
    /// rightwards, π/2 = upwards on screen).
    static func from(_ detection: Detection, rotationFrom start: Int, to end: Int, targetAngle: Double,
                     imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let a = detection.keypoints[start], b = detection.keypoints[end]
        let angle = normalizeRadians(targetAngle - atan2(-(b.y - a.y) * Double(imageHeight), (b.x - a.x) * Double(imageWidth)))
        return NormalizedRect(xCenter: detection.xMin + detection.width / 2, yCenter: detection.yMin + detection.height / 2,
                              width: detection.width, height: detection.height, rotation: angle)
    }

    /// The rectangle moved by (`x`, `y`) of its own width and height along its own rotated
    /// axes (MediaPipe's RectTransformationCalculator shift).
    func shifted(x: Double, y: Double, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var r = self
        let w = Double(imageWidth), h = Double(imageHeight)
        let c = cos(rotation), s = sin(rotation)
        r.xCenter += (w * width * x * c - h * height * y * s) / w
        r.yCenter += (w * width * x * s + h * height * y * c) / h
        return r
    }
}
