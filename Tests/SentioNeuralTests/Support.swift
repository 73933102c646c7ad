import Foundation
import SentioNeural
import SentioTestSupport

enum NeuralTestData {
    /// Outputs written by scripts/reference/litert.py (make test runs it); `SENTIO_REFERENCE`
    /// names another folder of them.
    static let litertReference: String = {
        ProcessInfo.processInfo.environment["SENTIO_REFERENCE"] ?? (References.directory + "/litert-2.3.0")
    }()

    /// One of LiteRT's outputs in ``litertReference``.
    static func litert(_ relativePath: String) -> Requirement { .reference(relativePath, in: litertReference) }

    static let models = ["face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "iris_landmark",
                         "palm_detection_full", "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite",
                         "pose_detection", "pose_landmark_full", "selfie_segmentation", "selfie_segmentation_landscape",
                         "hand_recrop"]

    /// Every model of ``models``, for the tests that run them all.
    static let allModels = models.map(Requirement.model)

    /// The model's file; a `ModelStoreError` naming scripts/fetch-models when it is missing.
    static func modelPath(_ name: String) throws -> String { try ModelStore().path(of: name) }

    static func floats(_ path: String) -> [Float]? {
        guard let data = FileManager.default.contents(atPath: path), data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0 ..< data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }
}

/// Reads NumPy `.npz` archives of float32 arrays as NumPy's `savez` writes them (a zip of
/// stored, uncompressed `.npy` members), enough for the reference outputs in the fixtures.
enum NPZ {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func read(_ path: String) throws -> [String: (shape: [Int], values: [Float])] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var arrays: [String: (shape: [Int], values: [Float])] = [:]
        var at = 0
        while at + 30 <= bytes.count, u32(at) == 0x0403_4B50 {  // local file header
            let method = u16(at + 8), nameLength = u16(at + 26), extra = u16(at + 28)
            var size = u32(at + 18)
            let name = String(decoding: bytes[at + 30 ..< at + 30 + nameLength], as: UTF8.self)
            let start = at + 30 + nameLength + extra
            if size == 0xFFFF_FFFF {
                // ZIP64 (NumPy forces it): the sizes are in extra field 0x0001, 8 bytes each.
                var e = at + 30 + nameLength
                while e + 4 <= start {
                    let id = u16(e), length = u16(e + 2)
                    if id == 1 { size = u32(e + 12) | u32(e + 16) << 32 }
                    e += 4 + length
                }
            }
            guard start + size <= bytes.count else { throw Failure(description: "\(name) in \(path) is truncated") }
            guard method == 0 else { throw Failure(description: "\(name) in \(path) is compressed") }
            arrays[String(name.dropLast(4))] = try npy(Array(bytes[start ..< start + size]), name: name)
            at = start + size
        }
        return arrays
    }

    static func npy(_ b: [UInt8], name: String) throws -> (shape: [Int], values: [Float]) {
        guard b.count > 10, b[0] == 0x93 else { throw Failure(description: "\(name) is not .npy") }
        let headerLength = Int(b[8]) | Int(b[9]) << 8
        let header = String(decoding: b[10 ..< 10 + headerLength], as: UTF8.self)
        guard header.contains("'<f4'"), !header.contains("'fortran_order': True") else { throw Failure(description: "\(name): \(header)") }
        let shapeText = header.components(separatedBy: "'shape': (")[1].components(separatedBy: ")")[0]
        let shape = shapeText.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let start = 10 + headerLength
        let values = (0 ..< (b.count - start) / 4).map { i in
            Float(bitPattern: UInt32(b[start + 4 * i]) | UInt32(b[start + 4 * i + 1]) << 8 | UInt32(b[start + 4 * i + 2]) << 16 | UInt32(b[start + 4 * i + 3]) << 24)
        }
        return (shape, values)
    }
}

/// max |ours − theirs| / (5e-4 · max(1, max |theirs|)): the parity criterion, ≤ 1 to pass.
func parityRatio(_ ours: [Float], _ theirs: [Float]) -> Double {
    guard ours.count == theirs.count, !ours.isEmpty else { return .infinity }
    var worst: Float = 0, scale: Float = 1
    for i in 0 ..< ours.count {
        worst = max(worst, abs(ours[i] - theirs[i]))
        scale = max(scale, abs(theirs[i]))
    }
    return worst.isNaN ? .infinity : Double(worst / (5e-4 * scale))
}

