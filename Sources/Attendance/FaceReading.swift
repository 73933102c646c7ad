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
    /// Each eye's EAR from the eye model (SentioVision's `IrisLandmarker`), when measured: it sees
    /// a shut lid that the face mesh keeps open on stills (a wink, a laugh).
    public var leftEAR: Double?
    public var rightEAR: Double?
    /// How each eye looks against the cheek under it (SentioVision's `EyeVisibility`), when
    /// measured: a dark, even patch where an eye should be is a dark lens.
    public var leftEye: EyeLook?
    public var rightEye: EyeLook?

    public init(ear: Double, mar: Double, yaw: Double, pitch: Double, widthPixels: Double,
                leftEAR: Double? = nil, rightEAR: Double? = nil, leftEye: EyeLook? = nil, rightEye: EyeLook? = nil) {
        self.ear = ear
        self.mar = mar
        self.yaw = yaw
        self.pitch = pitch
        self.widthPixels = widthPixels
        self.leftEAR = leftEAR
        self.rightEAR = rightEAR
        self.leftEye = leftEye
        self.rightEye = rightEye
    }
}

/// One eye's look against the cheek under it: the spread of light inside the eye (75th − 25th
/// percentile of luminance) and its mean, both over the cheek's mean luminance.
public struct EyeLook: Codable, Sendable, Equatable {
    public var contrast: Double
    public var brightness: Double
    /// The skin just under the eye over the cheek: a lens darkens it too.
    public var underEye: Double

    public init(contrast: Double, brightness: Double, underEye: Double) {
        self.contrast = contrast
        self.brightness = brightness
        self.underEye = underEye
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
    case oneEyeClosed = "one-eye-closed"
    case eyesHidden = "eyes-hidden"

    public var message: String {
        switch self {
        case .noFace: "No face in view: look at the camera."
        case .severalFaces: "More than one face in view: one person at a time."
        case .tooSmall: "Your face is too small: come closer to the camera."
        case .turnedAway: "Your head is turned: look straight at the camera."
        case .eyesClosed: "Your eyes are closed: open them and look at the camera."
        case .oneEyeClosed: "One eye is closed: open both eyes and look at the camera."
        case .eyesHidden: "We cannot see your eyes: take off sunglasses or anything covering them."
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
    /// Shut eyes by the eye model: both eyes' mean EAR under this (measured on the identity
    /// fixtures: open eyes 0.194 and up; laughing and squeezed shut 0.05–0.06, Yale's sleepy
    /// 0.08–0.18).
    public var shutEyes = 0.16
    /// A wink by the eye model: the narrower eye's EAR under this share of the wider one's,
    /// and under `winkEAR` itself (open eyes: the lowest share 0.63; winks 0.46–0.57, and
    /// 0.7–0.9 for the four Yale winks half done).
    public var winkRatio = 0.6
    public var winkEAR = 0.2
    /// Hidden eyes (dark glasses): both eyes' insides even — the larger of their contrasts
    /// under `hiddenContrast` — or under `hiddenContrastDark` with the skin under an eye dark
    /// too (under `hiddenUnderEye` of the cheek). Chosen on the identity fixtures (docs/
    /// attendance.md, "Enrolment quality"): no open-eyed photo refused (the lowest contrast
    /// among them 0.105, the darkest under-eye among the low-contrast ones 0.93); of the same
    /// faces with dark lenses drawn, 162 of 167 refused as hidden eyes.
    public var hiddenContrast = 0.07
    public var hiddenContrastDark = 0.15
    public var hiddenUnderEye = 0.75
    /// …and always dark: the darker eye under this share of the cheek (a shut eyelid is skin,
    /// as light as the cheek; the drawn lenses measured at most 0.55).
    public var hiddenBrightness = 0.6

    public static let standard = FrameQuality()

    public init() {}

    /// The problem with `faces` (nil when exactly one usable face is in view).
    public func problem(_ faces: [FaceReading]) -> FrameProblem? {
        guard let face = faces.first else { return .noFace }
        guard faces.count == 1 else { return .severalFaces }
        if face.widthPixels < minFacePixels { return .tooSmall }
        if abs(face.yaw) > maxYaw || abs(face.pitch) > maxPitch { return .turnedAway }
        // Hidden eyes first: behind a lens the mesh's eye shape (EAR) means nothing.
        if let l = face.leftEye, let r = face.rightEye, min(l.brightness, r.brightness) < hiddenBrightness {
            let contrast = max(l.contrast, r.contrast), underEye = min(l.underEye, r.underEye)
            if contrast < hiddenContrast || (contrast < hiddenContrastDark && underEye < hiddenUnderEye) { return .eyesHidden }
        }
        // The eye model's EAR where measured (it sees shut lids; the mesh's misses some and
        // takes some deep-set open eyes for shut), else the mesh's.
        if let l = face.leftEAR, let r = face.rightEAR {
            if (l + r) / 2 < shutEyes { return .eyesClosed }
        } else if face.ear < openEyes {
            return .eyesClosed
        }
        if let l = face.leftEAR, let r = face.rightEAR, min(l, r) < winkEAR, min(l, r) < winkRatio * max(l, r) { return .oneEyeClosed }
        return nil
    }
}
