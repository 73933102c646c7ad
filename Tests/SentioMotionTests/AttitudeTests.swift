import Foundation
import SentioMotion
import SentioTestSupport
import Testing

/// Euler angles, reference frames and heading on rotations worked out by hand.
@Suite("Attitude conventions")
struct AttitudeTests {
    static let degree = Double.pi / 180

    static func about(_ axis: Vector3, _ degrees: Double) -> Quaternion { Quaternion(axis: axis, angle: degrees * degree) }

    static func motion(_ q: Quaternion) -> DeviceMotion {
        DeviceMotion(sample: IMUSample(time: 0, gyroscope: .zero, accelerometer: q.conjugate.rotate(Vector3(0, 0, 1))),
                     attitude: Attitude(quaternion: q))
    }

    @Test("yaw, pitch and roll come back from R = Rz(yaw)·Rx(pitch)·Ry(roll)")
    func eulerRoundTrip() {
        var random = SeededRandom(seed: 42)
        for _ in 0 ..< 500 {
            let (yaw, pitch, roll) = (random.uniform(-179, 179), random.uniform(-89, 89), random.uniform(-179, 179))
            let q = Self.about(Vector3(0, 0, 1), yaw) * Self.about(Vector3(1, 0, 0), pitch) * Self.about(Vector3(0, 1, 0), roll)
            let a = Attitude(quaternion: q)
            #expect(abs(a.yaw / Self.degree - yaw) < 1e-9 && abs(a.pitch / Self.degree - pitch) < 1e-9 && abs(a.roll / Self.degree - roll) < 1e-9,
                    "\(yaw), \(pitch), \(roll) → \(a.yaw / Self.degree), \(a.pitch / Self.degree), \(a.roll / Self.degree)")
        }
    }

    /// Lying flat, top edge north: all angles 0 in East-North-Up. Top edge raised 30°: pitch
    /// +30°. Right edge lowered 20°: roll +20°. Turned 30° to the left (counter-clockwise seen
    /// from above): yaw +30°, the top points 30° west of north, heading 330°.
    @Test("signs as Core Motion's: top up is +pitch, right edge down is +roll, turning left is +yaw")
    func signs() {
        let flat = Attitude(quaternion: .identity)
        #expect(flat.pitch == 0 && flat.roll == 0 && flat.yaw == 0)
        let topUp = Attitude(quaternion: Self.about(Vector3(1, 0, 0), 30))
        #expect(abs(topUp.pitch / Self.degree - 30) < 1e-12)
        #expect(topUp.quaternion.rotate(Vector3(0, 1, 0)).z > 0) // the top edge is above the horizon
        let rightDown = Attitude(quaternion: Self.about(Vector3(0, 1, 0), 20))
        #expect(abs(rightDown.roll / Self.degree - 20) < 1e-12)
        #expect(rightDown.quaternion.rotate(Vector3(1, 0, 0)).z < 0) // the right edge is below
        let left = Self.motion(Self.about(Vector3(0, 0, 1), 30))
        #expect(abs(left.attitude.yaw / Self.degree - 30) < 1e-12)
        #expect(abs(left.heading - 330) < 1e-9)
        #expect(abs(Self.motion(Self.about(Vector3(0, 0, 1), -90)).heading - 90) < 1e-9) // top to the east
    }

    /// Core Motion's north frame (x north, y west): lying flat with the top north, the right
    /// edge points east, so the device is a quarter turn clockwise from yaw 0 (right edge
    /// north): yaw −90°. Pitch and roll do not change.
    @Test("Core Motion's x-north frame: yaw a quarter turn less, pitch and roll equal")
    func coreMotionFrame() {
        let flat = Attitude(quaternion: .identity).expressed(in: .xNorthZVertical)
        #expect(abs(flat.yaw / Self.degree + 90) < 1e-12 && abs(flat.pitch) < 1e-12 && abs(flat.roll) < 1e-12)
        // The device's right edge (x) is east: in x-north, y-west coordinates that is −y.
        let east = flat.quaternion.rotate(Vector3(1, 0, 0))
        #expect((east - Vector3(0, -1, 0)).norm < 1e-12)
        var random = SeededRandom(seed: 7)
        for _ in 0 ..< 200 {
            let q = Self.about(Vector3(0, 0, 1), random.uniform(-179, 179)) * Self.about(Vector3(1, 0, 0), random.uniform(-89, 89))
                * Self.about(Vector3(0, 1, 0), random.uniform(-179, 179))
            let enu = Attitude(quaternion: q), cm = enu.expressed(in: .xNorthZVertical)
            var dyaw = (cm.yaw - enu.yaw) / Self.degree + 90
            dyaw -= 360 * (dyaw / 360).rounded()
            #expect(abs(cm.pitch - enu.pitch) < 1e-9 && abs(cm.roll - enu.roll) < 1e-9 && abs(dyaw) < 1e-9)
        }
    }

    /// Held upright in portrait, screen to the user, back camera to the north: the top points
    /// up, so the heading is the back's direction, north (0°); turned to face east, 90°.
    @Test("heading of an upright device is where its back faces")
    func uprightHeading() {
        let upright = Self.about(Vector3(1, 0, 0), 90)
        #expect(Self.motion(upright).heading < 1e-9 || Self.motion(upright).heading > 360 - 1e-9)
        let east = Self.about(Vector3(0, 0, 1), -90) * upright
        #expect(abs(Self.motion(east).heading - 90) < 1e-9)
        // Gravity in the sensor frame points down the device's −y axis when upright (in g).
        #expect((Self.motion(upright).gravity - Vector3(0, -1, 0)).norm < 1e-12)
    }
}
