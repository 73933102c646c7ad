import SentioImage
import SentioNeural

/// A face found by dlib's CNN face detector.
public struct MMODDetection: Sendable, Equatable {
    /// The detection window in the image (may reach past its edges).
    public var box: DlibRectangle
    /// The net's score at the window (detections have a score above 0, or above the
    /// threshold given).
    public var confidence: Double

    public init(box: DlibRectangle, confidence: Double) {
        (self.box, self.confidence) = (box, confidence)
    }
}

/// dlib's CNN face detector (`mmod_human_face_detector.dat`, the `cnn` model of
/// face_recognition), on SentioNeural: the image and its smaller copies tiled into one input
/// (``TiledImagePyramid``), one score per position of a fixed window (80×80 in this file), and dlib's
/// decoding — windows mapped back to the image, sorted by score, non-maximum suppression.
/// Finds faces of about the window's size and larger, half that per `upsample` step.
///
/// Not thread-safe (it owns an interpreter): use one per thread.
public final class MMODFaceDetector {
    private let file: MappedFile
    private let threads: Int?
    /// The detector's windows and pyramid, as the file gives them.
    public let options: MMODOptions
    public let pyramid: ImagePyramidInput
    /// The net planned for the last tiled size, kept while images keep that size (video).
    private var planned: (rows: Int, columns: Int, net: DlibDetectorNet, interpreter: Interpreter)?

    public convenience init(store: ModelStore = ModelStore(), threads: Int? = nil) throws {
        try self.init(path: store.path(of: "mmod_human_face_detector"), threads: threads)
    }

    public convenience init(path: String, threads: Int? = nil) throws {
        try self.init(file: MappedFile(path: path), threads: threads)
    }

    public init(file: MappedFile, threads: Int? = nil) throws {
        self.file = file
        self.threads = threads
        // Read once now, so a bad file fails here rather than at the first image.
        let probe = try DlibNetLoader.loadDetector(file, rows: 64, columns: 64)
        (options, pyramid) = (probe.options, probe.pyramid)
    }

    /// The faces in `image`, best first. `upsample` doubles the image that many times first
    /// (dlib's `upsample_num_times`: finds faces half as large per step, four times slower);
    /// `threshold` is dlib's `adjust_threshold`: below 0 it returns more, less certain faces.
    public func detect(_ image: Image, upsample: Int = 0, threshold: Double = 0) throws -> [MMODDetection] {
        guard (0 ... 4).contains(upsample) else { throw ModelError.invalidInput("upsample is 0 to 4 times, not \(upsample)") }
        var rgb = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        for _ in 0 ..< upsample { rgb = try dlibPyramidUp(rgb) }
        // A few pixels hold no face, and the net's three strided convolutions need 29 rows and
        // columns (the image plus twice the outer padding) to give any output. Faces a little
        // smaller than the window, cut by the edges, are still found (dlib does the same).
        guard rgb.width >= 8, rgb.height >= 8 else { return [] }
        let pyramid = TiledImagePyramid(rows: rgb.height, columns: rgb.width, downsampling: self.pyramid.downsampling,
                                        padding: self.pyramid.padding, outerPadding: self.pyramid.outerPadding)
        let (net, interpreter) = try prepared(rows: pyramid.rows, columns: pyramid.columns)
        try interpreter.withInput(0) { pyramid.fill($0, image: rgb, mean: net.pyramid.mean) }
        try interpreter.run()
        let shape = interpreter.outputShape(0)
        let found = MMODFaceDetector.decode(scores: interpreter.output(0), rows: shape[1], columns: shape[2], net: net,
                                            pyramid: pyramid, threshold: threshold)
        guard upsample > 0 else { return found }
        // Back through the 2:1 pyramid: p/2 − (1.25, 0.75) per level (dlib's rect_down).
        return found.map { d in
            var (l, t, r, b) = (Double(d.box.left), Double(d.box.top), Double(d.box.right), Double(d.box.bottom))
            for _ in 0 ..< upsample { (l, t, r, b) = (l / 2 - 1.25, t / 2 - 0.75, r / 2 - 1.25, b / 2 - 0.75) }
            return MMODDetection(box: DlibRectangle(left: Int(l.rounded()), top: Int(t.rounded()), right: Int(r.rounded()), bottom: Int(b.rounded())),
                                 confidence: d.confidence)
        }
    }

    private func prepared(rows: Int, columns: Int) throws -> (DlibDetectorNet, Interpreter) {
        if let p = planned, p.rows == rows, p.columns == columns { return (p.net, p.interpreter) }
        planned = nil
        var net = try DlibNetLoader.loadDetector(file, rows: rows, columns: columns)
        let graph = net.graph
        net.graph = Graph(tensors: [], nodes: [], inputs: [], outputs: [], format: graph.format)
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(graph: graph, threads: threads ?? 1)
        } catch {
            throw ModelError.invalidInput("the CNN face detector's image pyramid (\(columns)×\(rows)) is too large to run; "
                + "scale the image down (\(error))")
        }
        planned = (rows, columns, net, interpreter)
        return (net, interpreter)
    }

    /// dlib's `loss_mmod_::to_label`: every position scoring above `threshold` becomes its
    /// window, centred on the position's place in the input, mapped back to the image and
    /// rounded to whole pixels; then best first, dropping any that overlaps one kept.
    static func decode(scores: [Float], rows: Int, columns: Int, net: DlibDetectorNet, pyramid: TiledImagePyramid,
                       threshold: Double) -> [MMODDetection] {
        let windows = net.options.windows
        let channels = scores.count / max(1, rows * columns)
        var found: [MMODDetection] = []
        for (k, window) in windows.enumerated() {
            for r in 0 ..< rows {
                for c in 0 ..< columns {
                    let score = Double(scores[(r * columns + c) * channels + k])
                    guard score > threshold else { continue }
                    let (x, y) = (Double(c * net.stride + net.offset), Double(r * net.stride + net.offset))
                    // dlib's centered_drect: a width-w window spans w − 1 between its corners.
                    let (hw, hh) = (Double(window.width - 1) / 2, Double(window.height - 1) / 2)
                    let box = pyramid.toImage(left: x - hw, top: y - hh, right: x + hw, bottom: y + hh)
                    found.append(MMODDetection(
                        box: DlibRectangle(left: Int(box.left.rounded()), top: Int(box.top.rounded()),
                                           right: Int(box.right.rounded()), bottom: Int(box.bottom.rounded())),
                        confidence: score))
                }
            }
        }
        found.sort { $0.confidence > $1.confidence }
        var kept: [MMODDetection] = []
        for d in found where !kept.contains(where: { overlaps($0.box, d.box, net.options) }) {
            kept.append(d)
        }
        return kept
    }

    /// dlib's `test_box_overlap`.
    static func overlaps(_ a: DlibRectangle, _ b: DlibRectangle, _ options: MMODOptions) -> Bool {
        let inner = Double(a.intersection(b).area)
        guard inner > 0 else { return false }
        return inner / Double(a.union(b).area) > options.nmsIoU
            || inner / Double(a.area) > options.nmsCovered || inner / Double(b.area) > options.nmsCovered
    }
}
