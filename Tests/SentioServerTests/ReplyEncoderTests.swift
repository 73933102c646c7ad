import Foundation
import SentioImage
import SentioNeural
import SentioServer
import SentioTestSupport
import SentioVision
import Testing

/// The streams' lean encoder writes exactly what JSONEncoder (sorted keys, slashes unescaped)
/// writes, on the observations the streams send and on values that stress the corners.
@Suite("Stream reply encoder", .requires(model: "face_landmark"), .requires(fixture: "faces/identity"))
struct ReplyEncoderTests {
    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("face, hand and pose observations of a fixture photo, three frames each")
    func observations() throws {
        let photo = try ImageIO.read(try Photos.face())
        let store = ModelStore()
        let faces = try FaceSession(store: store), hands = try HandSession(store: store), poses = try PoseSession(store: store)
        for frame in 0 ..< 3 {
            let time = Double(frame) / 15
            let face = try faces.process(photo, time: time)
            #expect(!face.faces.isEmpty, "the fixture shows a face")
            #expect(try ReplyEncoder.string(face) == Self.foundation(face))
            let hand = try hands.process(photo, time: time)
            #expect(try ReplyEncoder.string(hand) == Self.foundation(hand))
            let pose = try poses.process(photo, time: time)
            #expect(try ReplyEncoder.string(pose) == Self.foundation(pose))
        }
    }

    struct Corners: Encodable {
        var whole = 2.0, negative = -0.0, tiny = 1e-7, huge = 1.5e300, third = 1.0 / 3, float: Float = 0.1
        var text = "quote \" backslash \\ slash / tab \t newline \n bell \u{07} é 😀"
        var missing: Int? = nil, present: Int? = 7, flags = [true, false], nested = [[1, 2], []]
        var keyOrder = ["b": 1, "a": 2, "B": 3, "aa": 4, "a1": 5]
        var big: Int64 = .max, small: Int64 = .min, unsigned: UInt64 = .max
        var int8: Int8 = -3, uint8: UInt8 = 200, int16: Int16 = -300, uint32: UInt32 = 4_000_000_000, bytes = Data([1, 2, 250])
        var unkeyed: [Int8] = [1, -1], url = URL(string: "https://example.org/a/b")!
    }

    @Test("corners: whole and tiny doubles, floats, escapes, nil, nesting, key order, extreme integers")
    func corners() throws {
        #expect(try ReplyEncoder.string(Corners()) == Self.foundation(Corners()))
        #expect(throws: EncodingError.self) { try ReplyEncoder.string([Double.nan]) }
    }
}
