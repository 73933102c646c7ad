import Attendance
import Foundation
import IVScanner
import SentioImage
import SentioNeural
import SentioText
import SentioVision

/// The models and compute threads every route and stream shares: models are loaded once from
/// the model store and shared read-only; CPU work runs on ``ComputeThreads`` (one per core), never
/// on the server's event loops or the cooperative pool.
public final class Perception: Sendable {
    public let store: ModelStore
    let threads: ComputeThreads
    let workers: [StillWorker]
    /// The long lane: threads of their own at a low priority for stills estimated at over a
    /// second (mmod with upsampling, jitter), so that they never hold up short stills and streams.
    let longLane: [StillWorker]
    private let nextLong = ComputeThreads.Counter()

    /// `threads` compute threads (default one per core) and `longLaneThreads` low-priority
    /// ones over the models in `store`.
    public init(store: ModelStore, threads: Int? = nil, longLaneThreads: Int = 1) {
        self.store = store
        self.threads = ComputeThreads(count: threads)
        self.workers = self.threads.threads.map { StillWorker(store: store, thread: $0) }
        self.longLane = (0 ..< max(1, longLaneThreads)).map {
            StillWorker(store: store, thread: ComputeThread(name: "sentio-long-\($0)", niceness: 10))
        }
    }

    /// The worker for the next still, taken in turn.
    func nextWorker() -> StillWorker {
        let thread = threads.nextThread()
        return workers.first { $0.thread === thread } ?? workers[0]
    }

    /// The worker for the next still on `lane`.
    func worker(for lane: StillCost.Lane) -> StillWorker {
        switch lane {
        case .short: nextWorker()
        case .long: longLane[nextLong.increment() % longLane.count]
        }
    }

    /// Loads the models the streams and stills use, so the first request does not pay for it and
    /// a missing model stops the server at start with the command that fetches it.
    public func preload() throws {
        for name in ["face_detection_short_range", "face_landmark", "hand_landmark_full", "palm_detection_full",
                     "pose_detection", "pose_landmark_full"] {
            _ = try store.model(name)
        }
    }

    /// Loads the attendance descriptor's model too (SFace's ONNX file, or dlib's).
    public func preload(faceModel: FaceModel) throws {
        try preload()
        _ = try store.model(faceModel == .sface ? SFaceRecognizer.modelName : "dlib_face_recognition_resnet_model_v1")
    }

    public func stop() {
        threads.stop()
        longLane.forEach { $0.thread.stop() }
    }
}

/// What the attendance rules need of one photo or frame.
public struct FaceCheck: Sendable {
    var readings: [FaceReading]
    var descriptor: [Float]?

    /// The reading of one face of a photo: `box width` is the face box's width as a fraction
    /// of the photo's (public for the tests that measure the rules on fixture photos).
    /// With `iris`, each eye's EAR from the eye model (it sees shut lids the mesh keeps open).
    public static func reading(_ landmarks: FaceLandmarks, box width: Double, _ photo: Image, iris: IrisLandmarker? = nil) throws -> FaceReading {
        let s = FaceSignals(landmarks, imageWidth: photo.width, imageHeight: photo.height)
        return reading(meshEAR: (s.leftEAR + s.rightEAR) / 2, mar: s.mar, yaw: s.yaw, pitch: s.pitch, points: landmarks.points,
                       widthPixels: width * Double(photo.width), photo, eyes: try iris?.eyeAspectRatios(landmarks, in: photo))
    }

    /// A reading from a face's measures and mesh (a still's or a tracked frame's): the eye
    /// model's EAR of each eye when given (shut eyes, winks) and the eyes' look (dark glasses).
    static func reading(meshEAR: Double, mar: Double, yaw: Double, pitch: Double, points: [Point3], widthPixels: Double, _ photo: Image,
                        eyes: (right: Double, left: Double)?) -> FaceReading {
        let look = EyeVisibility.measure(photo, points: points)
        func eye(_ e: EyeVisibility.Eye) -> EyeLook? { e.pixels > 0 ? EyeLook(contrast: e.contrast, brightness: e.brightness, underEye: e.underEye) : nil }
        return FaceReading(ear: meshEAR, mar: mar, yaw: yaw, pitch: pitch, widthPixels: widthPixels,
                           leftEAR: eyes?.left, rightEAR: eyes?.right, leftEye: eye(look.left), rightEye: eye(look.right))
    }
}

/// Attendance's face descriptor on one thread, of the register's model: SFace aligns by the
/// mesh the caller already has (no detection of its own: ~20 ms a face), dlib finds the face
/// again for its own 5 points and chip (~80 ms, more with jitter). Made on first use.
final class FaceDescriber {
    let store: ModelStore
    private var dlib: FaceRecognizer?
    private var sface: SFaceRecognizer?

    init(store: ModelStore) { self.store = store }

    /// The descriptor of the face whose mesh is `mesh` in `image` (the largest face for dlib),
    /// nil when dlib finds no face. `jitter` is dlib's (SFace has none).
    func describe(_ image: Image, mesh: [Point3], model: FaceModel, jitter: Int) throws -> [Float]? {
        switch model {
        case .sface:
            let net = try sface ?? SFaceRecognizer(store: store, threads: 1, detecting: false)
            sface = net
            return try net.descriptor(mesh: mesh, in: image).values
        case .dlib:
            let net = try dlib ?? FaceRecognizer(store: store, threads: 1)
            dlib = net
            let found = try net.recognizeAll(image, jitter: jitter)
            return found.max { $0.box.width * $0.box.height < $1.box.width * $1.box.height }?.descriptor.values
        }
    }
}

/// One compute thread's pipelines for stills, made on first use and kept (they are not
/// thread-safe, so each thread has its own).
actor StillWorker {
    let store: ModelStore
    let thread: ComputeThread
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    private var faceLandmarkers: [String: FaceLandmarker] = [:]
    private var handLandmarkers: [String: HandLandmarker] = [:]
    private var poseLandmarker: PoseLandmarker?
    private var recognizer: FaceRecognizer?
    private var sface: SFaceRecognizer?
    private lazy var describer = FaceDescriber(store: store)
    private var iris: IrisLandmarker?
    private var scanner: ScreenScanner?

    init(store: ModelStore, thread: ComputeThread) {
        self.store = store
        self.thread = thread
    }

    /// Runs `work` on this worker's thread and says how long it ran there (queueing excluded):
    /// what the still really cost, for the client's compute credit.
    func timed<T: Sendable>(_ work: @Sendable (isolated StillWorker) throws -> T) throws -> (value: T, milliseconds: Double) {
        let start = ContinuousClock.now
        let value = try work(self)
        return (value, (ContinuousClock.now - start).milliseconds)
    }

    /// Decodes an upload on this worker's thread (never on the server's event loops).
    func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> Image {
        try ComputeDeadline.check()
        return try ImageIO.decode(bytes, source: name, options: DecodeOptions(maxPixels: maxPixels))
    }

    /// This worker's landmarker for one setting, made on first use and kept.
    private func landmarker(model: FaceDetector.Model, minScore: Double?, iris: Bool) throws -> FaceLandmarker {
        let key = "\(model.rawValue) \(minScore ?? -1) \(iris)"
        let landmarker = try faceLandmarkers[key] ?? FaceLandmarker(model: model, minScore: minScore, refineIrises: iris, store: store, threads: 1)
        faceLandmarkers[key] = landmarker
        return landmarker
    }

    func faces(_ photo: Image, model: FaceDetector.Model, minScore: Double?, iris: Bool) throws -> FacesObservation {
        let found = try landmarker(model: model, minScore: minScore, iris: iris).faces(in: photo)
        return FacesObservation(still: found.map { Face(detection: $0.detection, landmarks: $0.landmarks) }, width: photo.width, height: photo.height)
    }

    func hands(_ photo: Image, model: HandLandmarker.Model, maxHands: Int) throws -> HandsObservation {
        let key = "\(model.rawValue) \(maxHands)"
        let landmarker: HandLandmarker
        if let cached = handLandmarkers[key] {
            landmarker = cached
        } else {
            landmarker = try HandLandmarker(model: model, maxHands: maxHands, store: store, threads: 1)
            landmarker.pose = try PoseLandmarker(store: store, threads: 1)
            handLandmarkers[key] = landmarker
        }
        let hands = try landmarker.hands(in: photo)
        return HandsObservation(width: photo.width, height: photo.height, hands: hands.map(ObservedHand.init))
    }

    func pose(_ photo: Image) throws -> PosesObservation {
        let landmarker = try poseLandmarker ?? PoseLandmarker(store: store, threads: 1)
        poseLandmarker = landmarker
        let poses = try landmarker.pose(in: photo).map { [$0] } ?? []
        return PosesObservation(width: photo.width, height: photo.height, poses: poses.map(ObservedPose.init))
    }

    func embed(_ photo: Image, detector: FaceRecognizer.Detector, upsample: Int, jitter: Int) throws -> EmbeddedFacesObservation {
        let recognizer = try self.recognizer ?? FaceRecognizer(store: store, threads: 1)
        self.recognizer = recognizer
        let faces = try recognizer.recognizeAll(photo, jitter: jitter, detector: detector, upsample: upsample)
        return EmbeddedFacesObservation(faces, width: photo.width, height: photo.height)
    }

    /// The largest face's descriptor of `model`, nil when no face is found.
    func descriptor(_ photo: Image, model: FaceModel, jitter: Int) throws -> FaceDescriptor? {
        switch model {
        case .dlib:
            let recognizer = try self.recognizer ?? FaceRecognizer(store: store, threads: 1)
            self.recognizer = recognizer
            return try recognizer.recognizeAll(photo, jitter: jitter).first?.descriptor
        case .sface:
            return try sfaceRecognizer().recognizeAll(photo).first?.descriptor
        }
    }

    private func sfaceRecognizer() throws -> SFaceRecognizer {
        let recognizer = try sface ?? SFaceRecognizer(store: store, threads: 1)
        sface = recognizer
        return recognizer
    }

    /// Every face with its SFace descriptor, in dlib's JSON shape.
    func embedSFace(_ photo: Image) throws -> EmbeddedFacesObservation {
        let found = try sfaceRecognizer().recognizeAll(photo)
        return EmbeddedFacesObservation(sface: found, width: photo.width, height: photo.height)
    }

    /// The faces of a photo as the attendance rules see them, and the descriptor (of `model`)
    /// of the face when exactly one is in view (a check against an enrolment, or an enrolment
    /// photo).
    func faceCheck(_ photo: Image, model: FaceModel, jitter: Int) throws -> FaceCheck {
        let faces = try landmarker(model: .shortRange, minScore: nil, iris: false).faces(in: photo)
        let eyes = try iris ?? IrisLandmarker(store: store, threads: 1)
        iris = eyes
        let readings = try faces.map { try FaceCheck.reading($0.landmarks, box: $0.detection.box.width, photo, iris: eyes) }
        guard faces.count == 1 else { return FaceCheck(readings: readings, descriptor: nil) }
        return FaceCheck(readings: readings, descriptor: try describer.describe(photo, mesh: faces[0].landmarks.points, model: model, jitter: jitter))
    }

    /// The scan and the time it took on this thread (ms), without the wait for the thread: the
    /// server's time for the screenshot, reported in `Server-Timing`.
    func scan(_ screen: Image, trainerLevel: Int?, statsAsOf: GameDate?) throws -> (report: ScanReport, milliseconds: Double) {
        let start = ContinuousClock.now
        let scanner = try self.scanner ?? ScreenScanner()
        self.scanner = scanner
        // Tesseract is C code the interpreter's checks never reach: it gets the request's
        // deadline itself, and past it the scan ends as every compute job does (503).
        scanner.reader.deadline = ComputeDeadline.current?.instant
        defer { scanner.reader.deadline = nil }
        let scan: ScreenScan
        do {
            scan = try scanner.scan(screen, trainerLevel: trainerLevel, statsAsOf: statsAsOf)
        } catch TextError.deadlinePassed {
            throw ComputeDeadlineExceeded(budget: ComputeDeadline.current?.budget, cancelled: Task.isCancelled)
        }
        return (ScanReport(scan), (ContinuousClock.now - start).milliseconds)
    }
}
