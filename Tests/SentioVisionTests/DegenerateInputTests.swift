import Foundation
import SentioImage
import SentioNeural
import SentioTestSupport
import SentioVision
import Testing

/// Every stage ends on the inputs nobody means to send — 1×1, 1×N, N×1, constant, noise,
/// hard stripes — with every parameter at both ends of its range (issue 34, finding 1: a 1×1
/// image with a minimum score of 0 looped in weighted suppression for ever). Each call runs
/// under a ``ComputeDeadline`` far above its normal time; passing it fails the test (the
/// stage then stops itself at its next operator, so a regression fails here instead of
/// hanging the run). Every result must also encode as JSON: a NaN or infinity would not.
@Suite("Degenerate inputs: every stage ends, at every parameter's bounds",
       .requires(model: "face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "iris_landmark",
                 "palm_detection_full", "hand_landmark_full", "hand_landmark_lite", "pose_detection", "pose_landmark_full",
                 "mmod_human_face_detector", "shape_predictor_5_face_landmarks", "dlib_face_recognition_resnet_model_v1",
                 "efficientnet_lite0"),
       .timeLimit(.minutes(10)))
struct DegenerateInputTests {
    static let store = ModelStore()
    /// Far above any of these calls' normal time in a release build (tens of milliseconds).
    static let budget = Duration.seconds(20)

    /// The images: sizes at the bottom of the range and odd shapes, constant and wild content.
    static func images() throws -> [(name: String, image: Image)] {
        var generator = SeededGenerator(seed: 34)
        func noise(_ w: Int, _ h: Int) throws -> Image {
            try Image(width: w, height: h, format: .rgb8, bytes: (0 ..< w * h * 3).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
        }
        func stripes(_ w: Int, _ h: Int) throws -> Image {
            try Image(width: w, height: h, format: .rgb8, bytes: (0 ..< w * h * 3).map { i in (i / 3) % 2 == 0 ? 0 : 255 })
        }
        return [
            ("1×1 black", try Image(width: 1, height: 1, format: .rgb8, fill: 0)),
            ("1×1 white", try Image(width: 1, height: 1, format: .rgb8, fill: 255)),
            ("1×9 noise", try noise(1, 9)),
            ("9×1 noise", try noise(9, 1)),
            ("2×2 noise", try noise(2, 2)),
            ("1000×3 stripes", try stripes(1000, 3)),
            ("3×1000 stripes", try stripes(3, 1000)),
            ("64×64 grey", try Image(width: 64, height: 64, format: .rgb8, fill: 128)),
            ("97×53 noise", try noise(97, 53)),
            ("256×256 white", try Image(width: 256, height: 256, format: .rgb8, fill: 255)),
        ]
    }

    /// Runs `work` under the deadline and checks its result encodes as JSON.
    func bounded<T: Encodable>(_ what: String, _ work: () throws -> T) async throws {
        let started = ContinuousClock.now
        do {
            let result = try await ComputeDeadline.within(Self.budget) { try work() }
            _ = try JSONEncoder().encode(result)
        } catch let error as ComputeDeadlineExceeded {
            Issue.record("\(what) ran past \(Self.budget): \(error)")
        } catch is EncodingError {
            Issue.record("\(what): the result does not encode as JSON (a NaN or an infinity)")
        } catch {
            // A typed error is a fine answer to nonsense; it must come quickly all the same.
        }
        #expect(ContinuousClock.now - started < Self.budget, "\(what)")
    }

    @Test("weighted suppression ends on boxes of no area, NaN and infinite coordinates and scores")
    func suppression() {
        let point = Point2(x: 0.5, y: 0.5)
        var detections: [Detection] = []
        for value in [0.0, -1, .nan, .infinity, -.infinity, 1e300] {
            for score in [0.0, 0.5, 1, .nan, .infinity] {
                detections.append(Detection(xMin: value, yMin: value, width: value, height: value, keypoints: [point], score: score))
                detections.append(Detection(xMin: 0.2, yMin: 0.2, width: 0, height: 0.1, keypoints: [], score: score))
            }
        }
        for threshold in [0.0, 0.3, 1, .nan] {
            let kept = NonMaxSuppression.weighted(detections, threshold: threshold)
            // Every kept detection stands for at least one input, NaN scores dropped.
            #expect(kept.count <= detections.filter { !$0.score.isNaN }.count, "threshold \(threshold)")
        }
        #expect(NonMaxSuppression.weighted(detections, maxCount: 3).count <= 3)
        #expect(NonMaxSuppression.weighted([]).isEmpty)
    }

    @Test("faces: both models, minimum score 0 and 1 and the default, with and without irises")
    func faces() async throws {
        for model in FaceDetector.Model.allCases {
            for minScore in [0.0, 1.0, nil] as [Double?] {
                for iris in [false, true] {
                    let landmarker = try FaceLandmarker(model: model, minScore: minScore, refineIrises: iris, store: Self.store, threads: 1)
                    for (name, image) in try Self.images() {
                        try await bounded("faces \(model) minScore \(minScore.map { "\($0)" } ?? "default") iris \(iris) on \(name)") {
                            let faces = try landmarker.faces(in: image)
                            #expect(faces.count <= 64)
                            return faces
                        }
                    }
                }
            }
        }
    }

    @Test("hands: both models, one and four hands; pose")
    func handsAndPose() async throws {
        for model in HandLandmarker.Model.allCases {
            for maxHands in [1, 4] {
                let landmarker = try HandLandmarker(model: model, maxHands: maxHands, store: Self.store, threads: 1)
                for (name, image) in try Self.images() {
                    try await bounded("hands \(model) maxHands \(maxHands) on \(name)") {
                        let hands = try landmarker.hands(in: image)
                        #expect(hands.count <= maxHands)
                        return hands
                    }
                }
            }
        }
        let pose = try PoseLandmarker(store: Self.store, threads: 1)
        for (name, image) in try Self.images() {
            try await bounded("pose on \(name)") { try pose.pose(in: image) }
        }
    }

    @Test("face descriptors: both detectors, upsample 0 and 1, jitter 0 and 10")
    func descriptors() async throws {
        let recognizer = try FaceRecognizer(store: Self.store, threads: 1)
        for detector in FaceRecognizer.Detector.allCases {
            for upsample in [0, 1] {
                for jitter in [0, 10] {
                    for (name, image) in try Self.images() {
                        try await bounded("embed \(detector) upsample \(upsample) jitter \(jitter) on \(name)") {
                            try recognizer.recognizeAll(image, jitter: jitter, detector: detector, upsample: upsample).map(\.descriptor.values)
                        }
                    }
                }
            }
        }
    }

    @Test("the fruit classifier, top 1 and top 1000")
    func classifier() async throws {
        let classifier = try ImageClassifier(store: Self.store)
        for (name, image) in try Self.images() {
            for top in [1, 1000] {
                try await bounded("classify top \(top) on \(name)") { try classifier.classify(image, top: top) }
            }
        }
    }

    @Test("a deadline stops a network between operators, and the interpreter runs again afterwards")
    func deadlineStops() async throws {
        let landmarker = try FaceLandmarker(store: Self.store, threads: 1)
        let image = try Image(width: 640, height: 480, format: .rgb8, fill: 90)
        await #expect(throws: ComputeDeadlineExceeded.self) {
            try await ComputeDeadline.within(.zero) { try landmarker.faces(in: image) }
        }
        // The same landmarker, after being stopped part-way, answers normally.
        _ = try landmarker.faces(in: image)
        let cancelled = Task {
            try await ComputeDeadline.within(.seconds(60)) {
                withUnsafeCurrentTask { $0?.cancel() }
                return try landmarker.faces(in: image)
            }
        }
        await #expect(throws: ComputeDeadlineExceeded.self) { try await cancelled.value }
    }
}
