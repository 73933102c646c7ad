import Foundation
import SentioImage
import SentioNeural

/// OpenCV Zoo's SFace face descriptor (`face_recognition_sface_2021dec.onnx`, Apache-2.0;
/// MobileFaceNet-like, 128 numbers) on SentioNeural: face detection and the 468-point mesh,
/// the ArcFace 5-point alignment (eye centres, nose tip, mouth corners mapped by a similarity
/// transform onto ArcFace's 112×112 template), the net on the aligned RGB chip (0–255; the model
/// normalises inside), and the descriptor scaled to length 1 — so that the Euclidean distance
/// is √(2 − 2·cos) of the cosine similarity SFace is published with (OpenCV's threshold, cosine
/// 0.363, is a distance of 1.129).
///
/// Not thread-safe (it owns interpreters): use one per thread.
public final class SFaceRecognizer {
    public static let modelName = "face_recognition_sface_2021dec"
    /// ArcFace's landmark template in a 112×112 chip: the eye on the image's left, the eye on
    /// its right, the nose tip, the mouth corner on the left, the one on the right.
    public static let template: [(Double, Double)] = [
        (38.2946, 51.6963), (73.5318, 51.5014), (56.0252, 71.7366), (41.5493, 92.3655), (70.7299, 92.2041),
    ]
    public static let chipSize = 112

    private let net: Interpreter
    /// The full-range detector and mesh of ``recognizeAll(_:)``; nil when made with
    /// `detecting: false`, for a caller that has its meshes already (``descriptor(mesh:in:)``).
    public let landmarker: FaceLandmarker?

    public init(store: ModelStore = ModelStore(), threads: Int? = nil, detecting: Bool = true) throws {
        net = Interpreter(model: try store.model(Self.modelName), threads: threads ?? 1)
        landmarker = detecting ? try FaceLandmarker(model: .fullRange, store: store, threads: threads) : nil
    }

    /// The 5 alignment points of a mesh, in pixels of a `width`×`height` image: the mean of
    /// each eye's two corners (mesh points 33 and 133, 362 and 263), the nose tip (1), the mouth
    /// corners (61, 291).
    public static func alignmentPoints(_ mesh: FaceLandmarks, width: Int, height: Int) -> [(Double, Double)] {
        alignmentPoints(mesh.points, width: width, height: height)
    }

    /// The same from a mesh's points (normalized to the image, MediaPipe's order).
    public static func alignmentPoints(_ p: [Point3], width: Int, height: Int) -> [(Double, Double)] {
        guard p.count >= 468 else { return [] }
        func px(_ i: Int) -> (Double, Double) { (p[i].x * Double(width), p[i].y * Double(height)) }
        func mid(_ i: Int, _ j: Int) -> (Double, Double) { let (a, b) = (px(i), px(j)); return ((a.0 + b.0) / 2, (a.1 + b.1) / 2) }
        return [mid(33, 133), mid(362, 263), px(1), px(61), px(291)]
    }

    /// The aligned 112×112 RGB chip for 5 points of `rgb` (bilinear, black outside the image).
    public static func chip(_ rgb: Image, points: [(Double, Double)]) throws -> Image {
        guard points.count == 5, points.allSatisfy({ $0.0.isFinite && $0.1.isFinite }) else {
            throw RecognitionError.faceBox("five finite alignment points are needed, not \(points)")
        }
        // From chip coordinates to image coordinates: each chip pixel samples the image there.
        let t = SimilarityTransform.fit(from: template, to: points)
        let size = chipSize, width = rgb.width, height = rgb.height
        let source = rgb.format == .rgb8 ? rgb : rgb.converted(to: .rgb8)
        let bytes = source.packedBytes
        var out = [UInt8](repeating: 0, count: size * size * 3)
        for y in 0 ..< size {
            for x in 0 ..< size {
                let (sx, sy) = t.apply(Double(x), Double(y))
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let fx = sx - Double(x0), fy = sy - Double(y0)
                for c in 0 ..< 3 {
                    func at(_ xx: Int, _ yy: Int) -> Double {
                        guard xx >= 0, yy >= 0, xx < width, yy < height else { return 0 }
                        return Double(bytes[(yy * width + xx) * 3 + c])
                    }
                    let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
                    let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
                    out[(y * size + x) * 3 + c] = UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
                }
            }
        }
        return try Image(width: size, height: size, format: .rgb8, bytes: out)
    }

    /// The unit-length descriptor of an aligned 112×112 RGB chip.
    public func descriptor(chip: Image) throws -> FaceDescriptor {
        guard chip.width == Self.chipSize, chip.height == Self.chipSize else {
            throw ModelError.invalidInput("an SFace chip must be 112×112, not \(chip.width)×\(chip.height)")
        }
        let bytes = (chip.format == .rgb8 ? chip : chip.converted(to: .rgb8)).packedBytes
        try net.withInput(0) { input in
            for i in 0 ..< bytes.count { input[i] = Float(bytes[i]) }
        }
        try net.run()
        let raw = net.output(0)
        let length = raw.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
        return FaceDescriptor(length > 0 ? raw.map { $0 / length } : raw)
    }

    /// The descriptor of the face whose mesh (468 or 478 points, normalized) is `mesh` in
    /// `image`: aligned by the mesh's five points, no detection of its own.
    public func descriptor(mesh: [Point3], in image: Image) throws -> FaceDescriptor {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        return try descriptor(chip: try Self.chip(rgb, points: Self.alignmentPoints(mesh, width: rgb.width, height: rgb.height)))
    }

    /// A face found in a photo and its descriptor.
    public struct Recognized: Sendable {
        public var face: Face
        public var points: [PixelPoint]
        public var descriptor: FaceDescriptor
    }

    /// Every face in `image` with its descriptor, largest first.
    public func recognizeAll(_ image: Image) throws -> [Recognized] {
        guard let landmarker else { throw ModelError.invalidInput("this SFaceRecognizer was made without a detector (detecting: false)") }
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        return try landmarker.faces(in: rgb)
            .sorted { $0.detection.box.width * $0.detection.box.height > $1.detection.box.width * $1.detection.box.height }
            .map { face in
                let points = Self.alignmentPoints(face.landmarks, width: rgb.width, height: rgb.height)
                let descriptor = try self.descriptor(chip: try Self.chip(rgb, points: points))
                return Recognized(face: face, points: points.map { PixelPoint(x: Int($0.0.rounded()), y: Int($0.1.rounded())) }, descriptor: descriptor)
            }
    }
}
