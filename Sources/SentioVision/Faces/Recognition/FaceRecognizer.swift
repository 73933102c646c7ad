import Foundation
import SentioImage
import SentioNeural

/// One face made into a descriptor: the box the landmarks started from, the 5 landmarks, the
/// chip's placement and the descriptor.
public struct RecognizedFace: Sendable {
    /// dlib-style box given to the shape predictor (pixels, inclusive edges).
    public var box: DlibRectangle
    /// Right eye outer and inner corner, left eye outer and inner corner, base of the nose
    /// (the subject's right and left), in pixels.
    public var landmarks5: [PixelPoint]
    public var chip: FaceChip.Placement
    public var descriptor: FaceDescriptor
}

/// dlib's face recognition pipeline on SentioNeural: box → 5-point shape predictor → aligned
/// 150×150 chip → ResNet descriptor, with BlazeFace (or a given box) in front.
///
/// Not thread-safe (it owns an interpreter): use one per thread.
public final class FaceRecognizer {
    private let net: Interpreter
    public let shapePredictor: ShapePredictor
    private var detector: FaceDetector?
    private var mmod: MMODFaceDetector?
    private let store: ModelStore
    private let threads: Int?

    public init(store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        self.store = store
        self.threads = threads
        net = Interpreter(model: try store.model("dlib_face_recognition_resnet_model_v1"), threads: threads ?? 1)
        shapePredictor = try ShapePredictor(path: store.path(of: "shape_predictor_5_face_landmarks"))
        guard shapePredictor.partCount == 5 else {
            throw ModelError.invalidGraph("shape_predictor_5_face_landmarks predicts \(shapePredictor.partCount) points, not 5")
        }
    }

    /// The descriptor of an aligned 150×150 RGB chip.
    public func descriptor(chip: Image) throws -> FaceDescriptor {
        guard chip.width == 150, chip.height == 150 else {
            throw ModelError.invalidInput("a face chip must be 150×150, not \(chip.width)×\(chip.height)")
        }
        let rgb = chip.format == .rgb8 ? chip : chip.converted(to: .rgb8)
        let bytes = rgb.packedBytes
        try net.withInput(0) { input in
            for i in 0 ..< bytes.count { input[i] = Float(bytes[i]) }
        }
        try net.run()
        return FaceDescriptor(net.output(0))
    }

    /// The face in `box`: landmarks, chip and descriptor. `jitter` > 1 averages the
    /// descriptors of that many slightly moved, scaled, rotated and mirrored chips (steadier,
    /// `jitter` times slower). An error for a box with right < left or bottom < top, or an
    /// edge more than a million pixels from the image (the shape predictor's arithmetic
    /// would overflow).
    public func recognize(_ image: Image, box: DlibRectangle, jitter: Int = 0) throws -> RecognizedFace {
        let reach = -FaceRecognizer.boxReach ... FaceRecognizer.boxReach
        guard box.right >= box.left, box.bottom >= box.top, [box.left, box.top, box.right, box.bottom].allSatisfy(reach.contains) else {
            throw RecognitionError.faceBox("left \(box.left), top \(box.top), right \(box.right), bottom \(box.bottom) of a \(image.width)×\(image.height) image")
        }
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let landmarks = shapePredictor.predict(rgb, box: box)
        let placement = FaceChip.placement(landmarks5: landmarks)
        var descriptor = try self.descriptor(chip: FaceChip(from: rgb, placement: placement).image)
        if jitter > 1 {
            var sum = descriptor.values
            var random = JitterRandom(seed: 0x5EED)
            for _ in 1 ..< jitter {
                var p = placement
                let scale = 1 + random.uniform(-0.05, 0.05)
                let shiftX = random.uniform(-0.03, 0.03) * (p.right - p.left), shiftY = random.uniform(-0.03, 0.03) * (p.bottom - p.top)
                let half = (p.right - p.left) * scale / 2, cx = p.centerX + shiftX, cy = p.centerY + shiftY
                (p.left, p.right, p.top, p.bottom) = (cx - half, cx + half, cy - half, cy + half)
                p.angle += random.uniform(-3, 3) * .pi / 180
                var chip = try FaceChip(from: rgb, placement: p).image
                if random.uniform(0, 1) < 0.5 { chip = chip.mirrored() }
                for (i, v) in try self.descriptor(chip: chip).values.enumerated() { sum[i] += v }
            }
            descriptor = FaceDescriptor(sum.map { $0 / Float(jitter) })
        }
        return RecognizedFace(box: box, landmarks5: landmarks, chip: placement, descriptor: descriptor)
    }

    /// Which detector finds the faces for ``recognizeAll(_:jitter:detector:)``.
    public enum Detector: String, Sendable, CaseIterable {
        /// MediaPipe's BlazeFace (full range), its box mapped to the box dlib's shape predictor
        /// expects: fast, finds small and turned faces.
        case blazeFace = "blazeface"
        /// dlib's CNN face detector (``MMODFaceDetector``), its box used as face_recognition
        /// uses it (clipped to the image): slower, no box mapping needed.
        case mmod
    }

    /// Every face the detector finds in `image`, made into descriptors (largest face first).
    /// `upsample` is the CNN detector's (ignored by BlazeFace).
    public func recognizeAll(_ image: Image, jitter: Int = 0, detector choice: Detector = .blazeFace, upsample: Int = 0) throws -> [RecognizedFace] {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        return try faceBoxes(rgb, detector: choice, upsample: upsample)
            .sorted { $0.width * $0.height > $1.width * $1.height }
            .map { try recognize(rgb, box: $0, jitter: jitter) }
    }

    /// The boxes the shape predictor starts from, one per face the detector finds.
    public func faceBoxes(_ image: Image, detector choice: Detector = .blazeFace, upsample: Int = 0) throws -> [DlibRectangle] {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        switch choice {
        case .blazeFace:
            if detector == nil { detector = try FaceDetector(model: .fullRange, store: store, threads: threads) }
            return try FaceRecognizer.dlibBoxes(detector!, rgb)
        case .mmod:
            if mmod == nil { mmod = try MMODFaceDetector(store: store, threads: threads) }
            // face_recognition clips the detector's box to the image (right and bottom to the
            // width and height) before the shape predictor sees it.
            return try mmod!.detect(rgb, upsample: upsample).map {
                DlibRectangle(left: max($0.box.left, 0), top: max($0.box.top, 0),
                              right: min($0.box.right, rgb.width), bottom: min($0.box.bottom, rgb.height))
            }
        }
    }

    /// BlazeFace's faces in `rgb` (retried zoomed out when it finds none), as dlib boxes.
    public static func dlibBoxes(_ detector: FaceDetector, _ rgb: Image) throws -> [DlibRectangle] {
        var detections = try detector.detect(rgb)
        if detections.isEmpty { detections = try detector.detect(rgb, zoomOut: 2) }
        return try detections.map { try dlibBox(for: $0, width: rgb.width, height: rgb.height) }
    }

    /// The box dlib's HOG detector would draw around a face BlazeFace found: the shape
    /// predictor was trained on those boxes, which are square, tighter and lower than
    /// BlazeFace's. Scale and offsets were fitted on fixture photos outside the verification
    /// set (docs/face-recognition.md). An error for a box that is not finite, negative in
    /// size, or lying more than half a million pixels out (no detector gives one: a damaged model could).
    public static func dlibBox(for face: FaceDetection, width: Int, height: Int) throws -> DlibRectangle {
        try dlibBox(for: face.box, width: width, height: height)
    }

    /// The dlib box for BlazeFace's normalized `box` in a `width`×`height` image (as
    /// the `FaceDetection` overload does); the same errors.
    public static func dlibBox(for box: Box, width: Int, height: Int) throws -> DlibRectangle {
        let w = box.width * Double(width), h = box.height * Double(height)
        let cx = box.x * Double(width) + w / 2 + boxFit.dx * w
        let cy = box.y * Double(height) + h / 2 + boxFit.dy * h
        let side = boxFit.scale * (w * h).squareRoot()
        guard [cx, cy, side].allSatisfy({ $0.isFinite && abs($0) < Double(boxReach) / 2 }), w >= 0, h >= 0 else {
            throw RecognitionError.faceBox("x \(box.x), y \(box.y), width \(box.width), height \(box.height) of a \(width)×\(height) image")
        }
        let left = Int((cx - side / 2).rounded()), top = Int((cy - side / 2).rounded())
        let s = max(1, Int(side.rounded()))
        return DlibRectangle(left: left, top: top, right: left + s - 1, bottom: top + s - 1)
    }

    /// How far (pixels) a face box's edges may lie from the image's origin.
    static let boxReach = 1_000_000

    /// dlib box = BlazeFace box moved by (dx, dy) of its size and scaled by `scale`.
    static let boxFit = (dx: 0.0, dy: -0.021, scale: 0.944)
}

/// Deterministic jitter (SentioNeural's seeded SplitMix64), so the same photo always gives the
/// same descriptor.
typealias JitterRandom = SeededGenerator

extension SeededGenerator {
    /// A double in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * nextUnit()
    }
}
