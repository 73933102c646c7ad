import Foundation

/// A colour in sRGB with components in [0, 1] (gamma-encoded, as stored in files).
public struct SRGB: Sendable, Hashable {
    public var r, g, b: Double
    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    public init(_ c: RGBA) {
        self.init(r: Double(c.r) / 255, g: Double(c.g) / 255, b: Double(c.b) / 255)
    }

    /// The nearest 8-bit colour (components clamped to [0, 1]).
    public var rgba: RGBA {
        func q(_ v: Double) -> UInt8 { UInt8((min(1, max(0, v)) * 255).rounded()) }
        return RGBA(q(r), q(g), q(b))
    }

    /// Linear-light RGB (IEC 61966-2-1 transfer function).
    public var linear: LinearRGB {
        LinearRGB(r: SRGB.decode(r), g: SRGB.decode(g), b: SRGB.decode(b))
    }

    /// CIE XYZ under D65.
    public var xyz: XYZ { linear.xyz }
    /// CIE L*a*b* (D65 white).
    public var lab: Lab { linear.xyz.lab }

    /// sRGB electro-optical transfer: encoded value → linear light.
    @inlinable public static func decode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Inverse transfer: linear light → encoded value.
    @inlinable public static func encode(_ v: Double) -> Double {
        v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
}

/// Linear-light RGB with sRGB primaries.
public struct LinearRGB: Sendable, Hashable {
    public var r, g, b: Double
    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    public var srgb: SRGB { SRGB(r: SRGB.encode(r), g: SRGB.encode(g), b: SRGB.encode(b)) }

    /// CIE XYZ (D65), with the matrix of IEC 61966-2-1.
    public var xyz: XYZ {
        XYZ(x: 0.4124 * r + 0.3576 * g + 0.1805 * b,
            y: 0.2126 * r + 0.7152 * g + 0.0722 * b,
            z: 0.0193 * r + 0.1192 * g + 0.9505 * b)
    }
}

/// CIE 1931 XYZ with Y = 1 for the reference white.
public struct XYZ: Sendable, Hashable {
    public var x, y, z: Double
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The D65 white point of sRGB (the rows of the matrix above, summed).
    public static let d65 = XYZ(x: 0.9505, y: 1.0, z: 1.0890)

    /// Back to linear sRGB (inverse of the IEC 61966-2-1 matrix).
    public var linearRGB: LinearRGB {
        LinearRGB(r: 3.2406255 * x - 1.5372080 * y - 0.4986286 * z,
                  g: -0.9689307 * x + 1.8757561 * y + 0.0415175 * z,
                  b: 0.0557101 * x - 0.2040211 * y + 1.0569959 * z)
    }

    /// CIE L*a*b* relative to `white`.
    public func lab(white: XYZ = .d65) -> Lab {
        func f(_ t: Double) -> Double { t > Lab.epsilon ? cbrt(t) : (Lab.kappa * t + 16) / 116 }
        let fx = f(x / white.x), fy = f(y / white.y), fz = f(z / white.z)
        return Lab(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    public var lab: Lab { lab() }
}

/// CIE 1976 L*a*b*.
public struct Lab: Sendable, Hashable {
    /// Lightness, 0 (black) to 100 (white).
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    // CIE's exact rational constants (ε = 216/24389, κ = 24389/27).
    static let epsilon = 216.0 / 24389.0
    static let kappa = 24389.0 / 27.0

    /// Back to XYZ relative to `white`.
    public func xyz(white: XYZ = .d65) -> XYZ {
        let fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
        func finv(_ f: Double) -> Double { let c = f * f * f; return c > Lab.epsilon ? c : (116 * f - 16) / Lab.kappa }
        let yr = l > Lab.kappa * Lab.epsilon ? fy * fy * fy : l / Lab.kappa
        return XYZ(x: finv(fx) * white.x, y: yr * white.y, z: finv(fz) * white.z)
    }

    /// Chroma C*ab.
    public var chroma: Double { (a * a + b * b).squareRoot() }
    /// Hue angle h_ab in degrees, [0, 360).
    public var hue: Double { let h = atan2(b, a) * 180 / .pi; return h < 0 ? h + 360 : h }
}

extension RGBA {
    /// Perceived lightness L* (CIE 1976), 0–100.
    public var lightness: Double { SRGB(self).lab.l }
    public var lab: Lab { SRGB(self).lab }
}
