/// Reference MAX_POOL_2D and AVERAGE_POOL_2D (the average counts only pixels inside the image).
enum ReferencePooling {
    static func run(x: FloatTensor, out: FloatTensor, window: Window, activation: Activation, max isMax: Bool) {
        let (n, h, w, c) = x.nhwc
        let (_, oh, ow, _) = out.nhwc
        let padT = window.vertical(input: h, filter: window.filterH).1
        let padL = window.horizontal(input: w, filter: window.filterW).1
        for b in 0 ..< n {
            for oy in 0 ..< oh {
                for ox in 0 ..< ow {
                    let y0 = max(0, oy * window.strideH - padT), y1 = min(h, oy * window.strideH - padT + window.filterH)
                    let x0 = max(0, ox * window.strideW - padL), x1 = min(w, ox * window.strideW - padL + window.filterW)
                    for k in 0 ..< c {
                        var acc: Float = isMax ? -.infinity : 0
                        for iy in y0 ..< max(y0, y1) {
                            for ix in x0 ..< max(x0, x1) {
                                let v = x.data[((b * h + iy) * w + ix) * c + k]
                                acc = isMax ? Swift.max(acc, v) : acc + v
                            }
                        }
                        if !isMax { acc /= Float(max(1, (y1 - y0) * (x1 - x0))) }
                        out.data[((b * oh + oy) * ow + ox) * c + k] = activation.apply(acc)
                    }
                }
            }
        }
    }
}
