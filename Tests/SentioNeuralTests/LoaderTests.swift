import Foundation
import SentioNeural
import SentioTestSupport
import Testing

@Suite("TFLite loader")
struct LoaderTests {
    @Test("models load with the operators, shapes and multiply-accumulates the reference lists",
          .requires(fixture: "reference/tflite_model_macs.json"), .requires(NeuralTestData.allModels))
    func macs() throws {
        struct Entry: Decodable { let macs_conv_dw_fc: Int; let op_counts: [String: Int] }
        let data = try #require(FileManager.default.contents(atPath: try Requirement.fixture("reference/tflite_model_macs.json").path()))
        let table = try JSONDecoder().decode([String: Entry].self, from: data)
        for model in NeuralTestData.models {
            let path = try NeuralTestData.modelPath(model)
            let entry = try #require(table[model + ".tflite"], "\(model) is not in tflite_model_macs.json")
            let graph = try ModelLoader.load(path: path)
            let macs = graph.multiplyAccumulates
            let convMacs = (macs["CONV_2D"] ?? 0) + (macs["DEPTHWISE_CONV_2D"] ?? 0) + (macs["FULLY_CONNECTED"] ?? 0)
            #expect(convMacs == entry.macs_conv_dw_fc, "\(model)")
            // Folded DEQUANTIZE/DENSIFY and fused PAD nodes are gone; the rest are as listed.
            for (op, count) in entry.op_counts where !["DEQUANTIZE", "DENSIFY", "PAD"].contains(op) && !op.hasPrefix("CUSTOM") {
                #expect(graph.operatorCounts[op] == count, "\(model) \(op)")
            }
        }
    }

    @Test("an operator the engine lacks is named at load", .requires(model: "face_landmark_with_attention"))
    func unsupported() throws {
        let path = try NeuralTestData.modelPath("face_landmark_with_attention")
        #expect {
            try ModelLoader.load(path: path)
        } throws: { error in
            "\(error)".contains("CUSTOM:") && "\(error)".contains("unsupported operator")
        }
    }

    @Test("files that are not models are typed errors")
    func malformed() throws {
        #expect(throws: ModelError.self) { try TFLiteLoader.load(MappedFile(bytes: Array("not a model at all".utf8))) }
        #expect(throws: ModelError.self) { try ModelLoader.load(path: "/nonexistent.tflite") }
    }

    @Test("models truncated or with offsets out of range are typed errors", .requires(model: "face_detection_short_range"))
    func truncatedModel() throws {
        let path = try NeuralTestData.modelPath("face_detection_short_range")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for cut in [8, 100, bytes.count / 3, bytes.count * 2 / 3] {
            #expect(throws: ModelError.self) { try Interpreter(graph: TFLiteLoader.load(MappedFile(bytes: Array(bytes.prefix(cut))))) }
        }
        var bad = bytes
        bad[0] = 0xFF; bad[1] = 0xFF; bad[2] = 0xFF; bad[3] = 0x7F  // root offset past the end
        #expect(throws: ModelError.self) { try TFLiteLoader.load(MappedFile(bytes: bad)) }
    }

    @Test("float16 values convert exactly")
    func half() {
        #expect(Half.toFloat(0x3C00) == 1)
        #expect(Half.toFloat(0xC000) == -2)
        #expect(Half.toFloat(0x7BFF) == 65504)
        #expect(Half.toFloat(0x0001) == 5.960464477539063e-8)  // smallest subnormal
        #expect(Half.toFloat(0x7C00) == .infinity)
        #expect(Half.toFloat(0x3555) == 0.333251953125)
    }

    @Test("densify expands a CSR matrix and a block-sparse one as the TACO format defines")
    func densify() throws {
        // 3×4 matrix [[1,0,0,2],[0,0,0,0],[0,3,0,0]] in CSR: segments [0,2,2,3], indices [0,3,1].
        let csr = SparseFormat(traversalOrder: [0, 1], blockMap: [],
                               dimensions: [.dense(size: 3), .compressed(segments: [0, 2, 2, 3], indices: [0, 3, 1])])
        #expect(try Densify.run(.float32([1, 2, 3]), format: csr, shape: [3, 4], node: 0) == .float32([1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0]))
        // 2×4 matrix in 1×2 blocks: block row 0 keeps block column 1, block row 1 keeps block column 0.
        let blocks = SparseFormat(traversalOrder: [0, 1, 2], blockMap: [1],
                                  dimensions: [.dense(size: 2), .compressed(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 2)])
        #expect(try Densify.run(.float32([5, 6, 7, 8]), format: blocks, shape: [2, 4], node: 0) == .float32([0, 0, 5, 6, 7, 8, 0, 0]))
        // Indices outside the shape are errors, not writes out of bounds.
        let broken = SparseFormat(traversalOrder: [0, 1], blockMap: [], dimensions: [.dense(size: 3), .compressed(segments: [0, 1, 1, 1], indices: [9])])
        #expect(throws: ModelError.self) { try Densify.run(.float32([1]), format: broken, shape: [3, 4], node: 0) }
    }

    @Test("the memory plan never gives overlapping lifetimes overlapping memory")
    func memoryPlan() {
        var rng = SeededRandom(seed: 9)
        var sizes: [Int: Int] = [:], lives: [Int: ClosedRange<Int>] = [:]
        for t in 0 ..< 200 {
            sizes[t] = Int.random(in: 1 ... 5000, using: &rng)
            let a = Int.random(in: 0 ..< 100, using: &rng)
            lives[t] = a ... a + Int.random(in: 0 ..< 20, using: &rng)
        }
        let plan = MemoryPlan(sizes: sizes, lifetimes: lives)
        for a in 0 ..< 200 {
            for b in a + 1 ..< 200 where lives[a]!.overlaps(lives[b]!) {
                let ra = plan.offsets[a]! ..< plan.offsets[a]! + sizes[a]!, rb = plan.offsets[b]! ..< plan.offsets[b]! + sizes[b]!
                #expect(!ra.overlaps(rb))
            }
        }
        // Sharing must actually happen: less than the sum of all sizes.
        #expect(plan.size < sizes.values.reduce(0, +))
    }
}

/// dlib nets: damaged files end in a ModelError naming the offset, never a crash.
@Suite("dlib net loader")
struct DlibLoaderTests {
    static func resnet() throws -> [UInt8] {
        let path = try NeuralTestData.modelPath("dlib_face_recognition_resnet_model_v1")
        return [UInt8](try #require(FileManager.default.contents(atPath: path), "cannot read \(path)"))
    }

    @Test("the ResNet loads: 29 convolutions, 150×150×3 in, 128 out", .requires(model: "dlib_face_recognition_resnet_model_v1"))
    func loads() throws {
        let bytes = try Self.resnet()
        let graph = try DlibNetLoader.load(MappedFile(bytes: bytes))
        #expect(graph.operatorCounts["CONV_2D"] == 29)
        #expect(graph.tensors[graph.inputs[0]].shape == [1, 150, 150, 3])
        #expect(graph.tensors[graph.outputs[0]].shape == [1, 128])
    }

    @Test("the CNN face detector loads: batch norms folded, 7 convolutions, one score map at 1/8", .requires(model: "mmod_human_face_detector"))
    func detectorLoads() throws {
        let path = try NeuralTestData.modelPath("mmod_human_face_detector")
        let graph = try ModelLoader.load(path: path)
        #expect(graph.operatorCounts["CONV_2D"] == 7)
        #expect(graph.tensors[graph.inputs[0]].shape == [1, 480, 640, 3])
        // 480 → 238 → 117 → 57 rows through three unpadded 5×5 stride-2 convolutions.
        #expect(graph.tensors[graph.outputs[0]].shape == [1, 57, 77, 1])
    }

    @Test("truncated anywhere: a typed error", .requires(model: "dlib_face_recognition_resnet_model_v1"))
    func truncated() throws {
        let bytes = try Self.resnet()
        var rng = SeededRandom(seed: 5)
        let cuts = [0, 1, 2, 5, 20, 200, 2000, bytes.count / 2, bytes.count - 1] + (0 ..< 20).map { _ in Int.random(in: 0 ..< bytes.count, using: &rng) }
        for cut in cuts {
            #expect(throws: ModelError.self, "cut at \(cut)") { try ModelLoader.load(MappedFile(bytes: Array(bytes.prefix(cut)))) }
        }
    }

    @Test("a different file that starts like a dlib net: a typed error")
    func notANet() throws {
        // Version 1, then a loss layer name Sentio does not know.
        let bytes: [UInt8] = [0x01, 0x01, 0x0A] + Array("loss_yolo_".utf8) + [0x01, 0x02]
        #expect(throws: ModelError.self) { try ModelLoader.load(MappedFile(bytes: bytes)) }
        #expect(throws: ModelError.self) { try ModelLoader.load(MappedFile(bytes: Array("not a model at all".utf8))) }
    }
}
