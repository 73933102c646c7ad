import Crypto
import Foundation

/// SHA-256 in lower-case hex: how the applications store what they must recognise but need not
/// keep (session and device tokens, an audited frame, a screenshot seen before).
public enum SHA256Hex {
    public static func of(_ bytes: some DataProtocol) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    public static func of(_ text: String) -> String { of(Data(text.utf8)) }
}
