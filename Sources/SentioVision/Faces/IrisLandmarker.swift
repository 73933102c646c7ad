import Foundation
import SentioImage
import SentioNeural

/// Iris refinement: `iris_landmark.tflite` on a 64×64 crop of each eye (the region from the eye
/// corners, scaled 2.3× and squared; the subject's left eye mirrored, since the model knows only
/// one side), giving 5 points per iris — centre first — appended to the mesh in MediaPipe's
/// refined order: 468–472 the subject's right iris, 473–477 the left.
public final class IrisLandmarker {
    private let interpreter: Interpreter
    public static let inputSize = 64

    public convenience init(store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(store: store, pool: ThreadPool(threads: threads ?? 1))
    }

    /// The iris model from `store` (shared), run on `pool`.
    public init(store: ModelStore, pool: ThreadPool) throws {
        interpreter = Interpreter(model: try store.model("iris_landmark"), pool: pool)
    }

    /// Bytes of this stage's own working memory (the model's weights are shared).
    public var workingBytes: Int { interpreter.workingBytes }

    /// The eye region from two corner landmarks (MediaPipe's iris landmarks-to-ROI rule).
    public static func region(_ a: Point3, _ b: Point3,
                              imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let angle = normalizeRadians(-atan2(-(b.y - a.y) * Double(imageHeight), (b.x - a.x) * Double(imageWidth)))
        let rect = NormalizedRect(xCenter: (a.x + b.x) / 2, yCenter: (a.y + b.y) / 2, width: abs(b.x - a.x), height: abs(b.y - a.y), rotation: angle)
        return rect.transformed(scaleX: 2.3, scaleY: 2.3, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// Each eye's EAR from the iris model's own eye contour (its first 16 of 71 points: the
    /// corners 0 and 8, one lid 1–7, the other 9–15), the subject's right eye first. The eye
    /// model sees a shut lid where the face mesh, trained on whole faces, often keeps the eye
    /// open (measured on Yale's winks: docs/attendance.md, "Enrolment quality").
    public func eyeAspectRatios(_ mesh: FaceLandmarks, in image: Image) throws -> (right: Double, left: Double) {
        try eyeAspectRatios(points: mesh.points, in: image)
    }

    /// The same from a mesh's points (normalized, MediaPipe's order).
    public func eyeAspectRatios(points: [Point3], in image: Image) throws -> (right: Double, left: Double) {
        guard points.count >= 468 else { return (0, 0) }
        var ratios: [Double] = []
        for (corners, mirrored) in [((33, 133), false), ((362, 263), true)] {
            let region = IrisLandmarker.region(points[corners.0], points[corners.1], imageWidth: image.width, imageHeight: image.height)
            let size = IrisLandmarker.inputSize
            let input = try ImageToTensor.tensor(from: image, rect: region.pixels(width: image.width, height: image.height),
                                                 width: size, height: size, range: .zeroToOne, border: .replicate, flipHorizontally: mirrored)
            try interpreter.setInput(0, input)
            try interpreter.run()
            let eye = interpreter.output(0)
            // In the crop's pixels: the crop is square, so distances keep their proportions.
            func p(_ k: Int) -> (Double, Double) { (Double(eye[3 * k]), Double(eye[3 * k + 1])) }
            func d(_ a: Int, _ b: Int) -> Double { let (x0, y0) = p(a), (x1, y1) = p(b); return ((x0 - x1) * (x0 - x1) + (y0 - y1) * (y0 - y1)).squareRoot() }
            ratios.append((d(3, 11) + d(5, 13)) / max(1e-9, 2 * d(0, 8)))
        }
        return (ratios[0], ratios[1])
    }

    /// `mesh` with the 10 iris points appended (478 points).
    public func refine(_ mesh: FaceLandmarks, in image: Image) throws -> FaceLandmarks {
        guard mesh.points.count == 468 else { return mesh }
        var refined = mesh
        for (corners, mirrored) in [((33, 133), false), ((362, 263), true)] {
            let region = IrisLandmarker.region(mesh.points[corners.0], mesh.points[corners.1], imageWidth: image.width, imageHeight: image.height)
            let size = IrisLandmarker.inputSize
            let input = try ImageToTensor.tensor(from: image, rect: region.pixels(width: image.width, height: image.height),
                                                 width: size, height: size, range: .zeroToOne, border: .replicate, flipHorizontally: mirrored)
            try interpreter.setInput(0, input)
            try interpreter.run()
            let iris = interpreter.output(1)
            for k in 0 ..< 5 {
                var x = Double(iris[3 * k]) / Double(size)
                if mirrored { x = 1 - x }
                let p = region.project(x: x, y: Double(iris[3 * k + 1]) / Double(size))
                refined.points.append(Point3(x: p.x, y: p.y, z: Double(iris[3 * k + 2]) / Double(size) * region.width))
            }
        }
        return refined
    }
}
