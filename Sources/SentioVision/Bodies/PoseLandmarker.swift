import Foundation
import SentioImage
import SentioNeural

/// A body: 33 landmarks (MediaPipe's BlazePose order, see ``BodyJoint``).
public struct Pose: Codable, Sendable, Equatable {
    /// x, y normalized to the image, z depth on the scale of x (the hips' midpoint about 0).
    public var points: [Point3]
    /// Probability that each landmark is visible (not occluded) and present (in the frame).
    public var visibility: [Double]
    public var presence: [Double]
    /// The same landmarks in metres, origin between the hips.
    public var world: [Point3]
    /// The detection's score.
    public var score: Double
    public var region: NormalizedRect
    /// The person mask over the region (256×256, 0…1), when asked for.
    public var segmentation: [Float]?
    /// The model's two auxiliary points (hips' midpoint, body scale), for tracking.
    var alignment: [Point2] = []


    public func point(_ joint: BodyJoint) -> Point3 { points[joint.rawValue] }
}

/// MediaPipe's pose pipeline in static-image mode: `pose_detection` (sparse weights) with its
/// anchors; the region centred on the hips, sized by the detection's alignment points, turned
/// upright and scaled 1.25×; `pose_landmark_full` on a 256×256 crop; landmarks refined with the
/// heat map; the pose dropped when its presence is under 0.5.
public final class PoseLandmarker {
    private let detector: SSDDetector
    private let landmarks: Interpreter
    public var minPresence: Double

    /// 224×224 input, strides 8, 16, 32, 32, 32 → 2254 anchors.
    static let anchors = SSDAnchorOptions(inputWidth: 224, inputHeight: 224, minScale: 0.1484375, maxScale: 0.75, strides: [8, 16, 32, 32, 32])

    /// The pipeline over the models of `store` (shared), run on `threads` threads (default:
    /// the caller's alone).
    public convenience init(minScore: Double = 0.5, minPresence: Double = 0.5, store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(minScore: minScore, minPresence: minPresence, store: store, pool: ThreadPool(threads: threads ?? 1))
    }

    /// The same, every model run on `pool`.
    public init(minScore: Double = 0.5, minPresence: Double = 0.5, store: ModelStore, pool: ThreadPool) throws {
        detector = try SSDDetector(model: "pose_detection", anchors: PoseLandmarker.anchors, coordinates: 12, keypoints: 4,
                                   range: .minusOneToOne, minScore: minScore, store: store, pool: pool)
        landmarks = Interpreter(model: try store.model("pose_landmark_full"), pool: pool)
        self.minPresence = minPresence
    }

    /// Bytes of this pipeline's own working memory (the models' weights are shared).
    public var workingBytes: Int { detector.workingBytes + landmarks.workingBytes }

    /// MediaPipe's AlignmentPointsRects: centred on keypoint 0 (the hips' midpoint), twice the
    /// distance to keypoint 1 across, turned so that keypoint 0 → 1 points up; then 1.25×.
    static func region(for detection: Detection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let w = Double(imageWidth), h = Double(imageHeight)
        let a = detection.keypoints[0], b = detection.keypoints[1]
        let size = 2 * hypot((b.x - a.x) * w, (b.y - a.y) * h)
        let angle = normalizeRadians(.pi / 2 - atan2(-(b.y - a.y) * h, (b.x - a.x) * w))
        return NormalizedRect(xCenter: a.x, yCenter: a.y, width: size / w, height: size / h, rotation: angle)
            .transformed(scaleX: 1.25, scaleY: 1.25, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The most confident person in `image` (the legacy solution tracks one), or none.
    public func pose(in image: Image, segmentation: Bool = false) throws -> Pose? {
        guard let detection = try detector.detect(image).first else { return nil }
        let region = PoseLandmarker.region(for: detection, imageWidth: image.width, imageHeight: image.height)
        return try pose(in: image, region: region, score: detection.score, segmentation: segmentation)
    }

    /// The body in `region` (for tracking: the region from the last frame's landmarks), or
    /// none when the pose flag is under `minPresence`.
    public func pose(in image: Image, region: NormalizedRect, score: Double = 1, segmentation: Bool = false) throws -> Pose? {
        let size = 256
        let input = try ImageToTensor.tensor(from: image, rect: region.pixels(width: image.width, height: image.height),
                                             width: size, height: size, range: .zeroToOne, border: .replicate)
        try landmarks.setInput(0, input)
        try landmarks.run()
        // The pose flag is already a probability (the model ends in a sigmoid), thresholded as is.
        let flag = landmarks.output(1).first ?? 0
        guard Double(flag) >= minPresence else { return nil }
        let raw = landmarks.output(0), heatmap = landmarks.output(3), world = landmarks.output(4)
        func sigmoid(_ v: Float) -> Double { 1 / (1 + exp(-Double(v))) }
        var points: [Point3] = [], visibility: [Double] = [], presence: [Double] = []
        var worldPoints: [Point3] = []
        let c = cos(region.rotation), s = sin(region.rotation)
        for i in 0 ..< 33 {
            var x = Double(raw[5 * i]) / Double(size), y = Double(raw[5 * i + 1]) / Double(size)
            (x, y) = PoseLandmarker.refine(x: x, y: y, landmark: i, heatmap: heatmap)
            let p = region.project(x: x, y: y)
            points.append(Point3(x: p.x, y: p.y, z: Double(raw[5 * i + 2]) / Double(size) * region.width))
            visibility.append(sigmoid(raw[5 * i + 3]))
            presence.append(sigmoid(raw[5 * i + 4]))
            let wx = Double(world[3 * i]), wy = Double(world[3 * i + 1])
            worldPoints.append(Point3(x: c * wx - s * wy, y: s * wx + c * wy, z: Double(world[3 * i + 2])))
        }
        // The two auxiliary landmarks after the 33 (the hips' midpoint and a point that scales
        // with the body) place the next frame's region, as the detector's keypoints do.
        var alignment: [Point2] = []
        for i in 33 ..< min(35, raw.count / 5) {
            alignment.append(region.project(x: Double(raw[5 * i]) / Double(size), y: Double(raw[5 * i + 1]) / Double(size)))
        }
        return Pose(points: points, visibility: visibility, presence: presence, world: worldPoints, score: score,
                    region: region, segmentation: segmentation ? landmarks.output(2).map { Float(sigmoid($0)) } : nil,
                    alignment: alignment)
    }

    /// The region for the next frame from this frame's pose (MediaPipe's pose landmarks-to-
    /// region rule over the two auxiliary landmarks), or nil when the model gave none.
    public static func trackingRegion(from pose: Pose, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard pose.alignment.count == 2 else { return nil }
        let detection = Detection(xMin: 0, yMin: 0, width: 0, height: 0, keypoints: pose.alignment, score: pose.score)
        return region(for: detection, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// MediaPipe's heat-map refinement: the confidence-weighted mean cell of a 7×7 window of
    /// the 64×64 heat map around the landmark, when the window's peak confidence is ≥ 0.5.
    static func refine(x: Double, y: Double, landmark: Int, heatmap: [Float], side: Int = 64, channels: Int = 39) -> (Double, Double) {
        let col = Int(x * Double(side)), row = Int(y * Double(side))
        guard col >= 0, col < side, row >= 0, row < side, heatmap.count == side * side * channels else { return (x, y) }
        var sum = 0.0, wc = 0.0, wr = 0.0, peak = 0.0
        for r in max(0, row - 3) ..< min(side, row + 4) {
            for cc in max(0, col - 3) ..< min(side, col + 4) {
                let v = 1 / (1 + exp(-Double(heatmap[(r * side + cc) * channels + landmark])))
                sum += v
                peak = max(peak, v)
                wc += Double(cc) * v
                wr += Double(r) * v
            }
        }
        guard peak >= 0.5, sum > 0 else { return (x, y) }
        return (wc / Double(side) / sum, wr / Double(side) / sum)
    }
}
