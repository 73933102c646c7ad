import Foundation

/// Static hand shapes recognised from the joints' geometry.
public enum HandShape: String, Sendable, CaseIterable, Codable {
    case openPalm, fist, thumbsUp, thumbsDown, pointing, victory, call, rock, four

    /// The shape of `hand`, or nil when it is none of these. Fingers are judged straight or
    /// bent in the hand's own 3-D world coordinates (so the camera angle matters little);
    /// thumbs up or down by where the thumb tip lies in the image.
    public init?(_ hand: Hand) {
        let w = hand.world
        func v(_ a: HandJoint, _ b: HandJoint) -> (Double, Double, Double) {
            (w[b.rawValue].x - w[a.rawValue].x, w[b.rawValue].y - w[a.rawValue].y, w[b.rawValue].z - w[a.rawValue].z)
        }
        func length(_ p: (Double, Double, Double)) -> Double { (p.0 * p.0 + p.1 * p.1 + p.2 * p.2).squareRoot() }
        func angle(_ p: (Double, Double, Double), _ q: (Double, Double, Double)) -> Double {
            let c = (p.0 * q.0 + p.1 * q.1 + p.2 * q.2) / max(1e-9, length(p) * length(q))
            return acos(max(-1, min(1, c))) * 180 / .pi
        }
        func distance(_ a: HandJoint, _ b: HandJoint) -> Double { length(v(a, b)) }
        // A finger is extended when its two segments (MCP→PIP, PIP→tip) bend by under 60° and
        // its tip is farther from the wrist than its PIP joint — or when its tip is clearly far
        // out (a straight finger seen end-on can look bent).
        func extended(_ mcp: HandJoint, _ pip: HandJoint, _ tip: HandJoint) -> Bool {
            let reach = distance(.wrist, tip) / max(1e-9, distance(.wrist, pip))
            return (angle(v(mcp, pip), v(pip, tip)) < 60 && reach > 1.1) || reach > 1.2
        }
        let index = extended(.indexMCP, .indexPIP, .indexTip)
        let middle = extended(.middleMCP, .middlePIP, .middleTip)
        let ring = extended(.ringMCP, .ringPIP, .ringTip)
        let little = extended(.littleMCP, .littlePIP, .littleTip)
        // The thumb is out when it is straight and its tip stands away from the index knuckle.
        let palmWidth = distance(.indexMCP, .littleMCP)
        let thumb = angle(v(.thumbMP, .thumbIP), v(.thumbIP, .thumbTip)) < 40 && distance(.thumbTip, .indexMCP) > 0.75 * palmWidth
            && distance(.thumbTip, .middleMCP) > distance(.thumbIP, .middleMCP)
        switch (thumb, index, middle, ring, little) {
        case (true, true, true, true, true): self = .openPalm
        case (false, true, true, true, true): self = .four
        case (_, true, true, false, false): self = .victory
        case (_, true, false, false, true): self = .rock
        case (true, false, false, false, true): self = .call
        case (_, true, false, false, false): self = .pointing
        case (true, false, false, false, false):
            // Up or down by the thumb's direction in the image (y grows downwards).
            let tip = hand.point(.thumbTip), base = hand.point(.thumbMP)
            self = tip.y < base.y ? .thumbsUp : .thumbsDown
        case (false, false, false, false, false): self = .fist
        default: return nil
        }
    }
}
