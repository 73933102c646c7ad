import Foundation
import SentioNeural
import SentioTestSupport
import Testing

@Suite("ModelStore")
struct ModelStoreTests {
    @Test("a missing model is an error that names the command that fetches it")
    func missing() throws {
        let store = ModelStore(directory: "/nonexistent-models")
        #expect {
            try store.path(of: "face_landmark")
        } throws: { error in
            "\(error)".contains("scripts/fetch-models") && "\(error)".contains("face_landmark")
        }
        #expect(store.available().isEmpty)
    }

    /// The models models/manifest.tsv lists: what fetch-models puts in the store.
    static func manifestModels() throws -> [String] {
        var manifest = URL(fileURLWithPath: #filePath)
        for _ in 0 ..< 3 { manifest.deleteLastPathComponent() }
        let rows = try String(contentsOf: manifest.appendingPathComponent("models/manifest.tsv"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t") }
        return rows.filter { $0[0] == "model" }.map { String($0[1]) }
    }

    @Test("resolves the fetched models by name, with or without extension",
          .requires(((try? ModelStoreTests.manifestModels()) ?? []).map(Requirement.model)))
    func resolves() throws {
        let store = ModelStore()
        // The manifest lists what fetch-models puts there; every row must resolve.
        let models = try Self.manifestModels()
        #expect(models.count == 20, "18 MediaPipe and dlib models, EfficientNet-Lite0 int8 and SFace (ONNX)")
        for name in models {
            let path = try store.path(of: name)
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(try store.path(of: "face_landmark.tflite").hasSuffix("/face_landmark.tflite"))
        #expect(try store.path(of: "face_recognition_sface_2021dec").hasSuffix("/face_recognition_sface_2021dec.onnx"))
        #expect(Set(store.available()).isSuperset(of: models))
    }
}
