import Foundation
import SentioImage

/// Quick, Draw! doodles as 28×28 grey bitmaps (0 background, 1 ink), one class per file
/// prefix: `<class>__*.npy` (numpy uint8 arrays of N × 784 bitmaps, Quick, Draw!'s
/// `numpy_bitmap` form) and `<class>__*.ndjson` (its simplified strokes in a 256 box, drawn
/// here 10 px wide at 256×256 and area-averaged down to 28×28, as Google made the bitmaps).
public struct DrawingSet: Sendable {
    /// Class names, sorted; a class's index is its position.
    public var classes: [String]
    /// Per class, its drawings (784 values each, row-major, 0…1).
    public var drawings: [[[Float]]]

    public static let side = 28

    /// Every `.npy` and `.ndjson` file of `directory`, grouped by the name before `__`.
    public init(directory: String) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        var byClass: [String: [[Float]]] = [:]
        for file in files where file.hasSuffix(".npy") || file.hasSuffix(".ndjson") {
            let name = (file.components(separatedBy: "__").first ?? file).replacingOccurrences(of: "_", with: " ")
            let path = directory + "/" + file
            let drawings = file.hasSuffix(".npy") ? try DrawingSet.bitmaps(npy: path) : try DrawingSet.strokes(ndjson: path)
            byClass[name, default: []] += drawings
        }
        guard !byClass.isEmpty else { throw TrainingError.invalidData("\(directory) holds no .npy or .ndjson drawings") }
        if let empty = byClass.first(where: { $0.value.isEmpty }) { throw TrainingError.invalidData("class '\(empty.key)' has no drawings") }
        classes = byClass.keys.sorted()
        drawings = classes.map { byClass[$0]! }
    }

    /// The split both Sentio and the Keras reference use: per class, every fifth drawing
    /// (index 4, 9, 14, …) is held out.
    public func split() throws -> (train: LabeledSamples, test: LabeledSamples) {
        var train: ([Float], [Int]) = ([], []), test: ([Float], [Int]) = ([], [])
        for (label, list) in drawings.enumerated() {
            for (i, d) in list.enumerated() {
                if i % 5 == 4 { test.0 += d; test.1.append(label) } else { train.0 += d; train.1.append(label) }
            }
        }
        let shape = [DrawingSet.side, DrawingSet.side, 1]
        return (try LabeledSamples(shape: shape, inputs: train.0, labels: train.1), try LabeledSamples(shape: shape, inputs: test.0, labels: test.1))
    }

    /// Bitmaps from a numpy `.npy` file of uint8 with shape (N, 784), (N, 1, 784) or (N, 28, 28).
    static func bitmaps(npy path: String) throws -> [[Float]] {
        guard let data = FileManager.default.contents(atPath: path) else { throw TrainingError.invalidData("cannot read \(path)") }
        let bytes = [UInt8](data)
        func fail(_ why: String) -> TrainingError { .invalidData("\(path): \(why)") }
        guard bytes.count >= 10, bytes.prefix(6) == [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59] else { throw fail("not a numpy .npy file") }
        let major = bytes[6]
        let headerLength = major == 1 ? Int(bytes[8]) | Int(bytes[9]) << 8 : (bytes.count >= 12 ? Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24 : -1)
        let start = (major == 1 ? 10 : 12) + headerLength
        guard headerLength > 0, start <= bytes.count else { throw fail("damaged header") }
        let header = String(decoding: bytes[(major == 1 ? 10 : 12) ..< start], as: UTF8.self)
        guard header.contains("'|u1'") || header.contains("'u1'") else { throw fail("not uint8 (\(header.trimmingCharacters(in: .whitespacesAndNewlines)))") }
        guard !header.contains("'fortran_order': True") else { throw fail("Fortran order") }
        guard let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")") else { throw fail("no shape") }
        let dims = header[open.upperBound ..< close].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let size = DrawingSet.side * DrawingSet.side
        guard let n = dims.first, n >= 0, dims.dropFirst().reduce(1, *) == size else { throw fail("shape \(dims), not N × 784") }
        guard bytes.count - start >= n * size else { throw fail("\(bytes.count - start) bytes of data for \(n) drawings") }
        return (0 ..< n).map { i in bytes[start + i * size ..< start + (i + 1) * size].map { Float($0) / 255 } }
    }

    /// Drawings in Quick, Draw!'s simplified ndjson (one JSON object per line with `drawing`:
    /// strokes of [[x…], [y…]] in a 0–255 box), rendered to 28×28.
    static func strokes(ndjson path: String) throws -> [[Float]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw TrainingError.invalidData("cannot read \(path)") }
        struct Line: Decodable { let drawing: [[[Double]]] }
        return try text.split(separator: "\n").enumerated().map { number, line in
            guard let parsed = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) else {
                throw TrainingError.invalidData("\(path) line \(number + 1): not a drawing")
            }
            return try render(parsed.drawing)
        }
    }

    /// Strokes moved to the origin and scaled so the longer side spans 0…255, as Quick, Draw!'s
    /// simplified drawings are. Errors for a drawing without points or with a non-finite one.
    public static func fit(_ strokes: [[[Double]]]) throws -> [[[Double]]] {
        let xs = strokes.flatMap { $0.first ?? [] }, ys = strokes.flatMap { $0.count > 1 ? $0[1] : [] }
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { throw TrainingError.invalidData("a point is not a finite number") }
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else {
            throw TrainingError.invalidData("the drawing has no points")
        }
        let scale = 255 / max(1e-9, max(maxX - minX, maxY - minY))
        return strokes.map { stroke in
            stroke.count < 2 ? stroke : [stroke[0].map { ($0 - minX) * scale }, stroke[1].map { ($0 - minY) * scale }]
        }
    }

    /// Strokes in a 256 box drawn 10 px wide on black, then area-averaged to 28×28.
    public static func render(_ strokes: [[[Double]]]) throws -> [Float] {
        var canvas = try Image(width: 256, height: 256, format: .rgb8)
        for stroke in strokes where stroke.count >= 2 {
            let points = zip(stroke[0], stroke[1]).map { Point($0, $1) }
            if points.count == 1 { canvas.drawPoint(points[0], radius: 5, color: .white) }
            canvas.drawPolyline(points, color: .white, thickness: 10)
        }
        let small = try canvas.resized(to: Size(width: side, height: side), method: .area)
        return (0 ..< side * side).map { Float(small[$0 % side, $0 / side, 0]) / 255 }
    }
}

extension SequentialNetwork {
    /// The puzzle game's drawing judge, in the original's shape: 3 × (3×3 convolution + ReLU)
    /// → 2×2 max-pool → dropout 0.25 → dense + ReLU → dropout 0.5 → dense → softmax. The
    /// original's filter counts are not known; 16, 32 and 32 filters and 64 dense units keep an
    /// epoch of the fixtures' 5,400 drawings to seconds. `scripts/reference/keras_drawings.py`
    /// builds the same network in Keras.
    public static func drawingJudge(classes: Int, seed: UInt64) throws -> SequentialNetwork {
        try SequentialNetwork(inputShape: [DrawingSet.side, DrawingSet.side, 1], layers: [
            Conv2DLayer(filters: 16, kernel: 3), ReLULayer(), Conv2DLayer(filters: 32, kernel: 3), ReLULayer(),
            Conv2DLayer(filters: 32, kernel: 3), ReLULayer(), MaxPoolLayer(), DropoutLayer(rate: 0.25),
            DenseLayer(units: 64), ReLULayer(), DropoutLayer(rate: 0.5), DenseLayer(units: classes),
        ], seed: seed)
    }
}
