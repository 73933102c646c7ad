/// BlazePose's 33 landmarks, named as Apple's Vision names body joints where it has a name
/// (`VNHumanBodyPoseObservation.JointName`) and after MediaPipe otherwise.
public enum BodyJoint: Int, Sendable, CaseIterable {
    case nose = 0
    case leftEyeInner, leftEye, leftEyeOuter, rightEyeInner, rightEye, rightEyeOuter
    case leftEar, rightEar, mouthLeft, mouthRight
    case leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
    case leftPinky, rightPinky, leftIndex, rightIndex, leftThumb, rightThumb
    case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle
    case leftHeel, rightHeel, leftFootIndex, rightFootIndex

    /// The 19 joints of Vision's body pose (`neck` and `root` are midpoints there; here they are
    /// computed by ``Pose/visionJoints``).
    public static let vision: [BodyJoint] = [.nose, .leftEye, .rightEye, .leftEar, .rightEar, .leftShoulder, .rightShoulder,
                                             .leftElbow, .rightElbow, .leftWrist, .rightWrist, .leftHip, .rightHip,
                                             .leftKnee, .rightKnee, .leftAnkle, .rightAnkle]

    public static let bones: [(BodyJoint, BodyJoint)] = [
        (.leftShoulder, .rightShoulder), (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist), (.rightShoulder, .rightElbow),
        (.rightElbow, .rightWrist), (.leftShoulder, .leftHip), (.rightShoulder, .rightHip), (.leftHip, .rightHip),
        (.leftHip, .leftKnee), (.leftKnee, .leftAnkle), (.rightHip, .rightKnee), (.rightKnee, .rightAnkle),
        (.leftAnkle, .leftHeel), (.leftHeel, .leftFootIndex), (.rightAnkle, .rightHeel), (.rightHeel, .rightFootIndex),
        (.nose, .leftEyeInner), (.nose, .rightEyeInner), (.leftEye, .leftEar), (.rightEye, .rightEar), (.mouthLeft, .mouthRight),
    ]
}

extension Pose {
    /// Vision's 19 body joints: the 17 shared ones plus `neck` (between the shoulders) and
    /// `root` (between the hips), by Vision's name.
    public var visionJoints: [String: Point2] {
        var joints: [String: Point2] = [:]
        let names: [BodyJoint: String] = [.nose: "nose", .leftEye: "leftEye", .rightEye: "rightEye", .leftEar: "leftEar",
                                          .rightEar: "rightEar", .leftShoulder: "leftShoulder", .rightShoulder: "rightShoulder",
                                          .leftElbow: "leftElbow", .rightElbow: "rightElbow", .leftWrist: "leftWrist",
                                          .rightWrist: "rightWrist", .leftHip: "leftHip", .rightHip: "rightHip", .leftKnee: "leftKnee",
                                          .rightKnee: "rightKnee", .leftAnkle: "leftAnkle", .rightAnkle: "rightAnkle"]
        for joint in BodyJoint.vision { joints[names[joint]!] = Point2(x: point(joint).x, y: point(joint).y) }
        func mid(_ a: BodyJoint, _ b: BodyJoint) -> Point2 { Point2(x: (point(a).x + point(b).x) / 2, y: (point(a).y + point(b).y) / 2) }
        joints["neck"] = mid(.leftShoulder, .rightShoulder)
        joints["root"] = mid(.leftHip, .rightHip)
        return joints
    }
}
