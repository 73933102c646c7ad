import SentioImage
import SentioNeural

/// A face as the pipeline reports it: the detection and the mesh that confirmed it.
public struct Face: Codable, Sendable, Equatable {
    public var detection: FaceDetection
    public var landmarks: FaceLandmarks

    public init(detection: FaceDetection, landmarks: FaceLandmarks) {
        (self.detection, self.landmarks) = (detection, landmarks)
    }
}

/// Detection, mesh and verification in one: every detection gets a mesh, and only faces whose
/// mesh presence reaches `minPresence` are reported (as MediaPipe's face mesh reports them —
/// BlazeFace alone takes the odd dog for a face; the mesh does not).
public final class FaceLandmarker {
    public let detector: FaceDetector
    public let mesh: FaceMesh
    /// With iris refinement, meshes have 478 points.
    public let iris: IrisLandmarker?
    public var minPresence: Double

    /// The pipeline over the models of `store` (loaded once per store and shared by every
    /// landmarker made from it), its models run on `threads` threads (default: the caller's
    /// alone).
    public convenience init(model: FaceDetector.Model = .shortRange, minScore: Double? = nil, minPresence: Double = 0.5,
                            refineIrises: Bool = false, store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(model: model, minScore: minScore, minPresence: minPresence, refineIrises: refineIrises, store: store,
                      pool: ThreadPool(threads: threads ?? 1))
    }

    /// The same, every model run on `pool`.
    public init(model: FaceDetector.Model = .shortRange, minScore: Double? = nil, minPresence: Double = 0.5,
                refineIrises: Bool = false, store: ModelStore, pool: ThreadPool) throws {
        detector = try FaceDetector(model: model, minScore: minScore, store: store, pool: pool)
        mesh = try FaceMesh(store: store, pool: pool)
        iris = refineIrises ? try IrisLandmarker(store: store, pool: pool) : nil
        self.minPresence = minPresence
    }

    /// Bytes of this pipeline's own working memory: its interpreters' arenas and scratch (the
    /// models' weights are shared through the store and not counted).
    public var workingBytes: Int { detector.workingBytes + mesh.workingBytes + (iris?.workingBytes ?? 0) }

    /// The mesh in `region`, refined with irises when enabled.
    public func landmarks(in image: Image, region: NormalizedRect) throws -> FaceLandmarks {
        let m = try mesh.landmarks(in: image, region: region)
        guard let iris, m.presence >= minPresence else { return m }
        return try iris.refine(m, in: image)
    }

    /// The faces in `image`. When none is found and `retryZoomedOut` is set, the image is
    /// searched again zoomed out 2× (for tight face crops).
    public func faces(in image: Image, retryZoomedOut: Bool = true) throws -> [Face] {
        var found = try verified(image, zoomOut: 1)
        if found.isEmpty && retryZoomedOut { found = try verified(image, zoomOut: 2) }
        return found
    }

    private func verified(_ image: Image, zoomOut: Double) throws -> [Face] {
        try detector.detect(image, zoomOut: zoomOut).compactMap { detection in
            let region = FaceMesh.region(for: detection, imageWidth: image.width, imageHeight: image.height)
            let landmarks = try self.landmarks(in: image, region: region)
            return landmarks.presence >= minPresence ? Face(detection: detection, landmarks: landmarks) : nil
        }
    }
}
