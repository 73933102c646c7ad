import Foundation
import SentioImage
import SentioNeural

/// Video mode: the next frame's region comes from this frame's mesh (MediaPipe's landmarks-to-
/// region rule: the points' bounding box, rotated by the outer eye corners, scaled 1.5 and
/// squared). Detection runs when no face is tracked and, while fewer than `maxFaces` are,
/// every `detectionInterval` frames, so a face that enters the frame is picked up; a
/// detection that overlaps a tracked face (IoU of the meshes' boxes over 0.5) is that face.
public final class FaceTracker {
    public let landmarker: FaceLandmarker
    public var minPresence: Double
    public var maxFaces: Int
    /// Frames between detections while at least one face but fewer than `maxFaces` are
    /// tracked (with none, every frame runs detection).
    public var detectionInterval: Int
    private var regions: [NormalizedRect] = []
    private var sinceDetection = 0
    /// How many frames ran detection (for tests and statistics).
    public private(set) var detections = 0

    public init(landmarker: FaceLandmarker, minPresence: Double = 0.5, maxFaces: Int = 1, detectionInterval: Int = 5) {
        self.landmarker = landmarker
        self.minPresence = minPresence
        self.maxFaces = maxFaces
        self.detectionInterval = max(1, detectionInterval)
    }

    /// Forgets the tracked faces (the next frame runs detection).
    public func reset() {
        regions = []
        sinceDetection = 0
    }

    /// The faces in the next frame of the video: the tracked ones first, in the order they
    /// were found.
    public func track(_ frame: Image) throws -> [FaceLandmarks] {
        var found: [FaceLandmarks] = []
        var boxes: [Box] = []
        for region in regions {
            let mesh = try landmarker.landmarks(in: frame, region: region)
            let box = Box(bounding: mesh.points.prefix(468).map { Point3(x: $0.x, y: $0.y, z: $0.z) })
            // Two regions that drifted onto one face keep the first.
            if mesh.presence >= minPresence, !boxes.contains(where: { $0.iou(box) > 0.5 }) {
                found.append(mesh)
                boxes.append(box)
            }
        }
        sinceDetection += 1
        if found.isEmpty || (found.count < maxFaces && sinceDetection >= detectionInterval) {
            detections += 1
            sinceDetection = 0
            for face in try landmarker.faces(in: frame, retryZoomedOut: false) where found.count < maxFaces {
                let box = Box(bounding: face.landmarks.points.prefix(468).map { Point3(x: $0.x, y: $0.y, z: $0.z) })
                guard !boxes.contains(where: { $0.iou(box) > 0.5 }) else { continue }
                found.append(face.landmarks)
                boxes.append(box)
            }
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

/// A clip's frames and their timing.
public struct Video: Sendable {
    public var frames: [Image]
    /// Frames per second: the Y4M header's rate; a folder of frames is taken as 30 per second.
    public var framesPerSecond: Double

    /// Seconds from the first frame to frame `index`.
    public func time(of index: Int) -> Double { Double(index) / framesPerSecond }
}

/// Frames of a video: a folder of images (in name order) or a Y4M file.
public enum VideoFrames {
    public static func load(_ path: String) throws -> Video {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImageError.unreadable(path: path, reason: "no such file or folder")
        }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
                .filter { ["png", "jpg", "jpeg", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            guard !names.isEmpty else { throw ImageError.unreadable(path: path, reason: "the folder holds no PNG, JPEG or WebP frames") }
            return Video(frames: try names.map { try ImageIO.read(path + "/" + $0) }, framesPerSecond: 30)
        }
        let (header, frames) = try Y4M.frames(FileIO.read(path), source: path)
        let rate = header.frameRate.denominator > 0 ? Double(header.frameRate.numerator) / Double(header.frameRate.denominator) : 0
        return Video(frames: frames, framesPerSecond: rate > 0 ? rate : 30)
    }
}
