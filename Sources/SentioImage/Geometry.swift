/// A rectangle of whole pixels, origin at the top-left.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside a `width`×`height` image, or nil when nothing is left.
    public func clamped(width imageWidth: Int, height imageHeight: Int) -> PixelRect? {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(imageWidth, x + width), y1 = min(imageHeight, y + height)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// A point in continuous pixel coordinates: (0, 0) is the top-left corner of the top-left
/// pixel, whose centre is (0.5, 0.5).
public struct Point: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size in pixels.
public struct Size: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses "WxH" (as the CLI takes it).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
}
