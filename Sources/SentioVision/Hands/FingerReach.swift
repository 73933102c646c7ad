import Foundation

/// How far a finger reaches out: its tip's distance from its knuckle (MCP) over the length of its
/// first bone (MCP → PIP), in the hand's 3-D world coordinates, so neither the hand's size nor its
/// turn towards the camera changes it. ``IndexReach`` is this measure for the index.
///
/// Worked out from typical bone lengths (proximal 4.5 cm, middle 2.5, distal 2): straight ≈ 2.0,
/// a fist ≈ 0.8–0.9 (``IndexReach`` has the steps between).
public enum FingerReach {
    /// The four fingers (not the thumb, whose first bone is of another kind).
    public enum Finger: Sendable, CaseIterable {
        case index, middle, ring, little

        var joints: (mcp: HandJoint, pip: HandJoint, tip: HandJoint) {
            switch self {
            case .index: (.indexMCP, .indexPIP, .indexTip)
            case .middle: (.middleMCP, .middlePIP, .middleTip)
            case .ring: (.ringMCP, .ringPIP, .ringTip)
            case .little: (.littleMCP, .littlePIP, .littleTip)
            }
        }
    }

    /// At or over this, a finger counts as straight for the air-writing pen (index and middle
    /// both). Measured with Sentio's landmarks on the labelled photos of hands.tsv that the
    /// landmarks read as their labelled shape (PenFingersTests, 2026-11-28): fingers the shape
    /// curls reach 0.60–1.31 (index and middle of thumbs up and down) and 0.92–1.67 (the middle of
    /// pointing and rock); fingers it holds out 2.15–4.54 (four, open palm, victory; the index of
    /// pointing and rock). 1.8 lies between, 0.13 above the highest curled and 0.35 below the
    /// lowest straight, nearer the curled side so that a straight finger read short (2.04 on an
    /// unlabelled open palm) still writes; it is also the reach worked out for a light pinch, so
    /// a finger bent as far as a pinch bends it is no pen. The reach is not enough alone: the
    /// curled fingers of a "call" held at the ear, seen end-on, reach 2.19–3.54 on two of the five
    /// read, as if straight; the gestures board also asks that the tips lie past the middle joints
    /// in the picture (Play's `GestureBoard.penExtension`).
    public static let straight = 1.8

    /// The reach of `finger` in `world` (21 joints, MediaPipe's order), or nil when its first bone
    /// has no length (a constructed hand) or a coordinate is not finite.
    public static func of(_ finger: Finger, world: [Point3]) -> Double? {
        guard world.count == 21 else { return nil }
        func distance(_ a: HandJoint, _ b: HandJoint) -> Double {
            let p = world[a.rawValue], q = world[b.rawValue]
            return ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) + (p.z - q.z) * (p.z - q.z)).squareRoot()
        }
        let j = finger.joints
        let bone = distance(j.mcp, j.pip), reach = distance(j.mcp, j.tip) / bone
        return bone > 1e-6 && reach.isFinite ? reach : nil
    }

    /// True when the index and the middle finger are both straight (``straight``), as the
    /// air-writing pen holds them; false when either reach is unknown.
    public static func penFingersStraight(world: [Point3]) -> Bool {
        guard let index = of(.index, world: world), let middle = of(.middle, world: world) else { return false }
        return index >= straight && middle >= straight
    }
}

extension Hand {
    /// Index and middle finger both straight, as the air-writing pen holds them (``FingerReach``).
    public var penFingersStraight: Bool { FingerReach.penFingersStraight(world: world) }
}

extension ObservedHand {
    /// Index and middle finger both straight, as the air-writing pen holds them (``FingerReach``).
    public var penFingersStraight: Bool { FingerReach.penFingersStraight(world: world) }
}
