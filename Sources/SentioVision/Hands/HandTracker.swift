import Foundation
import SentioImage

/// Video mode for hands: each hand's next region comes from its landmarks (MediaPipe's rule:
/// the palm and finger-base joints' box in the hand's own rotated frame, turned so wrist →
/// middle knuckle points up, shifted 0.1 towards the fingers, scaled 2× and squared); palm
/// detection runs again only when no hand is tracked.
public final class HandTracker {
    public let landmarker: HandLandmarker
    private var regions: [NormalizedRect] = []
    public private(set) var detections = 0

    public init(landmarker: HandLandmarker) {
        self.landmarker = landmarker
    }

    public func reset() { regions = [] }

    public func track(_ frame: Image) throws -> [Hand] {
        var found: [Hand] = []
        for region in regions {
            let hand = try landmarker.landmarks(in: frame, region: region)
            if hand.presence >= landmarker.minPresence { found.append(hand) }
        }
        if found.isEmpty {
            detections += 1
            found = try landmarker.hands(in: frame)
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
