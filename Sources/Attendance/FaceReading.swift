/// What the attendance rules need from one face in one frame: the face signals of Sentio's
/// face mesh (SentioVision's `FaceSignals`), taken over by the server, so the rules can be
/// tested on recorded values and the module needs no models.
public struct FaceReading: Codable, Sendable, Equatable {
    /// Eye aspect ratio, both eyes averaged (about 0.3 open, under 0.2 closed).
    public var ear: Double
    /// Mouth aspect ratio (0 closed, about 1 wide open).
    public var mar: Double
    /// Head rotation in degrees; yaw positive when the person turns to their left.
    public var yaw: Double
    public var pitch: Double
    /// The face box's width in the frame's pixels.
    public var widthPixels: Double

    public init(ear: Double, mar: Double, yaw: Double, pitch: Double, widthPixels: Double) {
        self.ear = ear
        self.mar = mar
        self.yaw = yaw
        self.pitch = pitch
        self.widthPixels = widthPixels
    }
}

/// One camera frame as the rules see it: when, and the faces in it.
public struct KioskFrame: Sendable, Equatable {
    /// Seconds, increasing (the frame's capture time on the kiosk or its arrival).
    public var time: Double
    public var faces: [FaceReading]

    public init(time: Double, faces: [FaceReading]) {
        self.time = time
        self.faces = faces
    }
}

/// Why a frame cannot serve for a face check; the kiosk shows the message and records nothing.
public enum FrameProblem: String, Codable, Sendable, Equatable {
    case noFace = "no-face"
    case severalFaces = "several-faces"
    case tooSmall = "too-small"
    case turnedAway = "turned-away"
    case eyesClosed = "eyes-closed"

    public var message: String {
        switch self {
        case .noFace: "No face in view: look at the camera."
        case .severalFaces: "More than one face in view: one person at a time."
        case .tooSmall: "Your face is too small: come closer to the camera."
        case .turnedAway: "Your head is turned: look straight at the camera."
        case .eyesClosed: "Your eyes are closed: open them and look at the camera."
        }
    }
}

/// Which frames may serve for a face check (the verification frame and enrolment photos).
public struct FrameQuality: Codable, Sendable, Equatable {
    /// The face box at least this wide in pixels (dlib's descriptor is made from a 150-pixel
    /// chip; much smaller faces lose the detail it needs).
    public var minFacePixels = 80.0
    /// Head turned or tilted at most this many degrees.
    public var maxYaw = 20.0
    public var maxPitch = 20.0
    /// Eyes counted open over this EAR.
    public var openEyes = 0.18

    public static let standard = FrameQuality()

    public init() {}

    /// The problem with `faces` (nil when exactly one usable face is in view).
    public func problem(_ faces: [FaceReading]) -> FrameProblem? {
        guard let face = faces.first else { return .noFace }
        guard faces.count == 1 else { return .severalFaces }
        if face.widthPixels < minFacePixels { return .tooSmall }
        if abs(face.yaw) > maxYaw || abs(face.pitch) > maxPitch { return .turnedAway }
        if face.ear < openEyes { return .eyesClosed }
        return nil
    }
}
