import SentioImage
import SentioNeural

/// A box in dlib's convention: integer pixel edges, `right` and `bottom` inclusive
/// (a 100-pixel-wide box has right = left + 99).
public struct DlibRectangle: Sendable, Hashable {
    public var left: Int, top: Int, right: Int, bottom: Int

    public init(left: Int, top: Int, right: Int, bottom: Int) {
        (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
    }

    public var width: Int { right - left + 1 }
    public var height: Int { bottom - top + 1 }
}

/// dlib's shape predictor: a cascade of ensembles of regression trees (Kazemi and Sullivan,
/// 2014) read from `shape_predictor_5_face_landmarks.dat` or `…_68_…`, evaluated as dlib
/// evaluates it, so the landmarks equal dlib's (integer pixel positions).
///
/// Each cascade level samples a few hundred pixel intensities at positions defined relative
/// to the current shape's nearest landmarks, walks every tree by comparing intensity
/// differences against thresholds, and adds the leaves' shape corrections.
public final class ShapePredictor: Sendable {
    /// Mean shape in box-normalized coordinates (0…1), x and y interleaved.
    let initialShape: [Float]
    let levels: [Level]

    struct Level: Sendable {
        /// Per sampled pixel: the landmark it hangs from and its offset in normalized units.
        var anchors: [Int32]
        var deltas: [(Float, Float)]
        /// Trees, each `depth` levels of splits stored breadth first.
        var splitPixels: [(Int32, Int32)]
        var thresholds: [Float]
        var leaves: [Float]
        var treeCount: Int
        var splitsPerTree: Int
    }

    /// Number of landmarks the model predicts (5 or 68 for dlib's face models).
    public var partCount: Int { initialShape.count / 2 }

    /// Reads a shape-predictor file; a damaged or different file gives a ``ModelError``.
    public convenience init(path: String) throws {
        try self.init(file: MappedFile(path: path))
    }

    public init(file: MappedFile) throws {
        var r = DlibReader(file.bytes)
        r.context = "shape predictor"
        guard try r.integer() == 1 else { throw r.fail("shape predictor version is not 1") }
        let initial = try r.matrix()
        guard initial.columns == 1, initial.rows >= 2, initial.rows % 2 == 0 else {
            throw r.fail("initial shape of \(initial.rows)×\(initial.columns) is not a column of x, y pairs")
        }
        let parts = initial.rows / 2
        let cascades = try r.count(max: 1000, "cascade")
        var forests: [(splits: [(Int32, Int32)], thresholds: [Float], leaves: [Float], trees: Int, splitsPerTree: Int)] = []
        for c in 0 ..< cascades {
            r.context = "shape predictor cascade \(c)"
            let trees = try r.count(max: 100_000, "tree")
            var splits: [(Int32, Int32)] = [], thresholds: [Float] = [], leaves: [Float] = []
            var splitsPerTree = -1
            for t in 0 ..< trees {
                let n = try r.count(max: 1 << 16, "split")
                // dlib requires full trees: 2^depth − 1 splits and one more leaf than splits.
                guard n > 0, (n + 1) & n == 0, splitsPerTree < 0 || n == splitsPerTree else {
                    throw r.fail("tree \(t) has \(n) splits (trees must be full and of one depth)")
                }
                splitsPerTree = n
                for _ in 0 ..< n {
                    let a = try r.integer(in: 0 ... Int(Int32.max), "split pixel")
                    let b = try r.integer(in: 0 ... Int(Int32.max), "split pixel")
                    splits.append((Int32(a), Int32(b)))
                    thresholds.append(Float(try r.floatingPoint()))
                }
                let leafCount = try r.count(max: 1 << 17, "leaf")
                guard leafCount == n + 1 else { throw r.fail("tree \(t) has \(leafCount) leaves for \(n) splits") }
                for _ in 0 ..< leafCount {
                    let m = try r.matrix(maxElements: 1 << 16)
                    guard m.rows == initial.rows, m.columns == 1 else { throw r.fail("leaf of \(m.rows)×\(m.columns) for \(parts) parts") }
                    leaves += m.values
                }
            }
            forests.append((splits, thresholds, leaves, trees, max(0, splitsPerTree)))
        }
        r.context = "shape predictor anchors"
        guard try r.count(max: 1000, "anchor list") == cascades else { throw r.fail("anchor lists do not match \(cascades) cascades") }
        var anchors: [[Int32]] = []
        for _ in 0 ..< cascades {
            let n = try r.count(max: 1 << 20, "anchor")
            anchors.append(try (0 ..< n).map { _ in Int32(try r.integer(in: 0 ... parts - 1, "anchor landmark")) })
        }
        r.context = "shape predictor deltas"
        guard try r.count(max: 1000, "delta list") == cascades else { throw r.fail("delta lists do not match \(cascades) cascades") }
        var levels: [Level] = []
        for c in 0 ..< cascades {
            let n = try r.count(max: 1 << 20, "delta")
            guard n == anchors[c].count else { throw r.fail("cascade \(c): \(n) deltas for \(anchors[c].count) anchors") }
            let deltas = try (0 ..< n).map { _ in (Float(try r.floatingPoint()), Float(try r.floatingPoint())) }
            let f = forests[c]
            guard f.splits.allSatisfy({ Int($0.0) < n && Int($0.1) < n }) else {
                throw r.fail("cascade \(c) compares a pixel beyond its \(n) sampled pixels")
            }
            levels.append(Level(anchors: anchors[c], deltas: deltas, splitPixels: f.splits, thresholds: f.thresholds,
                                leaves: f.leaves, treeCount: f.trees, splitsPerTree: f.splitsPerTree))
        }
        guard r.atEnd else { throw r.fail("\(r.bytes.count - r.offset) bytes after the model") }
        initialShape = initial.values
        self.levels = levels
    }

    /// The landmarks of the face in `box` (pixel coordinates, integers as dlib gives them).
    ///
    /// Intensities are dlib's: the integer mean of R, G and B; pixels outside the image read 0.
    public func predict(_ image: Image, box: DlibRectangle) -> [PixelPoint] {
        let rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        // Box-normalized → pixels: (0,0) ↦ top-left, (1,1) ↦ bottom-right (inclusive corners).
        let (bx, by) = (Double(box.left), Double(box.top))
        let (bw, bh) = (Double(box.right - box.left), Double(box.bottom - box.top))
        var shape = initialShape
        let parts = partCount
        rgb.withUnsafeBytes { pixels in
            let (width, height, stride) = (rgb.width, rgb.height, rgb.rowStride)
            var values: [Float] = []
            for level in levels {
                let m = similarity(from: initialShape, to: shape)
                values.removeAll(keepingCapacity: true)
                for (anchor, delta) in zip(level.anchors, level.deltas) {
                    let a = Int(anchor)
                    let u = m.0 * delta.0 + m.1 * delta.1 + shape[2 * a]
                    let v = m.2 * delta.0 + m.3 * delta.1 + shape[2 * a + 1]
                    let px = Int((bx + bw * Double(u) + 0.5).rounded(.down)), py = Int((by + bh * Double(v) + 0.5).rounded(.down))
                    if px >= 0, py >= 0, px < width, py < height {
                        let p = py * stride + px * 3
                        values.append(Float((Int(pixels[p]) + Int(pixels[p + 1]) + Int(pixels[p + 2])) / 3))
                    } else {
                        values.append(0)
                    }
                }
                let n = level.splitsPerTree
                let leafSize = 2 * parts
                values.withUnsafeBufferPointer { f in
                    for t in 0 ..< level.treeCount {
                        var i = 0
                        while i < n {
                            let (a, b) = level.splitPixels[t * n + i]
                            i = f[Int(a)] - f[Int(b)] > level.thresholds[t * n + i] ? 2 * i + 1 : 2 * i + 2
                        }
                        let leaf = (t * (n + 1) + i - n) * leafSize
                        for k in 0 ..< leafSize { shape[k] += level.leaves[leaf + k] }
                    }
                }
            }
        }
        return (0 ..< parts).map { i in
            PixelPoint(x: Int((bx + bw * Double(shape[2 * i]) + 0.5).rounded(.down)), y: Int((by + bh * Double(shape[2 * i + 1]) + 0.5).rounded(.down)))
        }
    }

    /// The scaled rotation (row-major 2×2, as Float like dlib's) of the least-squares similarity
    /// transform taking `from` onto `to` (Umeyama's solution, in closed form for 2-D).
    func similarity(from: [Float], to: [Float]) -> (Float, Float, Float, Float) {
        let m = SimilarityTransform.fit(from: stride(from: 0, to: from.count, by: 2).map { (Double(from[$0]), Double(from[$0 + 1])) },
                                        to: stride(from: 0, to: to.count, by: 2).map { (Double(to[$0]), Double(to[$0 + 1])) })
        return (Float(m.a), Float(-m.b), Float(m.b), Float(m.a))
    }
}

/// x' = a·x − b·y + tx, y' = b·x + a·y + ty: rotation, uniform scale and translation.
struct SimilarityTransform {
    var a: Double, b: Double, tx: Double, ty: Double

    /// Least squares over point pairs without reflection — the same transform as Umeyama's
    /// SVD solution that dlib's `find_similarity_transform` computes.
    static func fit(from: [(Double, Double)], to: [(Double, Double)]) -> SimilarityTransform {
        let n = Double(from.count)
        let mf = from.reduce((0.0, 0.0)) { ($0.0 + $1.0, $0.1 + $1.1) }, mt = to.reduce((0.0, 0.0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        let (fx, fy, tx, ty) = (mf.0 / n, mf.1 / n, mt.0 / n, mt.1 / n)
        var dot = 0.0, cross = 0.0, norm = 0.0
        for (p, q) in zip(from, to) {
            let (x, y, u, v) = (p.0 - fx, p.1 - fy, q.0 - tx, q.1 - ty)
            dot += x * u + y * v
            cross += x * v - y * u
            norm += x * x + y * y
        }
        let (a, b) = norm > 0 ? (dot / norm, cross / norm) : (1, 0)
        return SimilarityTransform(a: a, b: b, tx: tx - (a * fx - b * fy), ty: ty - (b * fx + a * fy))
    }

    func apply(_ x: Double, _ y: Double) -> (Double, Double) {
        (a * x - b * y + tx, b * x + a * y + ty)
    }
}

/// A pixel position in whole pixels (x right, y down from the top-left corner), as dlib's
/// shape predictor gives its landmarks.
public struct PixelPoint: Codable, Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        (self.x, self.y) = (x, y)
    }
}
