import Foundation

/// Debug overlays: every command that finds something can draw it onto a copy of its input.
extension Image {
    /// Blends `color` into pixel (x, y); outside the image nothing happens.
    @inlinable
    public mutating func blend(x: Int, y: Int, _ color: RGBA) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let a = Int(color.a)
        func mix(_ old: UInt8, _ new: UInt8) -> UInt8 { UInt8((Int(new) * a + Int(old) * (255 - a) + 127) / 255) }
        switch format {
        case .gray8:
            self[x, y, 0] = mix(self[x, y, 0], color.luma)
        case .rgb8, .rgba8:
            self[x, y, 0] = mix(self[x, y, 0], color.r)
            self[x, y, 1] = mix(self[x, y, 1], color.g)
            self[x, y, 2] = mix(self[x, y, 2], color.b)
            if format == .rgba8 { self[x, y, 3] = max(self[x, y, 3], color.a) }
        }
    }

    /// Sets every pixel of `rect` (clipped) to `color`, without blending.
    public mutating func fill(_ rect: PixelRect, with color: RGBA) {
        guard let r = rect.clamped(width: width, height: height) else { return }
        let px: [UInt8] = switch format {
        case .gray8: [color.luma]
        case .rgb8: [color.r, color.g, color.b]
        case .rgba8: [color.r, color.g, color.b, color.a]
        }
        let c = channels, stride = rowStride
        withUnsafeMutableBytes { dst in
            for y in r.y ..< r.y + r.height {
                for x in r.x ..< r.x + r.width {
                    for k in 0 ..< c { dst[y * stride + x * c + k] = px[k] }
                }
            }
        }
    }

    /// A filled disc of `radius` pixels centred on `p`.
    public mutating func drawPoint(_ p: Point, radius: Double = 2, color: RGBA) {
        let r = max(0.5, radius)
        let x0 = Int((p.x - r).rounded(.down)), x1 = Int((p.x + r).rounded(.up))
        let y0 = Int((p.y - r).rounded(.down)), y1 = Int((p.y + r).rounded(.up))
        for y in y0 ... y1 {
            for x in x0 ... x1 {
                let dx = Double(x) + 0.5 - p.x, dy = Double(y) + 0.5 - p.y
                if dx * dx + dy * dy <= r * r { blend(x: x, y: y, color) }
            }
        }
    }

    /// A line from `a` to `b`, `thickness` pixels wide.
    public mutating func drawLine(from a: Point, to b: Point, color: RGBA, thickness: Double = 1) {
        let length = max(abs(b.x - a.x), abs(b.y - a.y))
        let steps = max(1, Int(length.rounded(.up)))
        guard steps < 1 << 20 else { return }  // a point at infinity draws nothing
        if thickness <= 1 {
            for i in 0 ... steps {
                let t = Double(i) / Double(steps)
                blend(x: Int((a.x + (b.x - a.x) * t).rounded(.down)), y: Int((a.y + (b.y - a.y) * t).rounded(.down)), color)
            }
        } else {
            // Stamping discs is not the fastest line, but overlays are small and it is round at
            // joins (translucent colours darken where discs overlap; overlays use opaque ones).
            for i in 0 ... steps {
                let t = Double(i) / Double(steps)
                drawPoint(Point(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t), radius: thickness / 2, color: color)
            }
        }
    }

    /// Line segments through `points`, closed back to the first when `closed`.
    public mutating func drawPolyline(_ points: [Point], closed: Bool = false, color: RGBA, thickness: Double = 1) {
        guard points.count > 1 else {
            if let p = points.first { drawPoint(p, radius: thickness, color: color) }
            return
        }
        for i in 1 ..< points.count { drawLine(from: points[i - 1], to: points[i], color: color, thickness: thickness) }
        if closed { drawLine(from: points[points.count - 1], to: points[0], color: color, thickness: thickness) }
    }

    /// The outline of `rect` (or the filled rectangle when `filled`).
    public mutating func drawRectangle(_ rect: PixelRect, color: RGBA, thickness: Int = 1, filled: Bool = false) {
        if filled {
            for y in rect.y ..< rect.y + rect.height {
                for x in rect.x ..< rect.x + rect.width { blend(x: x, y: y, color) }
            }
            return
        }
        let t = max(1, thickness)
        for y in rect.y ..< rect.y + rect.height {
            for x in rect.x ..< rect.x + rect.width {
                let edge = x < rect.x + t || x >= rect.x + rect.width - t || y < rect.y + t || y >= rect.y + rect.height - t
                if edge { blend(x: x, y: y, color) }
            }
        }
    }

    /// The outline of a rotated rectangle.
    public mutating func drawRotatedRect(_ rect: RotatedRect, color: RGBA, thickness: Double = 1) {
        drawPolyline(rect.corners, closed: true, color: color, thickness: thickness)
    }

    /// A copy in RGB (or RGBA kept) so that coloured overlays show on gray inputs too.
    public func convertedForDrawing() -> Image {
        format == .gray8 ? converted(to: .rgb8) : self
    }
}
