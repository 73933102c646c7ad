import Foundation
import SentioImage

/// Video mode for hands: each hand's next region comes from its landmarks (MediaPipe's rule:
/// the palm and finger-base joints' box in the hand's own rotated frame, turned so wrist →
/// middle knuckle points up, shifted 0.1 towards the fingers, scaled 2× and squared). Palm
/// detection runs when no hand is tracked and, while fewer than the landmarker's `maxHands`
/// are, every `detectionInterval` frames; a detection overlapping a tracked hand (IoU of the
/// joints' boxes over 0.5) is that hand.
public final class HandTracker {
    public let landmarker: HandLandmarker
    /// Frames between detections while at least one hand but fewer than `maxHands` are tracked.
    public var detectionInterval: Int
    private var regions: [NormalizedRect] = []
    private var sinceDetection = 0
    public private(set) var detections = 0

    public init(landmarker: HandLandmarker, detectionInterval: Int = 5) {
        self.landmarker = landmarker
        self.detectionInterval = max(1, detectionInterval)
    }

    public func reset() {
        regions = []
        sinceDetection = 0
    }

    public func track(_ frame: Image) throws -> [Hand] {
        var found: [Hand] = []
        var boxes: [Box] = []
        func box(_ hand: Hand) -> Box { Box(bounding: hand.points.map { Point3(x: $0.x, y: $0.y, z: $0.z) }) }
        for region in regions {
            let hand = try landmarker.landmarks(in: frame, region: region)
            let b = box(hand)
            if hand.presence >= landmarker.minPresence, !boxes.contains(where: { $0.iou(b) > 0.5 }) {
                found.append(hand)
                boxes.append(b)
            }
        }
        sinceDetection += 1
        if found.isEmpty || (found.count < landmarker.maxHands && sinceDetection >= detectionInterval) {
            detections += 1
            sinceDetection = 0
            // Tracked hands are already placed: the search runs without its slow retries then.
            for hand in try landmarker.hands(in: frame, retry: found.isEmpty) where found.count < landmarker.maxHands {
                let b = box(hand)
                guard !boxes.contains(where: { $0.iou(b) > 0.5 }) else { continue }
                found.append(hand)
                boxes.append(b)
            }
        }
        regions = found.map { HandTracker.region(from: $0, imageWidth: frame.width, imageHeight: frame.height) }
        return found
    }

    static let palmJoints: [HandJoint] = [.wrist, .thumbCMC, .thumbMP, .thumbIP, .indexMCP, .indexPIP, .middleMCP, .middlePIP,
                                          .ringMCP, .ringPIP, .littleMCP, .littlePIP]

    static func region(from hand: Hand, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let w = Double(imageWidth), h = Double(imageHeight)
        let a = hand.point(.wrist), b = hand.point(.middleMCP)
        let rotation = normalizeRadians(.pi / 2 - atan2(-(b.y - a.y) * h, (b.x - a.x) * w))
        let c = cos(rotation), s = sin(rotation)
        // The joints in the hand's upright frame (pixels), their box, its centre turned back.
        let upright = palmJoints.map { j -> (Double, Double) in
            let p = hand.point(j)
            return (c * p.x * w + s * p.y * h, -s * p.x * w + c * p.y * h)
        }
        let x0 = upright.map(\.0).min()!, x1 = upright.map(\.0).max()!, y0 = upright.map(\.1).min()!, y1 = upright.map(\.1).max()!
        let (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2)
        let centre = (c * cx - s * cy, s * cx + c * cy)
        return NormalizedRect(xCenter: centre.0 / w, yCenter: centre.1 / h, width: (x1 - x0) / w, height: (y1 - y0) / h, rotation: rotation)
            .shifted(x: 0, y: -0.1, imageWidth: imageWidth, imageHeight: imageHeight)
            .transformed(scaleX: 2, scaleY: 2, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
