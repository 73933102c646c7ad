import Foundation

/// What the big screen tells one phone of its room (the arcade's controller screen): which
/// player it is, its colour, the game on screen, its score, a line of text and a vibration.
///
/// The desktop page sends these on its room watcher socket; the server checks every field and
/// re-encodes the message, so a phone never receives text a watcher made up beyond these
/// bounded fields, and delivers it to the one motion stream whose `controller` id it names
/// (through the ``RoomHub``, on any server of the deployment).
struct ControllerFeedback: Codable, Sendable, Equatable {
    var type = "feedback"
    /// The phone's stream id in the room (six lowercase letters or digits).
    var controller: String
    /// Player number, 1…8.
    var player: Int?
    /// `#rrggbb`.
    var colour: String?
    var game: Game?
    /// 0…99,999.
    var score: Int?
    /// What just happened, at most 80 characters.
    var text: String?
    /// A vibration pattern (milliseconds, on/off/on…): at most 6 steps of at most 1,000 ms.
    var vibrate: [Int]?

    enum Game: String, Codable, Sendable { case plane, basketball, cube }

    /// Why this message is refused, or nil when every field is within its bounds.
    var problem: String? {
        if type != "feedback" { return "a watcher sends only {\"type\": \"feedback\", …}" }
        if controller.count != 6 || !controller.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }) {
            return "controller is the phone's six-character id from the room's joined event"
        }
        if let player, !(1...8).contains(player) { return "player is 1 to 8" }
        if let colour, !(colour.count == 7 && colour.first == "#" && colour.dropFirst().allSatisfy(\.isHexDigit)) { return "colour is #rrggbb" }
        if let score, !(0...99_999).contains(score) { return "score is 0 to 99999" }
        if let text, text.count > 80 || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "text is at most 80 characters, no control characters"
        }
        if let vibrate, vibrate.count > 6 || vibrate.contains(where: { !(0...1000).contains($0) }) {
            return "vibrate is at most 6 steps of 0 to 1000 ms"
        }
        return nil
    }

    /// The hub key a phone's feedback travels on: the room's code and the phone's id (codes
    /// have no `/`, so it never meets a room's own key).
    static func key(room: String, controller: String) -> String { room + "/" + controller }
}
