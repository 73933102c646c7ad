import Foundation

/// What the face-played game reacts to, measured on one mesh.
public struct FaceSignals: Codable, Sendable, Equatable {
    /// Eye aspect ratio (Soukupová and Čech, 2016) of each eye: (|p2−p6| + |p3−p5|) / 2|p1−p4|,
    /// about 0.3 open and under 0.2 closed.
    public var leftEAR: Double
    public var rightEAR: Double
    /// Mouth aspect ratio: inner-lip opening over inner-mouth width (0 closed, ~1 wide open).
    public var mar: Double
    /// Mouth width over face width, rescaled so a neutral mouth is about 0 and a broad smile 1.
    public var smile: Double
    /// How far the jaw drops, 0 (closed) to 1 (MAR 0.6 and wider).
    public var jawOpen: Double
    /// Head rotation in degrees: yaw (positive turning to the subject's left), pitch (positive
    /// looking up), roll (positive tilting clockwise on screen).
    public var yaw: Double
    public var pitch: Double
    public var roll: Double
    /// The nose tip in normalized image coordinates (the game's cursor).
    public var noseTip: Point2


    /// Signals given directly (for replaying recorded values and for tests).
    public init(leftEAR: Double, rightEAR: Double, mar: Double, smile: Double, yaw: Double, pitch: Double, roll: Double,
                noseTip: Point2) {
        self.leftEAR = leftEAR
        self.rightEAR = rightEAR
        self.mar = mar
        self.smile = smile
        self.jawOpen = min(1, max(0, mar / 0.6))
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
        self.noseTip = noseTip
    }

    /// The six EAR points per eye: corner, two upper lid points, corner, two lower lid points.
    static let rightEyeEAR = [33, 160, 158, 133, 153, 144]
    static let leftEyeEAR = [362, 385, 387, 263, 373, 380]

    /// Signals of `mesh` in an image of `width`×`height` (distances are taken in pixels, so a
    /// non-square image does not bend the ratios).
    public init(_ mesh: FaceLandmarks, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        func p(_ i: Int) -> (Double, Double, Double) { (mesh.points[i].x * w, mesh.points[i].y * h, mesh.points[i].z * w) }
        func d(_ a: Int, _ b: Int) -> Double {
            let (ax, ay, _) = p(a), (bx, by, _) = p(b)
            return ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).squareRoot()
        }
        func ear(_ e: [Int]) -> Double { (d(e[1], e[5]) + d(e[2], e[4])) / max(1e-9, 2 * d(e[0], e[3])) }
        leftEAR = ear(Self.leftEyeEAR)
        rightEAR = ear(Self.rightEyeEAR)
        mar = d(13, 14) / max(1e-9, d(78, 308))
        // Neutral mouths span about 0.38 of the face width (cheek 234 to 454), broad smiles 0.5.
        smile = min(1, max(0, (d(61, 291) / max(1e-9, d(234, 454)) - 0.38) / 0.12))
        noseTip = Point2(x: mesh.points[1].x, y: mesh.points[1].y)

        let pose = HeadPose(mesh, imageWidth: imageWidth, imageHeight: imageHeight)
        yaw = pose.yaw
        pitch = pose.pitch
        roll = pose.roll
        jawOpen = min(1, max(0, mar / 0.6))
    }

    /// Thresholds for decisions on a single still photo, where no run of frames can confirm a
    /// gesture: any visible opening of the lips (MAR over 0.1) counts as open, and a smile
    /// score over 0.3 as smiling whatever the mouth does. The game's own thresholds (MAR 0.5,
    /// EAR 0.24 held for frames) are the defaults of the functions below and of the temporal
    /// detectors.
    public static let stillMouthOpen = 0.1
    public static let stillSmile = 0.3

    /// Decisions on one image: eyes closed when both EARs are under `earThreshold`, mouth open
    /// when MAR is over `openThreshold`, a closed-mouth smile when MAR is under `closedThreshold`
    /// and the smile score is over `smileThreshold`.
    public func eyesClosed(earThreshold: Double = 0.24) -> Bool { leftEAR < earThreshold && rightEAR < earThreshold }
    public func mouthOpen(openThreshold: Double = 0.5) -> Bool { mar > openThreshold }
    public func smiling(closedThreshold: Double = 0.24, smileThreshold: Double = 0.5) -> Bool { mar < closedThreshold && smile > smileThreshold }
}
