import Foundation
import SentioImage

/// A rotated rectangle in coordinates normalized to the image (x by width, y by height),
/// rotation in radians clockwise on screen — MediaPipe's region of interest.
public struct NormalizedRect: Codable, Sendable, Hashable {
    public var xCenter: Double
    public var yCenter: Double
    public var width: Double
    public var height: Double
    public var rotation: Double

    public init(xCenter: Double, yCenter: Double, width: Double, height: Double, rotation: Double = 0) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The whole image.
    public static let full = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)

    /// The same rectangle in pixels of a `width`×`height` image.
    public func pixels(width imageWidth: Int, height imageHeight: Int) -> RotatedRect {
        RotatedRect(center: Point(xCenter * Double(imageWidth), yCenter * Double(imageHeight)),
                    width: width * Double(imageWidth), height: height * Double(imageHeight), rotation: rotation)
    }

    /// A point given in this rectangle's own normalized frame ([0, 1]², rotated with it) in
    /// image-normalized coordinates (MediaPipe's landmark projection).
    public func project(x: Double, y: Double) -> Point2 {
        let dx = x - 0.5, dy = y - 0.5
        let c = cos(rotation), s = sin(rotation)
        return Point2(x: (c * dx - s * dy) * width + xCenter, y: (s * dx + c * dy) * height + yCenter)
    }

    /// Scaled about its centre and, with `squareLong`, made square on its longer side in
    /// pixels (MediaPipe's RectTransformationCalculator, without shift).
    public func transformed(scaleX: Double, scaleY: Double, squareLong: Bool, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var r = self
        if squareLong {
            let long = max(width * Double(imageWidth), height * Double(imageHeight))
            r.width = long / Double(imageWidth)
            r.height = long / Double(imageHeight)
        }
        r.width *= scaleX
        r.height *= scaleY
        return r
    }
}

/// Angle normalized to [−π, π).
func normalizeRadians(_ angle: Double) -> Double {
    angle - 2 * .pi * ((angle + .pi) / (2 * .pi)).rounded(.down)
}
