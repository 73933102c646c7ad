import Foundation

/// A detected object: box and keypoints in normalized coordinates (top-left origin), score.
public struct Detection: Codable, Sendable, Hashable {
    public var xMin: Double, yMin: Double, width: Double, height: Double
    public var keypoints: [Point2]
    public var score: Double

    public init(xMin: Double, yMin: Double, width: Double, height: Double, keypoints: [Point2], score: Double) {
        self.xMin = xMin
        self.yMin = yMin
        self.width = width
        self.height = height
        self.keypoints = keypoints
        self.score = score
    }


    public func hash(into hasher: inout Hasher) {
        hasher.combine(xMin); hasher.combine(yMin); hasher.combine(width); hasher.combine(height); hasher.combine(score)
    }

    /// Intersection over union with `other`.
    public func iou(_ other: Detection) -> Double {
        let x0 = max(xMin, other.xMin), y0 = max(yMin, other.yMin)
        let x1 = min(xMin + width, other.xMin + other.width), y1 = min(yMin + height, other.yMin + other.height)
        let inter = max(0, x1 - x0) * max(0, y1 - y0)
        let union = width * height + other.width * other.height - inter
        return union > 0 ? inter / union : 0
    }
}

/// The decoding stage (MediaPipe's TensorsToDetectionsCalculator for SSD outputs with
/// keypoints, x before y).
public struct DetectionDecoder: Sendable {
    public var anchors: [Anchor]
    public var coordinates: Int  // values per box (4 + 2 · keypoints)
    public var keypoints: Int
    public var scale: (x: Double, y: Double, w: Double, h: Double)
    public var scoreClipping: Double = 100
    public var minScore: Double

    /// Detections above `minScore` from the regressor and classifier outputs.
    public func decode(boxes raw: [Float], scores: [Float]) -> [Detection] {
        var out: [Detection] = []
        for (i, anchor) in anchors.enumerated() where i < scores.count && (i + 1) * coordinates <= raw.count {
            let logit = min(max(Double(scores[i]), -scoreClipping), scoreClipping)
            let score = 1 / (1 + exp(-logit))
            guard score >= minScore else { continue }
            let b = i * coordinates
            let xc = Double(raw[b]) / scale.x * anchor.width + anchor.xCenter
            let yc = Double(raw[b + 1]) / scale.y * anchor.height + anchor.yCenter
            let w = Double(raw[b + 2]) / scale.w * anchor.width
            let h = Double(raw[b + 3]) / scale.h * anchor.height
            var points: [Point2] = []
            for k in 0 ..< keypoints {
                let o = b + 4 + 2 * k
                points.append(Point2(x: Double(raw[o]) / scale.x * anchor.width + anchor.xCenter, y: Double(raw[o + 1]) / scale.y * anchor.height + anchor.yCenter))
            }
            out.append(Detection(xMin: xc - w / 2, yMin: yc - h / 2, width: w, height: h, keypoints: points, score: score))
        }
        return out
    }
}

/// MediaPipe's weighted non-maximum suppression: each kept detection is the score-weighted
/// mean of every detection overlapping it above the threshold, with the top score.
public enum NonMaxSuppression {
    public static func weighted(_ detections: [Detection], threshold: Double = 0.3, maxCount: Int = .max) -> [Detection] {
        // A score that is not a number cannot be ranked; it is dropped rather than left to
        // break the ordering.
        var remaining = detections.filter { !$0.score.isNaN }.sorted { $0.score > $1.score }
        var kept: [Detection] = []
        while let top = remaining.first, kept.count < maxCount {
            // The top detection always leaves `remaining`, whatever its IoU with itself: a box
            // of no area (or NaN coordinates) has IoU 0 with itself, and once left behind it
            // was picked again forever, appending without end (issue 34, finding 1).
            var candidates: [Detection] = [top], rest: [Detection] = []
            for d in remaining.dropFirst() { if top.iou(d) > threshold { candidates.append(d) } else { rest.append(d) } }
            var merged = top
            let total = candidates.reduce(0) { $0 + $1.score }
            if total > 0 {
                var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
                var points = [Point2](repeating: Point2(x: 0, y: 0), count: top.keypoints.count)
                for c in candidates {
                    x0 += c.xMin * c.score; y0 += c.yMin * c.score
                    x1 += (c.xMin + c.width) * c.score; y1 += (c.yMin + c.height) * c.score
                    for k in points.indices where k < c.keypoints.count {
                        points[k].x += c.keypoints[k].x * c.score
                        points[k].y += c.keypoints[k].y * c.score
                    }
                }
                merged.xMin = x0 / total; merged.yMin = y0 / total
                merged.width = x1 / total - merged.xMin; merged.height = y1 / total - merged.yMin
                merged.keypoints = points.map { Point2(x: $0.x / total, y: $0.y / total) }
            }
            kept.append(merged)
            remaining = rest
        }
        return kept
    }
}
