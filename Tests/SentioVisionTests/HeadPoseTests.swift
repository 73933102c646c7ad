import Foundation
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

@Suite("Head pose")
struct HeadPoseTests {
    /// The canonical points turned by known angles (roll about z, then pitch about x, then yaw
    /// about y, each by the signs the API promises) must give those angles back.
    @Test("recovers yaw, pitch and roll of a rotated canonical face", arguments: [(20.0, 0.0, 0.0), (0, 15, 0), (0, 0, -25), (-30, 10, 5)])
    func synthetic(angles: (Double, Double, Double)) {
        let (yaw, pitch, roll) = (angles.0 * .pi / 180, angles.1 * .pi / 180, angles.2 * .pi / 180)
        func rotate(_ p: (Double, Double, Double)) -> (Double, Double, Double) {
            // Yaw: forward (+z) swings towards +x. Pitch: forward swings towards +y (up).
            // Roll first (up, +y, tips towards +x: clockwise on screen), then pitch, then yaw.
            var (x, y, z) = p
            (x, y) = (x * cos(roll) + y * sin(roll), -x * sin(roll) + y * cos(roll))
            (y, z) = (y * cos(pitch) + z * sin(pitch), -y * sin(pitch) + z * cos(pitch))
            (x, z) = (x * cos(yaw) + z * sin(yaw), -x * sin(yaw) + z * cos(yaw))
            return (x, y, z)
        }
        let model = HeadPose.model.map(\.point)
        let pose = HeadPose.fit(model, model.map(rotate))
        #expect(abs(pose.yaw - angles.0) < 0.5 && abs(pose.pitch - angles.1) < 0.5 && abs(pose.roll - angles.2) < 0.5,
                "got \(pose.yaw), \(pose.pitch), \(pose.roll)")
    }

    @Test("a frontal photo faces the camera; a mirrored photo turns yaw and roll around", .requires(fixture: "reference/images/grace_hopper.png"))
    func photos() throws {
        let photo = try ImageIO.read(try Requirement.fixture("reference/images/grace_hopper.png").path())
        let landmarker = try FaceLandmarker(threads: 1)
        let face = try #require(try landmarker.faces(in: photo).first)
        let pose = HeadPose(face.landmarks, imageWidth: photo.width, imageHeight: photo.height)
        #expect(abs(pose.yaw) < 15 && abs(pose.pitch) < 20 && abs(pose.roll) < 10, "\(pose)")
        let mirrored = photo.applying(.upMirrored)
        let other = try #require(try landmarker.faces(in: mirrored).first)
        let mirroredPose = HeadPose(other.landmarks, imageWidth: photo.width, imageHeight: photo.height)
        #expect(abs(mirroredPose.yaw + pose.yaw) < 3 && abs(mirroredPose.roll + pose.roll) < 3 && abs(mirroredPose.pitch - pose.pitch) < 3,
                "\(pose) vs mirrored \(mirroredPose)")
    }
}
