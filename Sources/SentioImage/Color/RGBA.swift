/// An 8-bit sRGB colour with straight (not premultiplied) alpha.
public struct RGBA: Sendable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    public static let black = RGBA(0, 0, 0)
    public static let white = RGBA(255, 255, 255)
    public static let red = RGBA(230, 40, 40)
    public static let green = RGBA(40, 200, 60)
    public static let blue = RGBA(40, 90, 230)
    public static let yellow = RGBA(250, 220, 30)
    public static let cyan = RGBA(30, 220, 230)
    public static let magenta = RGBA(220, 40, 220)

    /// Luma by Rec. 601 weights, as JPEG's gray conversion uses.
    public var luma: UInt8 {
        let weighted: Int = Int(r) * 299 + Int(g) * 587 + Int(b) * 114
        return UInt8((weighted + 500) / 1000)
    }
}
