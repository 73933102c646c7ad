import Foundation
import SentioNeural
import SentioTestSupport
import Testing

/// TFLite's integer arithmetic, checked on values worked out by hand.
@Suite("Quantized arithmetic")
struct QuantizedArithmeticTests {
    @Test("QuantizeMultiplier: 0.5 is 2³⁰·2⁰, 1.0 is 2³⁰·2¹, 0.75 is 3·2²⁹·2⁰, 2⁻⁴⁰ is zero")
    func multipliers() {
        // frexp(0.5) = 0.5·2⁰ → 0.5·2³¹ = 2³⁰; frexp(1) = 0.5·2¹; frexp(0.75) = 0.75·2⁰ → 0.75·2³¹.
        #expect(QuantizedMultiplier(0.5) == QuantizedMultiplier(multiplier: 1 << 30, shift: 0))
        #expect(QuantizedMultiplier(1.0) == QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
        #expect(QuantizedMultiplier(0.75) == QuantizedMultiplier(multiplier: 3 << 29, shift: 0))
        // Too small for a 31-bit fraction after a shift of −31: zero, as TFLite gives.
        #expect(QuantizedMultiplier(0x1p-40) == QuantizedMultiplier(multiplier: 0, shift: 0))
        // Just under 1 rounds the fraction up to 2³¹: the exponent moves up instead.
        #expect(QuantizedMultiplier(1 - 0x1p-40) == QuantizedMultiplier(multiplier: 1 << 30, shift: 1))
    }

    @Test("x · m rounded twice (TFLite's classic way) and once (ties toward +∞); 1.0 is exact")
    func apply() {
        let half = QuantizedMultiplier(0.5)
        // 3 · 0.5 = 1.5 → 2 either way. −3 · 0.5 = −1.5: the doubling high multiply adds
        // 1 − 2³⁰ to −3 · 2³⁰ and truncates (−2³² + 1) / 2³¹ toward zero, −1; once: −1 too.
        #expect(half.apply(3) == 2)
        #expect(half.apply(-3) == -1)
        #expect(half.applyRoundingOnce(3) == 2)
        #expect(half.applyRoundingOnce(-3) == -1)
        // EfficientNet-Lite0's classifier: 22987 · 1076206832 · 2⁻⁴⁰ = 22.4998. Twice: the high
        // multiply gives 11519.89 → 11520, and 11520 / 2⁹ = 22.5 → 23. Once: 22.
        let m = QuantizedMultiplier(multiplier: 1_076_206_832, shift: -9)
        #expect(m.apply(22987) == 23)
        #expect(m.applyRoundingOnce(22987) == 22)
        let one = QuantizedMultiplier(1.0)
        for x: Int32 in [-128, -1, 0, 1, 127, 100_000] {
            #expect(one.apply(x) == x)
            #expect(one.applyRoundingOnce(x) == x)
        }
    }

    @Test("ReLU6 on an output of scale 6/255 and zero point −128 clamps to the whole int8 range")
    func activationRange() throws {
        let q = Quantization(scale: 6.0 / 255, zeroPoint: -128)
        // 0 → −128 + 0 = −128; 6 → −128 + round(6 / (6/255)) = −128 + 255 = 127.
        #expect(try q.activationRange(.relu6, type: .int8) == -128 ... 127)
        let wide = Quantization(scale: 0.1, zeroPoint: 0)
        // 6 / 0.1 = 60.
        #expect(try wide.activationRange(.relu6, type: .int8) == 0 ... 60)
    }
}

/// EfficientNet-Lite0 (int8) against LiteRT 2.3.0 on every fixture photo of fruit and the
/// negatives: the same pixels in (scripts/reference/litert.py photos), outputs compared in
/// steps of the output's quantization.
@Suite("Quantized parity", .serialized)
struct QuantizedParityTests {
    static let folder = NeuralTestData.litertReference + "/efficientnet_lite0-photos"

    struct Index: Decodable {
        struct Photo: Decodable { let stem: String }
        let photos: [Photo]
    }

    @Test("reference kernels give LiteRT's reference kernels' outputs exactly on every photo",
          .requires(NeuralTestData.litert("efficientnet_lite0-photos/index.json"), .model("efficientnet_lite0")))
    func efficientNet() throws {
        let index = try JSONDecoder().decode(Index.self, from: try #require(FileManager.default.contents(
            atPath: try NeuralTestData.litert("efficientnet_lite0-photos/index.json").path())))
        #expect(index.photos.count >= 100, "the fixtures hold 111 photos of fruit and negatives")
        let model = try CompiledModel(path: try NeuralTestData.modelPath("efficientnet_lite0"), kernels: .reference)
        let reference = Interpreter(model: model)
        var worstXNNPACK = 0
        for photo in index.photos {
            let folder = "\(Self.folder)/\(photo.stem)"
            let input = try #require(FileManager.default.contents(atPath: folder + "/input0.bin"))
            try reference.setInput(0, bytes: [UInt8](input))
            reference.invoke()
            let ours = reference.outputBytes(0)
            let litertReference = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/ref_output0.bin")))
            #expect(ours == litertReference, "\(photo.stem): reference kernels differ from LiteRT's BUILTIN_REF")
            let xnnpack = [UInt8](try #require(FileManager.default.contents(atPath: folder + "/output0.bin")))
            worstXNNPACK = max(worstXNNPACK, zip(ours, xnnpack).map { abs(Int($0) - Int($1)) }.max() ?? 0)
        }
        print("EfficientNet-Lite0: reference kernels vs LiteRT XNNPACK, largest difference \(worstXNNPACK) steps over \(index.photos.count) photos")
    }
}
