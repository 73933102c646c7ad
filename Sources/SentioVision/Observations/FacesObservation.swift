/// The faces of one image or video frame, as `sentio faces --json`, the faces stream and the
/// apps report them (keys in docs/json.md).
public struct FacesObservation: Codable, Equatable, Sendable {
    /// The frame's index in its stream (absent for a still photo).
    public var frame: Int?
    /// The frame's time in seconds on the stream's clock (absent for a still photo).
    public var time: Double?
    /// The image's size as displayed, in pixels.
    public var width: Int
    public var height: Int
    public var faces: [ObservedFace]

    public init(frame: Int? = nil, time: Double? = nil, width: Int, height: Int, faces: [ObservedFace]) {
        (self.frame, self.time, self.width, self.height, self.faces) = (frame, time, width, height, faces)
    }
}

/// One face: where it is, the mesh and the signals the games react to.
public struct ObservedFace: Codable, Equatable, Sendable {
    /// The detector's box; on tracked frames (no detection ran) the mesh's bounding box.
    public var box: Box
    /// The detection's score; on tracked frames the mesh's presence.
    public var score: Double
    /// Probability that a face is in the mesh's region.
    public var presence: Double
    /// BlazeFace's six keypoints (right eye, left eye, nose tip, mouth, right and left ear
    /// tragion); empty on tracked frames.
    public var keypoints: [Point2]
    /// 468 mesh points (478 with irises), MediaPipe's order.
    public var landmarks: [Point3]
    public var signals: Signals

    public init(box: Box, score: Double, presence: Double, keypoints: [Point2], landmarks: [Point3], signals: Signals) {
        (self.box, self.score, self.presence, self.keypoints, self.landmarks, self.signals) = (box, score, presence, keypoints, landmarks, signals)
    }

    /// The measures of ``FaceSignals`` and the three decisions: on a still photo by the
    /// single-image thresholds, in a stream by the game's temporal detectors.
    public struct Signals: Codable, Equatable, Sendable {
        public var leftEAR: Double
        public var rightEAR: Double
        /// Mouth aspect ratio.
        public var mar: Double
        public var smile: Double
        public var jawOpen: Double
        /// Head pose in degrees.
        public var yaw: Double
        public var pitch: Double
        public var roll: Double
        public var eyesClosed: Bool
        public var mouthOpen: Bool
        public var smiling: Bool

        enum CodingKeys: String, CodingKey {
            case leftEAR, rightEAR, mar = "MAR", smile, jawOpen, yaw, pitch, roll, eyesClosed, mouthOpen, smiling
        }

        public init(_ s: FaceSignals, eyesClosed: Bool, mouthOpen: Bool, smiling: Bool) {
            (leftEAR, rightEAR, mar, smile, jawOpen) = (s.leftEAR, s.rightEAR, s.mar, s.smile, s.jawOpen)
            (yaw, pitch, roll) = (s.yaw, s.pitch, s.roll)
            (self.eyesClosed, self.mouthOpen, self.smiling) = (eyesClosed, mouthOpen, smiling)
        }

        /// Decisions on one photo alone (``FaceSignals/stillMouthOpen``, ``FaceSignals/stillSmile``).
        public static func still(_ s: FaceSignals) -> Signals {
            Signals(s, eyesClosed: s.eyesClosed(), mouthOpen: s.mouthOpen(openThreshold: FaceSignals.stillMouthOpen),
                    smiling: s.smile > FaceSignals.stillSmile)
        }
    }
}

extension ObservedFace {
    /// A face with its detection (a still photo, or a frame where detection ran).
    public init(_ face: Face, signals: Signals) {
        let b = face.detection.box
        self.init(box: Box(x: b.x, y: b.y, width: b.width, height: b.height), score: face.detection.score,
                  presence: face.landmarks.presence, keypoints: face.detection.keypoints.map { Point2(x: $0.x, y: $0.y) },
                  landmarks: face.landmarks.points.map { Point3(x: $0.x, y: $0.y, z: $0.z) }, signals: signals)
    }

    /// A tracked face: the mesh alone stands for the detection.
    public init(tracked mesh: FaceLandmarks, signals: Signals) {
        let points = mesh.points.map { Point3(x: $0.x, y: $0.y, z: $0.z) }
        self.init(box: Box(bounding: points), score: mesh.presence, presence: mesh.presence, keypoints: [], landmarks: points, signals: signals)
    }
}

extension FacesObservation {
    /// The faces of a still photo, each decided on alone.
    public init(still faces: [Face], width: Int, height: Int) {
        self.init(width: width, height: height, faces: faces.map {
            ObservedFace($0, signals: .still(FaceSignals($0.landmarks, imageWidth: width, imageHeight: height)))
        })
    }
}
