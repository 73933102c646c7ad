import Foundation
import SentioNeural
import SentioTestSupport
import Testing

/// ONNX models through Sentio's loader (protobuf wire reader, NCHW → NHWC at load, BatchNorm
/// folded): OpenCV Zoo's SFace against onnxruntime's outputs, which
/// scripts/reference/onnxruntime_sface.py wrote for fixture faces (`make reference`), and
/// malformed files refused with typed errors.
@Suite("ONNX")
struct ONNXTests {
    static let reference = ProcessInfo.processInfo.environment["SENTIO_ONNX_REFERENCE"] ?? (References.directory + "/onnxruntime-1.32.0/sface")
    static let model = "face_recognition_sface_2021dec"

    @Test("SFace: the descriptor matches onnxruntime's within 1e-4 of its largest value, fast and reference kernels, 1 and 2 threads",
          .requires(.model(ONNXTests.model)), .requires(.reference("meta.json", in: ONNXTests.reference)))
    func sfaceParity() throws {
        struct Meta: Decodable { let photos: [String] }
        let meta = try JSONDecoder().decode(Meta.self, from: try #require(FileManager.default.contents(atPath: Self.reference + "/meta.json")))
        #expect(meta.photos.count >= 5)
        let graph = try ModelLoader.load(path: try ModelStore().path(of: Self.model))
        #expect(graph.format.hasPrefix("ONNX"))
        #expect(graph.tensors[graph.inputs[0]].shape == [1, 112, 112, 3], "the NCHW input is taken NHWC")
        #expect(graph.operatorCounts["CONV_2D", default: 0] + graph.operatorCounts["DEPTHWISE_CONV_2D", default: 0] == 27)
        #expect(graph.operatorCounts["MUL", default: 0] == 3, "BatchNorms folded into the 27 convolutions; the input scale and two others remain")
        for (kernels, threads) in [(KernelChoice.fast, 1), (.fast, 2), (.reference, 1)] {
            let interpreter = try Interpreter(graph: graph, threads: threads, kernels: kernels)
            var worst = 0.0
            for photo in meta.photos {
                let input = try #require(NeuralTestData.floats(Self.reference + "/\(photo)/input_nhwc.bin"))
                let expected = try #require(NeuralTestData.floats(Self.reference + "/\(photo)/output.bin"))
                try interpreter.setInput(0, input)
                interpreter.invoke()
                let got = interpreter.output(0)
                try #require(got.count == expected.count)
                let scale = Double(expected.map { abs($0) }.max() ?? 1)
                let difference = zip(got, expected).map { Double(abs($0 - $1)) }.max() ?? 0
                worst = max(worst, difference / scale)
            }
            #expect(worst <= 1e-4, "\(kernels) ×\(threads): relative max difference \(worst)")
            print("onnx sface \(kernels) ×\(threads): relative max difference \(worst)")
        }
    }

    @Test("a file that is not an ONNX model, a truncated one and an unknown operator are refused by name", .requires(.model(ONNXTests.model)))
    func malformed() throws {
        let bytes = try #require(FileManager.default.contents(atPath: try ModelStore().path(of: Self.model)))
        // Truncated anywhere: a typed error, never a crash.
        for cut in [20, 1_000, 100_000, bytes.count / 2, bytes.count - 7] {
            #expect(throws: ModelError.self) { try ModelLoader.load(MappedFile(bytes: Array(bytes.prefix(cut)), name: "cut \(cut)")) }
        }
        // The first Sub renamed "Erf": refused at load with the operator's name.
        var renamed = Array(bytes)
        let sub = Array("Sub".utf8)
        let at = try #require((0 ..< 4_096).first { renamed[$0] == 0x22 && renamed[$0 + 1] == 3 && Array(renamed[$0 + 2 ..< $0 + 5]) == sub })
        renamed.replaceSubrange(at + 2 ..< at + 5, with: Array("Erf".utf8))
        #expect(throws: ModelError.unsupportedOperator(name: "ONNX Erf", node: 0)) { try ModelLoader.load(MappedFile(bytes: renamed, name: "erf")) }
    }
}
