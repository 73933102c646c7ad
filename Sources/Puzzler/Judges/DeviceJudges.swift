import Foundation

/// A signal the browser gives about the device, as the page reports it.
public struct DeviceEvent: Sendable, Equatable, Codable {
    /// `color-scheme` (`dark`/`light`), `online`, `offline`, `orientation`
    /// (`screen.orientation.type`), `audio-outputs` (how many), `battery` (charging or not;
    /// `unsupported` where the browser hides it).
    public var name: String
    public var text: String?
    public var number: Double?
    public var charging: Bool?
    /// Milliseconds on the page's clock.
    public var t: Double?

    public init(name: String, text: String? = nil, number: Double? = nil, charging: Bool? = nil, t: Double? = nil) {
        (self.name, self.text, self.number, self.charging, self.t) = (name, text, number, charging, t)
    }

    enum CodingKeys: String, CodingKey { case name, value, t }
    struct BatteryValue: Codable { var charging: Bool?; var level: Double? }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        t = try c.decodeIfPresent(Double.self, forKey: .t)
        if let text = try? c.decodeIfPresent(String.self, forKey: .value) { self.text = text }
        else if let number = try? c.decodeIfPresent(Double.self, forKey: .value) { self.number = number }
        else if let battery = try? c.decodeIfPresent(BatteryValue.self, forKey: .value) { charging = battery.charging; number = battery.level }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(t, forKey: .t)
        if let text { try c.encode(text, forKey: .value) }
        else if let charging { try c.encode(BatteryValue(charging: charging, level: number), forKey: .value) }
        else if let number { try c.encode(number, forKey: .value) }
    }
}

/// The device levels, each a sequence of browser signals (docs/puzzler.md has the mapping from
/// the original's hardware and why):
/// - theme: the system's appearance changed to dark, then to light (the brightness to its
///   minimum, then its maximum);
/// - plugs: a new audio output appears (headphones), then the battery starts charging (the
///   charger) — or, where the browser hides the battery, the headphones come out and go in again;
/// - offline: the page goes offline for at least two seconds and comes back;
/// - volume: the screen is turned through all four orientations and back upright.
/// Only changes count: the page's first report of each signal is where the player starts.
public struct DeviceJudge: Sendable {
    public let level: LevelID
    private var last: [String: DeviceEvent] = [:]
    private var done: [Bool]
    private var offlineSince: Double?
    private var orientations: Set<String> = []
    private var batteryHidden = false
    private var unpluggedAfterFirst = false
    /// The offline level: the last time offline was too short (said, so the player knows why).
    private var backTooSoon = false

    public static let minimumOfflineMs = 2000.0
    static let orientationTypes = ["portrait-primary", "landscape-primary", "portrait-secondary", "landscape-secondary"]

    public init(level: LevelID) {
        precondition([.theme, .plugs, .offline, .volume].contains(level), "\(level) is not a device level")
        self.level = level
        done = Array(repeating: false, count: level == .volume ? 5 : 2)
    }

    private var labels: [String] {
        switch level {
        case .theme: ["dark", "light"]
        case .plugs: batteryHidden ? ["headphones", "headphones again"] : ["headphones", "charger"]
        case .offline: ["offline", "back online"]
        default: ["portrait", "landscape", "upside down", "landscape the other way", "upright again"]
        }
    }

    public mutating func judge(_ event: DeviceEvent) -> LevelReport {
        let previous = last[event.name]
        last[event.name] = event
        switch level {
        case .theme:
            guard event.name == "color-scheme", let value = event.text, let before = previous?.text, before != value else { break }
            if value == "dark" { done[0] = true } else if value == "light" && done[0] { done[1] = true }
        case .plugs:
            if event.name == "battery" && event.text == "unsupported" { batteryHidden = true }
            if event.name == "audio-outputs", let count = event.number, let before = previous?.number {
                if count > before {
                    if !done[0] { done[0] = true } else if batteryHidden && unpluggedAfterFirst { done[1] = true }
                } else if count < before && done[0] {
                    unpluggedAfterFirst = true
                }
            }
            if event.name == "battery", done[0], event.charging == true, previous?.charging == false { done[1] = true }
        case .offline:
            if event.name == "offline" { offlineSince = event.t ?? 0; done[0] = true; backTooSoon = false }
            if event.name == "online", let since = offlineSince {
                if (event.t ?? since) - since >= Self.minimumOfflineMs { done[1] = true } else { offlineSince = nil; done[0] = false; backTooSoon = true }
            }
        default:
            guard event.name == "orientation", let type = event.text, Self.orientationTypes.contains(type) else { break }
            orientations.insert(type)
            for (i, t) in Self.orientationTypes.enumerated() where orientations.contains(t) { done[i] = true }
            if orientations.count == 4 && type == "portrait-primary" && previous != nil { done[4] = true }
        }
        return report()
    }

    public func report() -> LevelReport {
        var detail = LevelDetail()
        detail.steps = zip(labels, done).map { LevelDetail.Step(label: $0, done: $1) }
        let count = done.filter { $0 }.count
        if done.allSatisfy({ $0 }) { return .solved(detail) }
        let message: String
        if level == .offline && done[0] { message = "Offline — the level keeps watching. Come back in a moment." }
        else if level == .offline && backTooSoon { message = "Back too soon: stay cut off for at least \(Int(Self.minimumOfflineMs / 1000)) seconds." }
        else if level == .plugs && batteryHidden && !done[0] { message = "This browser hides the battery: plug the headphones in, out and in again." }
        else { message = count == 0 ? "Waiting…" : "\(count) of \(done.count)" }
        return LevelReport(progress: Double(count) / Double(done.count), message: message, detail: detail)
    }
}

/// The SOS level: presses on the screen, short (under 300 ms) or long; the last nine must be
/// ··· ——— ···. A pause of three seconds starts over.
public struct MorseJudge: Sendable {
    public static let longPressMs = 300.0
    public static let pauseMs = 3000.0
    public static let sos = "···———···"
    private var presses = ""

    public init() {}

    /// One press of `ms` milliseconds, `gapMs` after the previous one ended (nil: unknown).
    public mutating func judge(pressMs: Double, gapMs: Double? = nil) -> LevelReport {
        if let gapMs, gapMs >= Self.pauseMs { presses = "" }
        presses.append(pressMs >= Self.longPressMs ? "—" : "·")
        if presses.count > 9 { presses = String(presses.suffix(9)) }
        var detail = LevelDetail()
        detail.presses = presses
        detail.letters = Self.letters(presses)
        if presses == Self.sos { return .solved(detail, message: "Solved — help is on its way!") }
        // Progress: the longest tail that begins the answer.
        let matched = (0...presses.count).reversed().first { Self.sos.hasPrefix(String(presses.suffix($0))) } ?? 0
        return LevelReport(progress: Double(matched) / 9, message: pressMs >= Self.longPressMs ? "long" : "short", detail: detail)
    }

    /// The presses read as S and O where they fall into threes (for the page to show).
    static func letters(_ presses: String) -> String {
        var out = "", rest = Substring(presses)
        while rest.count >= 3 {
            let three = rest.prefix(3)
            out += three == "···" ? "S" : three == "———" ? "O" : "?"
            rest = rest.dropFirst(3)
        }
        return out
    }
}
