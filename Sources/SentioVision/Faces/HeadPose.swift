import Foundation

/// Head pose fitted to a canonical 3-D face: the generic six-point face model of the
/// head-pose literature (nose tip at the origin, chin, outer eye corners, mouth corners; y up,
/// z towards the camera, arbitrary units) aligned to the same six mesh points in 3-D by Horn's
/// closed-form absolute orientation (the rotation is the top eigenvector of a 4×4 symmetric
/// matrix, found by power iteration).
public struct HeadPose: Sendable, Equatable {
    /// Degrees: yaw positive turning to the subject's left, pitch positive looking up, roll
    /// positive tilting clockwise on screen; the rotation is yaw · pitch · roll (roll applied
    /// first, in the face's own frame).
    public var yaw: Double
    public var pitch: Double
    public var roll: Double

    /// Canonical points and the mesh indices they correspond to.
    package static let model: [(point: (Double, Double, Double), index: Int)] = [
        ((0, 0, 0), 1),  // nose tip
        ((0, -330, -65), 152),  // chin
        ((-225, 170, -135), 33),  // outer corner of the eye on the image's left (subject's right)
        ((225, 170, -135), 263),  // outer corner of the other eye
        ((-150, -150, -125), 61),  // mouth corner, image left
        ((150, -150, -125), 291),  // mouth corner, image right
    ]

    /// The pose of `mesh` in a `width`×`height` image.
    public init(_ mesh: FaceLandmarks, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        // Mesh in the model's frame: x right, y up, z towards the camera (pixels).
        let observed = HeadPose.model.map { m -> (Double, Double, Double) in
            let p = mesh.points[m.index]
            return (p.x * w, -p.y * h, -p.z * w)
        }
        self = HeadPose.fit(HeadPose.model.map(\.point), observed)
    }

    /// The rotation taking `source` points onto `target` points (least squares), as angles.
    package static func fit(_ source: [(Double, Double, Double)], _ target: [(Double, Double, Double)]) -> HeadPose {
        func centred(_ pts: [(Double, Double, Double)]) -> [(Double, Double, Double)] {
            let n = Double(pts.count)
            let c = pts.reduce((0.0, 0.0, 0.0)) { ($0.0 + $1.0 / n, $0.1 + $1.1 / n, $0.2 + $1.2 / n) }
            return pts.map { ($0.0 - c.0, $0.1 - c.1, $0.2 - c.2) }
        }
        let p = centred(source), q = centred(target)
        var s = [[Double]](repeating: [0, 0, 0], count: 3)
        for (a, b) in zip(p, q) {
            let av = [a.0, a.1, a.2], bv = [b.0, b.1, b.2]
            for i in 0 ..< 3 { for j in 0 ..< 3 { s[i][j] += av[i] * bv[j] } }
        }
        let (xx, xy, xz, yx, yy, yz, zx, zy, zz) = (s[0][0], s[0][1], s[0][2], s[1][0], s[1][1], s[1][2], s[2][0], s[2][1], s[2][2])
        var n: [[Double]] = [
            [xx + yy + zz, yz - zy, zx - xz, xy - yx],
            [yz - zy, xx - yy - zz, xy + yx, zx + xz],
            [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
            [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
        ]
        // Shift so every eigenvalue is positive; power iteration then finds the largest.
        let shift = n.flatMap { $0 }.reduce(0) { $0 + abs($1) }
        for i in 0 ..< 4 { n[i][i] += shift }
        var v = [1.0, 0, 0, 0]
        for _ in 0 ..< 200 {
            var next = [0.0, 0, 0, 0]
            for i in 0 ..< 4 { for j in 0 ..< 4 { next[i] += n[i][j] * v[j] } }
            let norm = max(1e-300, next.reduce(0) { $0 + $1 * $1 }.squareRoot())
            v = next.map { $0 / norm }
        }
        let (qw, qx, qy, qz) = (v[0], v[1], v[2], v[3])
        // Rotation matrix columns: where the model's x, y (up) and z (forward) axes go.
        let forward = (2 * (qx * qz + qw * qy), 2 * (qy * qz - qw * qx), 1 - 2 * (qx * qx + qy * qy))
        let up = (2 * (qx * qy - qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qw * qx))
        // Angles of R = Ry(yaw) · Rx(pitch) · Rz(roll): yaw and pitch from the forward axis, roll
        // from the up axis once yaw and pitch are undone.
        let yaw = atan2(forward.0, forward.2), pitch = asin(max(-1, min(1, forward.1)))
        let ux = up.0 * cos(yaw) - up.2 * sin(yaw), uz = up.0 * sin(yaw) + up.2 * cos(yaw)
        let uy = up.1 * cos(pitch) - uz * sin(pitch)
        let degrees = 180 / Double.pi
        return HeadPose(yaw: yaw * degrees, pitch: pitch * degrees, roll: atan2(ux, uy) * degrees)
    }

    init(yaw: Double, pitch: Double, roll: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}
