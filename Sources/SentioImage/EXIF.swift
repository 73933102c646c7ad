/// The little of EXIF that Sentio needs: reading and writing the orientation tag.
public enum EXIF {
    static let orientationTag: UInt16 = 0x0112

    /// The orientation in an APP1 payload that starts with "Exif\0\0", or nil when it has none
    /// or is malformed (a damaged EXIF block never stops a picture from loading).
    public static func orientation(inAPP1 payload: [UInt8]) -> ImageOrientation? {
        guard payload.count >= 14, payload[0 ..< 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return nil }
        let tiff = Array(payload[6...])
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0 ..< count {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            if tag == Int(orientationTag) {
                // Type SHORT (3), count 1: the value sits in the first two bytes of the field.
                guard u16(entry + 2) == 3, let value = u16(entry + 8) else { return nil }
                return ImageOrientation(rawValue: value)
            }
        }
        return nil
    }

    /// A minimal APP1 payload ("Exif\0\0" + big-endian TIFF with one IFD entry) that carries
    /// `orientation`; what ``JPEG/encode(_:quality:progressive:orientation:)`` writes.
    public static func app1(orientation: ImageOrientation) -> [UInt8] {
        var bytes: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        bytes += [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]  // "MM", 42, IFD0 at offset 8
        bytes += [0, 1]  // one entry
        bytes += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation.rawValue), 0, 0]
        bytes += [0, 0, 0, 0]  // no next IFD
        return bytes
    }
}
