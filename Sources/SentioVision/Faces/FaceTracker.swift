import Foundation
import SentioImage
import SentioNeural

/// Video mode: the next frame's region comes from this frame's mesh (MediaPipe's landmarks-to-
/// region rule: the points' bounding box, rotated by the outer eye corners, scaled 1.5 and
/// squared), and detection runs again only when no face is tracked or presence falls below
/// `minPresence`.
public final class FaceTracker {
    public let landmarker: FaceLandmarker
    public var minPresence: Double
    public var maxFaces: Int
    private var regions: [NormalizedRect] = []
    /// How many frames ran detection (for tests and statistics).
    public private(set) var detections = 0

    public init(landmarker: FaceLandmarker, minPresence: Double = 0.5, maxFaces: Int = 1) {
        self.landmarker = landmarker
        self.minPresence = minPresence
        self.maxFaces = maxFaces
    }

    /// Forgets the tracked faces (the next frame runs detection).
    public func reset() { regions = [] }

    /// The faces in the next frame of the video.
    public func track(_ frame: Image) throws -> [FaceLandmarks] {
        var found: [FaceLandmarks] = []
        for region in regions {
            let mesh = try landmarker.landmarks(in: frame, region: region)
            if mesh.presence >= minPresence { found.append(mesh) }
        }
        if found.isEmpty {
            detections += 1
            found = try landmarker.faces(in: frame, retryZoomedOut: false).prefix(maxFaces).map(\.landmarks)
        }
        regions = found.map { FaceTracker.region(from: $0, imageWidth: frame.width, imageHeight: frame.height) }
        return found
    }

    /// The region for the next frame from this frame's mesh.
    public static func region(from mesh: FaceLandmarks, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let xs = mesh.points.prefix(468).map(\.x), ys = mesh.points.prefix(468).map(\.y)
        let x0 = xs.min() ?? 0, x1 = xs.max() ?? 0, y0 = ys.min() ?? 0, y1 = ys.max() ?? 0
        let right = mesh.points[33], left = mesh.points[263]
        let angle = normalizeRadians(-atan2(-(left.y - right.y) * Double(imageHeight), (left.x - right.x) * Double(imageWidth)))
        let rect = NormalizedRect(xCenter: (x0 + x1) / 2, yCenter: (y0 + y1) / 2, width: x1 - x0, height: y1 - y0, rotation: angle)
        return rect.transformed(scaleX: 1.5, scaleY: 1.5, squareLong: true, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}

/// Frames of a video: a folder of images (in name order) or a Y4M file.
public enum VideoFrames {
    public static func load(_ path: String) throws -> [Image] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImageError.unreadable(path: path, reason: "no such file or folder")
        }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
                .filter { ["png", "jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            guard !names.isEmpty else { throw ImageError.unreadable(path: path, reason: "the folder holds no PNG or JPEG frames") }
            return try names.map { try ImageIO.read(path + "/" + $0) }
        }
        return try Y4M.frames(FileIO.read(path), source: path).1
    }
}
