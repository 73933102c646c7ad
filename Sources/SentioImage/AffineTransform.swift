import Foundation

/// A 2-D affine map (x, y) ↦ (a·x + b·y + tx, c·x + d·y + ty) in continuous pixel coordinates.
public struct AffineTransform: Sendable, Hashable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(_ x: Double, _ y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(_ sx: Double, _ sy: Double) -> AffineTransform {
        AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// Rotation by `angle` radians; positive turns +x towards +y (clockwise on screen, where y
    /// points down).
    public static func rotation(_ angle: Double) -> AffineTransform {
        let cs = cos(angle), sn = sin(angle)
        return AffineTransform(a: cs, b: -sn, c: sn, d: cs, tx: 0, ty: 0)
    }

    /// Applies the map to `p`.
    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + b * p.y + tx, y: c * p.x + d * p.y + ty)
    }

    /// `self` after `first`: p ↦ self(first(p)).
    public func concatenating(after first: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * first.a + b * first.c, b: a * first.b + b * first.d,
                        c: c * first.a + d * first.c, d: c * first.b + d * first.d,
                        tx: a * first.tx + b * first.ty + tx, ty: c * first.tx + d * first.ty + ty)
    }

    /// The inverse map, or nil when the map is singular.
    public var inverted: AffineTransform? {
        let det = a * d - b * c
        guard abs(det) > 1e-12 else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineTransform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ib * ty), ty: -(ic * tx + id * ty))
    }
}
