import Foundation
import SentioImage
import SentioNeural

/// A hand: 21 joints (MediaPipe's order, see ``HandJoint``), handedness, presence and
/// real-world coordinates.
public struct Hand: Codable, Sendable, Equatable {
    /// x, y normalized to the image (top-left origin), z relative depth on the scale of x
    /// (the wrist is about 0; negative is nearer the camera).
    public var points: [Point3]
    /// The same joints in metres, origin near the hand's centre.
    public var world: [Point3]
    /// "Left" or "Right" as MediaPipe labels it (which assumes a mirrored, selfie image).
    public var handedness: String
    /// Confidence of the handedness label.
    public var handednessScore: Double
    /// Probability that a hand is in the region.
    public var presence: Double
    /// The palm detection's score.
    public var score: Double
    /// The rotated region the landmarks were computed in.
    public var region: NormalizedRect

    public init(points: [Point3], world: [Point3], handedness: String,
                handednessScore: Double, presence: Double, score: Double, region: NormalizedRect) {
        self.points = points
        self.world = world
        self.handedness = handedness
        self.handednessScore = handednessScore
        self.presence = presence
        self.score = score
        self.region = region
    }


    /// The point of `joint`.
    public func point(_ joint: HandJoint) -> Point3 { points[joint.rawValue] }
}

/// MediaPipe's hand pipeline in static-image mode: palm detection (full or lite) with its
/// anchors and weighted suppression; each palm's region turned so the wrist-to-middle-finger
/// line points up, shifted half a palm towards the fingers and scaled 2.6×; `hand_landmark`
/// on a 224×224 crop; hands whose presence is under 0.5 dropped.
public final class HandLandmarker {
    public enum Model: String, Sendable, CaseIterable {
        case full, lite
    }

    private let palms: SSDDetector
    private let landmarks: Interpreter
    public var maxHands: Int
    public var minPresence: Double

    /// 192×192 input, strides 8, 16, 16, 16 → 2016 anchors.
    static let palmAnchors = SSDAnchorOptions(inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75, strides: [8, 16, 16, 16])

    /// The pipeline over the models of `store` (shared), run on `threads` threads (default:
    /// the caller's alone).
    public convenience init(model: Model = .full, maxHands: Int = 2, minScore: Double = 0.5, minPresence: Double = 0.5,
                            store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(model: model, maxHands: maxHands, minScore: minScore, minPresence: minPresence, store: store,
                      pool: ThreadPool(threads: threads ?? 1))
    }

    /// The same, every model run on `pool`.
    public init(model: Model = .full, maxHands: Int = 2, minScore: Double = 0.5, minPresence: Double = 0.5,
                store: ModelStore, pool: ThreadPool) throws {
        palms = try SSDDetector(model: "palm_detection_\(model.rawValue)", anchors: HandLandmarker.palmAnchors, coordinates: 18,
                                keypoints: 7, range: .zeroToOne, minScore: minScore, store: store, pool: pool)
        landmarks = Interpreter(model: try store.model("hand_landmark_\(model.rawValue)"), pool: pool)
        self.maxHands = maxHands
        self.minPresence = minPresence
    }

    /// Bytes of this pipeline's own working memory (the models' weights are shared).
    public var workingBytes: Int { palms.workingBytes + landmarks.workingBytes + (pose?.workingBytes ?? 0) }

    /// The region for the landmark model from a palm detection.
    static func region(for palm: Detection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        NormalizedRect.from(palm, rotationFrom: 0, to: 2, targetAngle: .pi / 2, imageWidth: imageWidth, imageHeight: imageHeight)
            .shifted(x: 0, y: -0.5, imageWidth: imageWidth, imageHeight: imageHeight)
            .transformed(scaleX: 2.6, scaleY: 2.6, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// Finds the body when no palm is found, to look for hands too small for palm detection.
    public var pose: PoseLandmarker?

    /// The hands in `image`. When none is found and `retry` is set, the image is searched
    /// again zoomed out 2× (a hand close to the camera is too big for the palm anchors) and,
    /// with ``pose`` set, at the wrists of the body (a hand far away is too small for them).
    public func hands(in image: Image, retry: Bool = true) throws -> [Hand] {
        var found = try hands(in: image, zoomOut: 1)
        if found.isEmpty && retry { found = try hands(in: image, zoomOut: 2) }
        if found.isEmpty && retry, let pose, let body = try pose.pose(in: image) { found = try hands(around: body, in: image) }
        return found
    }

    /// Hands at the body's wrists: each region centred between the wrist and the knuckles
    /// (the mean of the index and little-finger landmarks), turned so that wrist → knuckles
    /// points up, and sized 2.5 times the wrist-to-knuckles distance (square).
    func hands(around body: Pose, in image: Image) throws -> [Hand] {
        let w = Double(image.width), h = Double(image.height)
        var found: [Hand] = []
        for (wrist, index, little) in [(BodyJoint.leftWrist, BodyJoint.leftIndex, BodyJoint.leftPinky),
                                       (.rightWrist, .rightIndex, .rightPinky)] where body.visibility[wrist.rawValue] > 0.5 {
            let a = body.point(wrist), i = body.point(index), l = body.point(little)
            let k = ((i.x + l.x) / 2, (i.y + l.y) / 2)
            let reach = hypot((k.0 - a.x) * w, (k.1 - a.y) * h)
            guard reach > 1 else { continue }
            let angle = normalizeRadians(.pi / 2 - atan2(-(k.1 - a.y) * h, (k.0 - a.x) * w))
            let side = 2.5 * reach
            let region = NormalizedRect(xCenter: (a.x + k.0) / 2, yCenter: (a.y + k.1) / 2, width: side / w, height: side / h, rotation: angle)
            let hand = try landmarks(in: image, region: region, score: body.score)
            if hand.presence >= minPresence && found.count < maxHands { found.append(hand) }
        }
        return found
    }

    private func hands(in image: Image, zoomOut: Double) throws -> [Hand] {
        try palms.detect(image, zoomOut: zoomOut).prefix(maxHands).compactMap { palm in
            let hand = try landmarks(in: image, region: HandLandmarker.region(for: palm, imageWidth: image.width, imageHeight: image.height),
                                     score: palm.score)
            return hand.presence >= minPresence ? hand : nil
        }
    }

    /// The hand in `region` (for tracking, or a region found otherwise).
    public func landmarks(in image: Image, region: NormalizedRect, score: Double = 1) throws -> Hand {
        let size = 224
        let input = try ImageToTensor.tensor(from: image, rect: region.pixels(width: image.width, height: image.height),
                                             width: size, height: size, range: .zeroToOne, border: .replicate)
        try landmarks.setInput(0, input)
        try landmarks.run()
        let raw = landmarks.output(0), flag = landmarks.output(1), side = landmarks.output(2), world = landmarks.output(3)
        var points: [Point3] = []
        var worldPoints: [Point3] = []
        let c = cos(region.rotation), s = sin(region.rotation)
        for i in 0 ..< 21 {
            let p = region.project(x: Double(raw[3 * i]) / Double(size), y: Double(raw[3 * i + 1]) / Double(size))
            // z as MediaPipe scales it: by the input size and a training-data factor of 0.4.
            points.append(Point3(x: p.x, y: p.y, z: Double(raw[3 * i + 2]) / Double(size) / 0.4 * region.width))
            // World points turn with the region (MediaPipe's WorldLandmarkProjection).
            let wx = Double(world[3 * i]), wy = Double(world[3 * i + 1])
            worldPoints.append(Point3(x: c * wx - s * wy, y: s * wx + c * wy, z: Double(world[3 * i + 2])))
        }
        // The model scores one class; MediaPipe labels it "Left" (its labels assume a mirrored,
        // selfie image, so a "Left" is usually the subject's right hand seen unmirrored).
        let right = Double(side.first ?? 0)
        return Hand(points: points, world: worldPoints, handedness: right > 0.5 ? "Left" : "Right",
                    handednessScore: max(right, 1 - right), presence: Double(flag.first ?? 0), score: score, region: region)
    }
}
