/// The seventeen levels of the game, as the original thesis game had them, with the browser's
/// stand-ins for the phone's hardware (docs/puzzler.md says why each was chosen).
public enum LevelID: String, Sendable, Codable, CaseIterable, Hashable {
    case eyes, smile, mouth, nose, dark, colours, fruit, hand, drawing, loud, keyword, turns, theme, plugs, offline, volume, sos
}

/// What a level is played with: what the page must capture and stream.
public enum Sense: String, Sendable, Codable {
    /// Camera frames; the face mesh's signals.
    case face
    /// Camera frames; their colour in CIE Lab.
    case colour
    /// Camera frames; the image classifier.
    case objects
    /// Camera frames; the hand's landmarks and shape.
    case hands
    /// A picture drawn on the screen; the drawing judge.
    case drawing
    /// Microphone audio; loudness and the key phrase.
    case sound
    /// DeviceMotion samples; the attitude fusion.
    case motion
    /// The browser's signals about the device: colour scheme, audio outputs, battery, network,
    /// orientation.
    case device
    /// Presses on the screen and their lengths.
    case touch

    /// Whether the page sends camera frames.
    public var usesCamera: Bool { [.face, .colour, .objects, .hands].contains(self) }
}

/// One level: what the map shows, the clue, where its star is, its hints.
public struct Level: Sendable, Codable, Equatable {
    public var id: LevelID
    /// 1…17, the order of the original game.
    public var number: Int
    public var title: String
    public var clue: String
    public var sense: Sense
    /// The star's place on the map, 0…1 of its width and height.
    public var x: Double
    public var y: Double
    /// Levels this one opens when solved (at least two).
    public var neighbours: [LevelID]
    /// Motion and device levels: on a desktop the page offers pairing a phone.
    public var needsPhone: Bool
    /// Device levels: the browser signal that stands for the original's hardware.
    public var browserSignal: String?
    /// What a player does when the browser lacks that signal.
    public var alternative: String?
    /// Three tiers: a nudge, a method, the answer. Not sent until bought.
    public var hints: [String]
}

/// The game's levels and their map.
public enum Catalogue {
    /// The price of one hint, in points (one point per meteor caught).
    public static let hintCost = 50

    public static func level(_ id: LevelID) -> Level { levels[id.index] }

    public static let levels: [Level] = [
        Level(id: .eyes, number: 1, title: "Dreamer", clue: "Some doors only open when you stop looking at them.", sense: .face,
              x: 0.10, y: 0.55, neighbours: [.smile, .dark, .loud], needsPhone: false,
              hints: ["Your face is the controller here.", "What do you do when you sleep?", "Close both eyes and keep them closed for five seconds."]),
        Level(id: .smile, number: 2, title: "Mona Lisa", clue: "She keeps her secret behind her lips.", sense: .face,
              x: 0.20, y: 0.30, neighbours: [.eyes, .mouth, .colours], needsPhone: false,
              hints: ["Think of the painting.", "A smile — but a secretive one.", "Smile with your lips closed, no teeth, for five seconds."]),
        Level(id: .mouth, number: 3, title: "Say Aah", clue: "The doctor is waiting.", sense: .face,
              x: 0.33, y: 0.15, neighbours: [.smile, .nose, .keyword], needsPhone: false,
              hints: ["What does a doctor ask you to do?", "Open wide…", "Open your mouth wide and hold it open for five seconds."]),
        Level(id: .nose, number: 4, title: "Follow Your Nose", clue: "Visit the four stars in order. No hands.", sense: .face,
              x: 0.48, y: 0.22, neighbours: [.mouth, .fruit, .hand], needsPhone: false,
              hints: ["The cursor moves with you.", "It follows the tip of your nose.", "Move your head so the nose cursor touches stars 1, 2, 3 and 4 in turn."]),
        Level(id: .dark, number: 5, title: "Lights Out", clue: "The button hides from the light.", sense: .colour,
              x: 0.16, y: 0.78, neighbours: [.eyes, .colours, .theme], needsPhone: false,
              hints: ["Watch the background as you move.", "The page darkens as the camera sees less light.", "Cover the camera until a button appears, then press it."]),
        Level(id: .colours, number: 6, title: "Painter", clue: "Bring me these colours, one after another.", sense: .colour,
              x: 0.30, y: 0.62, neighbours: [.smile, .dark, .fruit], needsPhone: false,
              hints: ["The little window in the picture matters.", "Find things of these colours around you.", "Hold something of each colour in the window for three seconds, in order."]),
        Level(id: .fruit, number: 7, title: "Greengrocer", clue: "Yellow and bent first; then round, and the colour of its own name.", sense: .objects,
              x: 0.45, y: 0.50, neighbours: [.colours, .nose, .drawing], needsPhone: false,
              hints: ["The camera knows fruit.", "A banana, then another fruit.", "Show the camera a banana, then an orange."]),
        Level(id: .hand, number: 8, title: "Peace", clue: "Make the sign, not war.", sense: .hands,
              x: 0.60, y: 0.35, neighbours: [.nose, .drawing, .turns], needsPhone: false,
              hints: ["Your hand can talk.", "Two fingers tell it.", "Show a V sign (index and middle finger up) to the camera."]),
        Level(id: .drawing, number: 9, title: "Still Life", clue: "One a day keeps the doctor away. Draw it.", sense: .drawing,
              x: 0.58, y: 0.68, neighbours: [.fruit, .hand, .sos], needsPhone: false,
              hints: ["The answer is something to eat.", "The fruit of the proverb.", "Draw an apple: a round shape with a stalk and a leaf."]),
        Level(id: .loud, number: 10, title: "Birthday", clue: "Make a wish.", sense: .sound,
              x: 0.06, y: 0.30, neighbours: [.eyes, .keyword, .plugs], needsPhone: false,
              hints: ["What do you do after a wish?", "The candles are waiting.", "Blow into the microphone (or be loud) for two seconds."]),
        Level(id: .keyword, number: 11, title: "Event Horizon", clue: "Name what even light cannot escape.", sense: .sound,
              x: 0.24, y: 0.08, neighbours: [.mouth, .loud, .offline], needsPhone: false,
              hints: ["It is out in space.", "Say it out loud.", "Say \"black hole\"."]),
        Level(id: .turns, number: 12, title: "Gyroscope", clue: "Around, around and around.", sense: .motion,
              x: 0.76, y: 0.25, neighbours: [.hand, .volume, .plugs], needsPhone: true,
              hints: ["Pick the device up.", "Three ways of turning it.", "Turn the phone a full turn about each axis: roll it, spin it flat, tip it forwards all the way round."]),
        Level(id: .theme, number: 13, title: "Day and Night", clue: "Turn night into day — and back.", sense: .device, x: 0.34, y: 0.88,
              neighbours: [.dark, .sos, .offline], needsPhone: false,
              browserSignal: "the system's dark/light appearance (prefers-color-scheme) — standing in for the screen's brightness",
              alternative: nil,
              hints: ["Your device's settings.", "Its appearance, not its volume.", "Switch the system to dark mode, then to light mode."]),
        Level(id: .plugs, number: 14, title: "Plugged In", clue: "First listen privately; then feed it.", sense: .device, x: 0.88, y: 0.45,
              neighbours: [.turns, .loud, .volume], needsPhone: true,
              browserSignal: "a new audio output appearing (headphones), then the battery starting to charge (Battery Status API)",
              alternative: "where the browser hides the battery (Firefox, Safari) or the computer has none, plugging in the headphones a second time stands for the charger",
              hints: ["Cables.", "Headphones first.", "Plug in headphones, then plug in the charger."]),
        Level(id: .offline, number: 15, title: "Hermit", clue: "Cut every line to the world — and come back.", sense: .device, x: 0.44, y: 0.80,
              neighbours: [.keyword, .theme, .sos], needsPhone: false,
              browserSignal: "the page going offline and coming back (the online/offline events)",
              alternative: nil,
              hints: ["Connections.", "All of them, for a moment.", "Switch on airplane mode (or pull the network), wait a few seconds, switch it off."]),
        Level(id: .volume, number: 16, title: "Round the Clock", clue: "Visit every side.", sense: .device, x: 0.90, y: 0.75,
              neighbours: [.turns, .plugs, .sos], needsPhone: true,
              browserSignal: "the screen turned through its four orientations (screen.orientation) — standing in for the volume steps",
              alternative: "a desktop without rotation pairs a phone",
              hints: ["The screen can face four ways.", "Portrait, landscape, upside down…", "Turn the phone through all four orientations and back upright (rotation lock off)."]),
        Level(id: .sos, number: 17, title: "Mayday", clue: "··· ——— ···", sense: .touch, x: 0.72, y: 0.88,
              neighbours: [.drawing, .theme, .volume], needsPhone: false,
              hints: ["Dots and dashes.", "Morse code: short and long presses.", "Tap S-O-S: three short presses, three long ones, three short."]),
    ]
}

extension LevelID {
    /// The level's place in ``Catalogue/levels``.
    var index: Int { Self.allCases.firstIndex(of: self)! }
}
