import Foundation
import SentioImage
import SentioNeural

/// 468 face landmarks (MediaPipe's canonical mesh order): x, y normalized to the image, z on
/// the scale of x (negative towards the camera).
public struct FaceLandmarks: Codable, Sendable, Equatable {
    public var points: [Point3]
    /// Probability that a face is in the region (MediaPipe's face flag).
    public var presence: Double
    /// The region the mesh was computed in.
    public var region: NormalizedRect

}

/// The face mesh stage: region of interest from a detection (rotation from the eye line, box
/// scaled 1.5× and squared), a 192×192 rotated crop, `face_landmark.tflite`, and the 468
/// points projected back into the image.
public final class FaceMesh {
    private let interpreter: Interpreter
    public static let inputSize = 192

    public convenience init(store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(store: store, pool: ThreadPool(threads: threads ?? 1))
    }

    /// The mesh model from `store` (shared), run on `pool`.
    public init(store: ModelStore, pool: ThreadPool) throws {
        interpreter = Interpreter(model: try store.model("face_landmark"), pool: pool)
    }

    /// Bytes of this stage's own working memory (the model's weights are shared).
    public var workingBytes: Int { interpreter.workingBytes }

    /// MediaPipe's region for the mesh from a detection in an image of `width`×`height`.
    public static func region(for face: FaceDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        // Rotation from the (subject's) right eye to the left eye, made horizontal.
        let detection = Detection(xMin: face.box.x, yMin: face.box.y, width: face.box.width, height: face.box.height,
                                  keypoints: face.keypoints, score: face.score)
        let rect = NormalizedRect.from(detection, rotationFrom: 0, to: 1, targetAngle: 0, imageWidth: imageWidth, imageHeight: imageHeight)
        return rect.transformed(scaleX: 1.5, scaleY: 1.5, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The mesh inside `region` of `image`.
    public func landmarks(in image: Image, region: NormalizedRect) throws -> FaceLandmarks {
        let size = FaceMesh.inputSize
        let input = try ImageToTensor.tensor(from: image, rect: region.pixels(width: image.width, height: image.height),
                                             width: size, height: size, range: .zeroToOne, border: .replicate)
        try interpreter.setInput(0, input)
        try interpreter.run()
        let raw = interpreter.output(0), flag = interpreter.output(1)
        var points: [Point3] = []
        points.reserveCapacity(468)
        for i in 0 ..< min(468, raw.count / 3) {
            let p = region.project(x: Double(raw[3 * i]) / Double(size), y: Double(raw[3 * i + 1]) / Double(size))
            points.append(Point3(x: p.x, y: p.y, z: Double(raw[3 * i + 2]) / Double(size) * region.width))
        }
        let presence = 1 / (1 + exp(-Double(flag.first ?? -100)))
        return FaceLandmarks(points: points, presence: presence, region: region)
    }
}
