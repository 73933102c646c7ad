import Foundation

/// Where PocketSphinx's acoustic model and pronunciation dictionary are.
///
/// PocketSphinx 5prealpha cannot share a loaded model between decoders: every
/// ``KeywordSpotter`` loads its own copy (0.10–0.15 s and 28 MB resident with Debian's US English
/// model and full dictionary, measured on the 2-core build machine). This type holds only the
/// paths, so it is cheap to pass around.
public struct KeywordModel: Sendable, Equatable, Codable {
    /// The acoustic model's folder (holds `mdef`, `means`, `variances`, …).
    public var acousticModel: String
    /// The pronunciation dictionary (CMUdict format).
    public var dictionary: String

    /// A model at explicit paths.
    public init(acousticModel: String, dictionary: String) {
        self.acousticModel = acousticModel
        self.dictionary = dictionary
    }

    /// Debian's `pocketsphinx-en-us`: US English, 16 kHz, with the full CMU dictionary.
    public static let debianEnglish = KeywordModel(
        acousticModel: "/usr/share/pocketsphinx/model/en-us/en-us",
        dictionary: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict")

    /// Checks that the files are there, naming the first missing one.
    public func validate() throws(AudioError) {
        let hint = "Debian: apt-get install pocketsphinx-en-us"
        for path in [acousticModel + "/mdef", acousticModel + "/means", dictionary] where !FileManager.default.fileExists(atPath: path) {
            throw .modelMissing(path: path, hint: hint)
        }
    }
}
