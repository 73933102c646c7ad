/// Vision-style named regions over MediaPipe's 468-point mesh (indices of the canonical face
/// mesh; left and right are the subject's, as in Apple's `VNFaceLandmarks2D`).
public enum FaceRegion: String, Sendable, CaseIterable {
    case leftEye, rightEye, leftEyebrow, rightEyebrow, nose, noseCrest, outerLips, innerLips
    case faceContour, leftPupil, rightPupil, medianLine

    /// Mesh indices in drawing order (closed contours repeat no point).
    public var indices: [Int] {
        switch self {
        case .leftEye: [362, 382, 381, 380, 374, 373, 390, 249, 263, 466, 388, 387, 386, 385, 384, 398]
        case .rightEye: [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
        case .leftEyebrow: [276, 283, 282, 295, 285, 300, 293, 334, 296, 336]
        case .rightEyebrow: [46, 53, 52, 65, 55, 70, 63, 105, 66, 107]
        case .nose: [168, 6, 197, 195, 5, 4, 1, 19, 94, 2, 98, 327]
        case .noseCrest: [168, 6, 197, 195, 5, 4, 1]
        case .outerLips: [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185]
        case .innerLips: [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 415, 310, 311, 312, 13, 82, 81, 80, 191]
        case .faceContour: [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152,
                            148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
        // With iris refinement (478 points) the pupil centres are 473 and 468; otherwise the eye
        // rings' centres stand in (see FaceLandmarks.point(_:)).
        case .leftPupil: [473]
        case .rightPupil: [468]
        case .medianLine: [10, 151, 9, 8, 168, 6, 197, 195, 5, 4, 1, 19, 94, 2, 164, 0, 11, 12, 13, 14, 15, 16, 17, 18, 200, 199, 175, 152]
        }
    }

    /// True for regions drawn as closed loops.
    public var isClosed: Bool { [.leftEye, .rightEye, .outerLips, .innerLips, .faceContour].contains(self) }
}

extension FaceLandmarks {
    /// The points of `region` (a pupil without iris refinement: its eye ring's mean).
    public func points(_ region: FaceRegion) -> [Point3] {
        switch region {
        case .leftPupil where points.count < 478: [mean(FaceRegion.leftEye.indices)]
        case .rightPupil where points.count < 478: [mean(FaceRegion.rightEye.indices)]
        default: region.indices.filter { $0 < points.count }.map { points[$0] }
        }
    }

    func mean(_ indices: [Int]) -> Point3 {
        let n = Double(indices.count)
        let s = indices.reduce((0.0, 0.0, 0.0)) { ($0.0 + points[$1].x, $0.1 + points[$1].y, $0.2 + points[$1].z) }
        return Point3(x: s.0 / n, y: s.1 / n, z: s.2 / n)
    }
}
