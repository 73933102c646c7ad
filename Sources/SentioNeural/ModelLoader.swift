/// Loads a model file of any format the engine reads (TFLite, dlib deep nets, ONNX) into a
/// ``Graph``; the format is recognised from the file's bytes, not its name.
public enum ModelLoader {
    public static func load(path: String) throws -> Graph {
        try load(MappedFile(path: path))
    }

    /// Loads a model already mapped or in memory.
    public static func load(_ file: MappedFile) throws -> Graph {
        let bytes = file.bytes
        if bytes.count >= 8, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[4 ..< 8]), as: UTF8.self) == "TFL3" {
            return try TFLiteLoader.load(file)
        }
        if DlibNetLoader.recognizes(bytes) {
            return try DlibNetLoader.load(file)
        }
        if ONNXLoader.recognizes(bytes) {
            return try ONNXLoader.load(file)
        }
        throw ModelError.malformed("\(file.path) is neither a TFLite model (no 'TFL3' identifier), a dlib net nor an ONNX model")
    }
}
