import Foundation

/// Colour differences.
public enum DeltaE {
    /// CIE 1976 ΔE*ab: Euclidean distance in L*a*b*.
    public static func cie76(_ p: Lab, _ q: Lab) -> Double {
        let dl = p.l - q.l, da = p.a - q.a, db = p.b - q.b
        return (dl * dl + da * da + db * db).squareRoot()
    }

    /// CIEDE2000 (ΔE00) with parametric factors kL = kC = kH = 1 unless given, following the
    /// implementation notes of Sharma, Wu and Dalal (2005), including their rules for hue
    /// angles at zero chroma and the mean hue across 180°.
    public static func ciede2000(_ p: Lab, _ q: Lab, kL: Double = 1, kC: Double = 1, kH: Double = 1) -> Double {
        let deg = Double.pi / 180
        let c1 = p.chroma, c2 = q.chroma
        let cMean = (c1 + c2) / 2
        let cMean7 = pow(cMean, 7)
        let g = 0.5 * (1 - (cMean7 / (cMean7 + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * p.a, a2 = (1 + g) * q.a
        let c1p = (a1 * a1 + p.b * p.b).squareRoot(), c2p = (a2 * a2 + q.b * q.b).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) / deg
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(p.b, a1), h2 = hue(q.b, a2)

        let dL = q.l - p.l
        let dC = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * deg)

        let lMean = (p.l + q.l) / 2
        let cpMean = (c1p + c2p) / 2
        var hMean = h1 + h2
        if c1p * c2p != 0 {
            if abs(h1 - h2) <= 180 { hMean = (h1 + h2) / 2 }
            else if h1 + h2 < 360 { hMean = (h1 + h2 + 360) / 2 }
            else { hMean = (h1 + h2 - 360) / 2 }
        }
        let t = 1 - 0.17 * cos((hMean - 30) * deg) + 0.24 * cos(2 * hMean * deg)
            + 0.32 * cos((3 * hMean + 6) * deg) - 0.20 * cos((4 * hMean - 63) * deg)
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let cpMean7 = pow(cpMean, 7)
        let rC = 2 * (cpMean7 / (cpMean7 + pow(25, 7))).squareRoot()
        let l50 = (lMean - 50) * (lMean - 50)
        let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sC = 1 + 0.045 * cpMean
        let sH = 1 + 0.015 * cpMean * t
        let rT = -sin(2 * dTheta * deg) * rC
        let x = dL / (kL * sL), y = dC / (kC * sC), z = dH / (kH * sH)
        return (x * x + y * y + z * z + rT * y * z).squareRoot()
    }
}
