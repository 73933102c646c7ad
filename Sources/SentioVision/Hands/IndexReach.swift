import Foundation

/// How far the index finger reaches out (``FingerReach`` for the index): its tip's distance from its knuckle (MCP) over the
/// length of its first bone (MCP → PIP), in the hand's 3-D world coordinates, so neither the
/// hand's size nor its turn towards the camera changes it.
///
/// Why the pinch needs it: in a closed fist the thumb lies across the curled fingers, and in
/// the image its tip can sit as near the index tip as in a pinch. The gestures page showed the
/// heart on a thumbs-up entering the frame from the side, which the landmark model read as a
/// fist for a few frames (docs/play.md). A pinch bends the index but keeps its tip out; a fist
/// curls it back to the palm.
///
/// Worked out from typical bone lengths (proximal 4.5 cm, middle 2.5, distal 2): straight ≈ 2.0;
/// a light pinch (middle joint bent 45°, end joint 20°) ≈ 1.8; a deep pinch (60°, 30°) ≈ 1.6;
/// a fist (the middle joint bent 90–100°, the end joint 70°) ≈ 0.8–0.9. Measured with Sentio's
/// landmarks: the fixtures' thumbs up and down 0.60–1.31 and the misread fists 1.11–1.33; the
/// fixtures' pinch 2.3; their pointing, four, rock, victory and open palms 2.4–4.1 (HandReachTests).
public enum IndexReach {
    /// Under this the index is curled (a fist), and a thumb near it is no pinch.
    public static let curled = 1.4

    /// The reach of the index in `world` (21 joints, MediaPipe's order), or nil when the first
    /// bone has no length (a constructed hand) or a coordinate is not finite.
    public static func of(world: [Point3]) -> Double? { FingerReach.of(.index, world: world) }

    /// True when the index is curled back to the palm (unknown reach: false).
    public static func isCurled(world: [Point3]) -> Bool { of(world: world).map { $0 < curled } ?? false }
}

extension Hand {
    /// The index curled back to the palm, as in a fist (``IndexReach``).
    public var indexCurled: Bool { IndexReach.isCurled(world: world) }
}

extension ObservedHand {
    /// The index curled back to the palm, as in a fist (``IndexReach``).
    public var indexCurled: Bool { IndexReach.isCurled(world: world) }
}
