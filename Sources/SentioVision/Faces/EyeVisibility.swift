import SentioImage

/// Whether a face's eyes can be seen, measured on the photo under the mesh: the mesh places
/// eyes even behind dark glasses (it is trained to), so their shape (EAR) cannot tell an eye
/// from a lens. Their look can: an open eye holds a bright sclera and a dark iris and lashes,
/// a wide spread of light; a dark lens is a dark, even patch. Each eye's inside (the pixels
/// within the mesh's eye contour) is compared with the cheek under it, so a face in shadow or
/// a dark skin is measured against itself.
public struct EyeVisibility: Codable, Sendable, Equatable {
    /// One eye's measures.
    public struct Eye: Codable, Sendable, Equatable {
        /// The spread of luminance inside the eye (75th − 25th percentile, so that a reflection
        /// on a lens does not count) over the cheek's mean luminance: 0.1 to 1.5 for an open
        /// eye (measured on the identity fixtures), under 0.1 behind a dark lens.
        public var contrast: Double
        /// The mean luminance inside the eye over the cheek's (0.1 to 2 open, depending on light).
        public var brightness: Double
        /// The mean luminance of the skin just under the eye over the cheek's: about 0.7 to
        /// 1.1 bare (darker circles under the eyes), under 0.5 where a lens covers it.
        public var underEye: Double
        /// Pixels measured inside the eye (0: the eye is outside the image or too small).
        public var pixels: Int

        public init(contrast: Double, brightness: Double, underEye: Double, pixels: Int) {
            self.contrast = contrast
            self.brightness = brightness
            self.underEye = underEye
            self.pixels = pixels
        }
    }

    /// The subject's left eye (on the image's right) and right eye.
    public var left: Eye
    public var right: Eye

    public init(left: Eye, right: Eye) {
        self.left = left
        self.right = right
    }

    /// The eye contours, MediaPipe's mesh indices in order around each eye.
    static let rightEyeContour = [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7]
    static let leftEyeContour = [263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249]
    /// A point on each cheek at the height of the nostrils (mesh 205 and 425): far enough below
    /// the eye that no lens reaches it.
    static let rightCheek = 205, leftCheek = 425

    /// Measures the eyes of the mesh `points` (normalized to `image`, 468 or 478 points).
    public static func measure(_ image: Image, points: [Point3]) -> EyeVisibility {
        guard points.count >= 468 else { return EyeVisibility(left: Eye(contrast: 0, brightness: 0, underEye: 0, pixels: 0), right: Eye(contrast: 0, brightness: 0, underEye: 0, pixels: 0)) }
        return EyeVisibility(left: eye(image, points, contour: leftEyeContour, cheek: leftCheek),
                             right: eye(image, points, contour: rightEyeContour, cheek: rightCheek))
    }

    static func luminance(_ image: Image, _ x: Int, _ y: Int) -> Double {
        let p = image.pixel(x: x, y: y)
        return 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
    }

    static func eye(_ image: Image, _ points: [Point3], contour: [Int], cheek: Int) -> Eye {
        let w = Double(image.width), h = Double(image.height)
        let polygon = contour.map { (points[$0].x * w, points[$0].y * h) }
        let xs = polygon.map(\.0), ys = polygon.map(\.1)
        let x0 = max(0, Int(xs.min()!.rounded(.down))), x1 = min(image.width - 1, Int(xs.max()!.rounded(.up)))
        let y0 = max(0, Int(ys.min()!.rounded(.down))), y1 = min(image.height - 1, Int(ys.max()!.rounded(.up)))
        var inside: [Double] = []
        if x0 <= x1, y0 <= y1 {
            for y in y0 ... y1 {
                for x in x0 ... x1 where contains(polygon, Double(x) + 0.5, Double(y) + 0.5) {
                    inside.append(luminance(image, x, y))
                }
            }
        }
        // The cheek, and the skin under the eye (a third of the eye's width below its lower lid):
        // squares as wide as a third of the eye.
        let eyeWidth = (xs.max()! - xs.min()!)
        let half = max(1, Int((eyeWidth / 6).rounded()))
        let (cheekSum, cheekCount) = patch(image, x: points[cheek].x * w, y: points[cheek].y * h, half: half)
        let cx = xs.reduce(0, +) / Double(xs.count), lowerLid = ys.max()!
        let (underSum, underCount) = patch(image, x: cx, y: lowerLid + eyeWidth / 3, half: half)
        guard inside.count >= 8, cheekCount > 0, underCount > 0 else { return Eye(contrast: 0, brightness: 0, underEye: 0, pixels: 0) }
        inside.sort()
        let cheekMean = max(8, cheekSum / Double(cheekCount))  // never divide by a black cheek
        let p25 = inside[inside.count / 4], p75 = inside[inside.count * 3 / 4]
        let mean = inside.reduce(0, +) / Double(inside.count)
        return Eye(contrast: (p75 - p25) / cheekMean, brightness: mean / cheekMean, underEye: underSum / Double(underCount) / cheekMean,
                   pixels: inside.count)
    }

    /// The sum and count of luminance in the square of half-width `half` around (x, y), clipped
    /// to the image.
    static func patch(_ image: Image, x: Double, y: Double, half: Int) -> (Double, Int) {
        let cx = Int(x.rounded()), cy = Int(y.rounded())
        let x0 = max(0, cx - half), x1 = min(image.width - 1, cx + half), y0 = max(0, cy - half), y1 = min(image.height - 1, cy + half)
        guard x0 <= x1, y0 <= y1 else { return (0, 0) }
        var sum = 0.0
        for yy in y0 ... y1 { for xx in x0 ... x1 { sum += luminance(image, xx, yy) } }
        return (sum, (x1 - x0 + 1) * (y1 - y0 + 1))
    }

    /// Even-odd rule: whether (x, y) is inside the polygon.
    static func contains(_ polygon: [(Double, Double)], _ x: Double, _ y: Double) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let (xi, yi) = polygon[i], (xj, yj) = polygon[j]
            if (yi > y) != (yj > y), x < (xj - xi) * (y - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
        }
        return inside
    }
}
