extension Image {
    /// This image in another pixel format: gray from colour by Rec. 601 luma, colour from gray
    /// by replication, alpha added opaque or dropped.
    public func converted(to target: PixelFormat) -> Image {
        if target == format { return self }
        let c = channels, tc = target.channels
        return withUnsafeBytes { src in
            Image(uninitializedWidth: width, height: height, format: target) { dst in
                for y in 0 ..< height {
                    var i = y * rowStride, o = y * width * tc
                    for _ in 0 ..< width {
                        if c == 1 {
                            let v = src[i]
                            dst[o] = v; dst[o + 1] = v; dst[o + 2] = v
                            if tc == 4 { dst[o + 3] = 255 }
                        } else if tc == 1 {
                            dst[o] = RGBA(src[i], src[i + 1], src[i + 2]).luma
                        } else {
                            dst[o] = src[i]; dst[o + 1] = src[i + 1]; dst[o + 2] = src[i + 2]
                            if tc == 4 { dst[o + 3] = 255 }
                        }
                        i += c
                        o += tc
                    }
                }
            }
        }
    }
}
