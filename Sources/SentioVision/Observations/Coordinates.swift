/// A point normalized to the image (top-left origin, as displayed), encoded as `[x, y]`.
public struct Point2: Codable, Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
    }

    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self)
        y = try c.decode(Double.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x)
        try c.encode(y)
    }
}

/// A landmark, encoded as `[x, y, z]`: x and y normalized to the image, z on the scale of x
/// (negative towards the camera) — or, for world landmarks, metres.
public struct Point3: Codable, Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        (self.x, self.y, self.z) = (x, y, z)
    }

    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self)
        y = try c.decode(Double.self)
        z = try c.decode(Double.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x)
        try c.encode(y)
        try c.encode(z)
    }
}

/// A body landmark with its visibility, encoded as `[x, y, z, visibility]`.
public struct PoseLandmark: Codable, Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// Probability that the landmark is visible (not occluded, in the frame).
    public var visibility: Double

    public init(x: Double, y: Double, z: Double, visibility: Double) {
        (self.x, self.y, self.z, self.visibility) = (x, y, z, visibility)
    }

    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self)
        y = try c.decode(Double.self)
        z = try c.decode(Double.self)
        visibility = try c.decode(Double.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x)
        try c.encode(y)
        try c.encode(z)
        try c.encode(visibility)
    }
}

/// An axis-aligned box normalized to the image: the top-left corner, width and height.
public struct Box: Codable, Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The smallest box holding `points` (zero at the origin when there are none).
    public init<S: Sequence>(bounding points: S) where S.Element == Point3 {
        var (x0, y0, x1, y1) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for p in points {
            (x0, y0, x1, y1) = (min(x0, p.x), min(y0, p.y), max(x1, p.x), max(y1, p.y))
        }
        if x0 > x1 { (x0, y0, x1, y1) = (0, 0, 0, 0) }
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Intersection over union with `other` (0 when either is empty).
    public func iou(_ other: Box) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let inter = w * h
        return inter / (width * height + other.width * other.height - inter)
    }
}
