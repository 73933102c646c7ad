import Foundation
import SentioImage
import SentioTestSupport
import SentioVision

enum VisionTestData {
    static let repository = Fixtures.repository(from: #filePath, levels: 3)
    static let fixtures = Fixtures.directory(repository: repository)

    /// MediaPipe's results on the fixture photos, from scripts/reference/mediapipe_solutions.py.
    static let mediapipeFaces = References.directory + "/mediapipe-0.10.21/faces.json"

    /// dlib 20.0.1 / face_recognition 1.3.0 on the fixture photos, from scripts/reference/dlib_faces.py.
    static let dlibFaces = References.directory + "/dlib-20.0.1/faces.json"

    /// The fixture photos the reference outputs were made on: the keys of those outputs are
    /// paths below the fixtures folder.
    static let photos = ["faces", "reference/images"]

    static func json(_ path: String) -> Any? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) }
    }

    static func images(under directory: String) -> [String] { Fixtures.images(under: directory) }
}

/// Intersection over union of two (x, y, width, height) boxes.
func iou(_ a: [Double], _ b: [Double]) -> Double {
    let x0 = max(a[0], b[0]), y0 = max(a[1], b[1]), x1 = min(a[0] + a[2], b[0] + b[2]), y1 = min(a[1] + a[3], b[1] + b[3])
    let inter = max(0, x1 - x0) * max(0, y1 - y0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)
}

/// Mean landmark distance between two meshes over the inter-ocular distance (outer eye corners
/// 33 and 263 of the reference), in pixels of a `w`×`h` image.
func meshError(_ ours: [Point3], _ theirs: [[Double]], w: Double, h: Double) -> Double {
    let iod = hypot((theirs[33][0] - theirs[263][0]) * w, (theirs[33][1] - theirs[263][1]) * h)
    let total = zip(ours, theirs).reduce(0.0) { $0 + hypot(($1.0.x - $1.1[0]) * w, ($1.0.y - $1.1[1]) * h) }
    return total / Double(theirs.count) / iod
}

extension Image {
    /// Mean absolute difference per channel value (same size and format).
    func meanAbsoluteDifference(_ other: Image) -> Double {
        let a = packedBytes, b = other.packedBytes
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }
}
