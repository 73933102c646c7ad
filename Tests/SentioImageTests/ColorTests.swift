import SentioImage
import Testing

@Suite("Colour")
struct ColorTests {
    /// Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula: implementation
    /// notes, supplementary test data, and mathematical observations", Table 1: all 34 pairs
    /// (L1, a1, b1, L2, a2, b2, ΔE00).
    static let sharma: [[Double]] = [
        [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
        [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
        [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
        [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
        [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
        [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
        [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
        [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
        [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
        [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
        [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
        [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
        [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
        [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
        [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
        [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
        [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
        [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
        [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
        [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
        [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
        [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
        [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
        [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082],
    ]

    @Test("ΔE2000 agrees with all 34 pairs of Sharma, Wu and Dalal to 1e-4, both ways round")
    func ciede2000() {
        #expect(Self.sharma.count == 34)
        for (i, row) in Self.sharma.enumerated() {
            let p = Lab(l: row[0], a: row[1], b: row[2]), q = Lab(l: row[3], a: row[4], b: row[5])
            let d = DeltaE.ciede2000(p, q)
            #expect(abs(d - row[6]) <= 1e-4, "pair \(i + 1): \(d) vs \(row[6])")
            #expect(abs(DeltaE.ciede2000(q, p) - row[6]) <= 1e-4, "pair \(i + 1) reversed")
        }
    }

    @Test("ΔE76 is the Euclidean distance in L*a*b*")
    func cie76() {
        // A 3-4-12 triangle: √(9 + 16 + 144) = 13.
        #expect(DeltaE.cie76(Lab(l: 50, a: 0, b: 0), Lab(l: 53, a: 4, b: 12)) == 13)
    }

    @Test("sRGB → XYZ → Lab gives the published values of the primaries and white")
    func conversions() {
        // White is the reference: L* 100, no chroma.
        let white = RGBA.white.lab
        #expect(abs(white.l - 100) < 1e-9 && abs(white.a) < 1e-9 && abs(white.b) < 1e-9)
        // sRGB red, green, blue under D65 (values as tabulated by Lindbloom's calculator).
        let red = RGBA(255, 0, 0).lab, green = RGBA(0, 255, 0).lab, blue = RGBA(0, 0, 255).lab
        #expect(abs(red.l - 53.24) < 0.02 && abs(red.a - 80.09) < 0.05 && abs(red.b - 67.20) < 0.05)
        #expect(abs(green.l - 87.73) < 0.02 && abs(green.a + 86.18) < 0.05 && abs(green.b - 83.18) < 0.05)
        #expect(abs(blue.l - 32.30) < 0.02 && abs(blue.a - 79.19) < 0.05 && abs(blue.b + 107.86) < 0.05)
        // Middle gray sRGB 119 has L* ≈ 50 (a well-known anchor: 18% reflectance ↔ L* 50).
        #expect(abs(RGBA(119, 119, 119).lightness - 50) < 0.3)
    }

    @Test("every 8-bit sRGB colour survives sRGB → Lab → sRGB", arguments: [0, 37, 128, 200, 255])
    func roundTrip(red: Int) {
        for g in stride(from: 0, through: 255, by: 15) {
            for b in stride(from: 0, through: 255, by: 15) {
                let c = RGBA(UInt8(red), UInt8(g), UInt8(b))
                let back = c.lab.xyz().linearRGB.srgb.rgba
                #expect(back == c)
            }
        }
    }

    @Test("mean colour averages light, not code values")
    func meanColor() throws {
        // A black/white checkerboard reflects half the light: linear 0.5, which sRGB encodes
        // as 1.055·0.5^(1/2.4) − 0.055 = 0.7354 → 188 (not 128).
        var board = try Image(width: 8, height: 8, format: .rgb8)
        for y in 0 ..< 8 { for x in 0 ..< 8 where (x + y) % 2 == 0 { for k in 0 ..< 3 { board[x, y, k] = 255 } } }
        let mean = try board.meanColor()
        #expect(abs(mean.r - 0.7354) < 1e-3 && mean.rgba == RGBA(188, 188, 188))
        let region = try board.meanColor(in: PixelRect(x: 0, y: 0, width: 1, height: 1))
        #expect(region.rgba == .white)
        #expect(abs(try board.lightness() - 76.07) < 0.05)  // L* of linear Y = 0.5
    }
}
