/// How stored pixels map onto the picture as it is meant to be displayed: EXIF tag 0x0112,
/// named as Apple's `CGImagePropertyOrientation` names the same eight values.
public enum ImageOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// 1: stored as displayed.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: transposed (stored row 0 is the displayed left column, stored column 0 the top row).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to display.
    case right = 6
    /// 7: transversed (stored row 0 is the displayed right column, column 0 the bottom row).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case left = 8

    /// True when displaying swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    public var description: String { "\(rawValue) (\(self.name))" }

    /// The Swift name of the case, for messages and JSON.
    public var name: String {
        switch self {
        case .up: "up"
        case .upMirrored: "upMirrored"
        case .down: "down"
        case .downMirrored: "downMirrored"
        case .leftMirrored: "leftMirrored"
        case .right: "right"
        case .rightMirrored: "rightMirrored"
        case .left: "left"
        }
    }
}

extension Image {
    /// The picture as displayed, given that these are the stored pixels of a file with
    /// `orientation`.
    public func applying(_ orientation: ImageOrientation) -> Image {
        if orientation == .up { return self }
        let c = channels, s = rowStride, w = width, h = height
        // Display pixel (x, y) reads source byte start + x·stepX + y·stepY.
        let (start, stepX, stepY): (Int, Int, Int) = switch orientation {
        case .up: (0, c, s)
        case .upMirrored: ((w - 1) * c, -c, s)
        case .down: ((h - 1) * s + (w - 1) * c, -c, -s)
        case .downMirrored: ((h - 1) * s, c, -s)
        case .leftMirrored: (0, s, c)
        case .right: ((h - 1) * s, -s, c)
        case .rightMirrored: ((h - 1) * s + (w - 1) * c, -s, -c)
        case .left: ((w - 1) * c, s, -c)
        }
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        return withUnsafeBytes { src in
            Image(uninitializedWidth: outW, height: outH, format: format) { dst in
                var o = 0
                for y in 0 ..< outH {
                    var i = start + y * stepY
                    for _ in 0 ..< outW {
                        for k in 0 ..< c { dst[o + k] = src[i + k] }
                        o += c
                        i += stepX
                    }
                }
            }
        }
    }
}
