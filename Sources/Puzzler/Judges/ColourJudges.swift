import Foundation
import SentioImage

/// What the colour levels see of a frame: its mean lightness and the colour in the cut-out.
public struct ColourSample: Sendable, Equatable {
    /// Mean CIE L* (0 black … 100 white) over the whole frame.
    public var lightness: Double
    /// The mean colour of the cut-out window (averaged in linear light, then taken to Lab).
    public var window: Lab

    public init(lightness: Double, window: Lab) {
        self.lightness = lightness
        self.window = window
    }

    /// The cut-out: the centre of the frame, a quarter of its width and height.
    public static let windowRect = LevelDetail.Window(x: 0.375, y: 0.375, w: 0.25, h: 0.25)

    /// Samples `image` on a grid of about 64×48 points (plenty for a mean; cheap at any size).
    public init(_ image: Image) {
        let stepX = max(1, image.width / 64), stepY = max(1, image.height / 48)
        var lSum = 0.0, count = 0.0
        var r = 0.0, g = 0.0, b = 0.0, inside = 0.0
        let w = Self.windowRect
        let x0 = Int(w.x * Double(image.width)), x1 = Int((w.x + w.w) * Double(image.width))
        let y0 = Int(w.y * Double(image.height)), y1 = Int((w.y + w.h) * Double(image.height))
        var y = stepY / 2
        while y < image.height {
            var x = stepX / 2
            while x < image.width {
                let linear = SRGB(image.pixel(x: x, y: y)).linear
                // L* from the relative luminance (Y), as the Lab conversion does.
                let luminance = 0.2126 * linear.r + 0.7152 * linear.g + 0.0722 * linear.b
                lSum += luminance > 216.0 / 24389 ? 116 * cbrt(luminance) - 16 : luminance * 24389 / 27
                count += 1
                if x >= x0 && x < x1 && y >= y0 && y < y1 {
                    r += linear.r; g += linear.g; b += linear.b
                    inside += 1
                }
                x += stepX
            }
            y += stepY
        }
        lightness = count > 0 ? lSum / count : 0
        let n = max(1, inside)
        window = LinearRGB(r: r / n, g: g / n, b: b / n).xyz.lab
    }
}

/// The dark level: cover the camera until the page's button appears, then press it.
///
/// The page's background follows the camera's lightness (`grey`), the original's hint that the
/// light matters; the button shows while the mean L* is under ``threshold`` and for a moment
/// after, so a player can uncover the camera and still press it.
public struct DarkJudge: Sendable {
    /// Mean L* under which the button appears. A covered webcam reads under 5 and a dim room
    /// about 25–40 (measured on the fixtures' clips, docs/puzzler.md).
    public var threshold = 20.0
    /// How long the button stays after the light returns, seconds.
    public var linger = 1.5
    private var lastDark: Double?
    private var lastTime = 0.0
    private var lastLightness: Double?

    public init() {}

    public mutating func judge(_ sample: ColourSample, at time: Double) -> LevelReport {
        lastTime = time
        lastLightness = sample.lightness
        if sample.lightness < threshold { lastDark = time }
        return report(message: buttonShown ? "Now!" : "Hmm. The background seems to follow you.")
    }

    /// Whether the button is on the page now.
    public var buttonShown: Bool { lastDark.map { lastTime - $0 <= linger } ?? false }

    /// The player pressed the page's button.
    public mutating func press() -> LevelReport {
        guard buttonShown else { return report(message: "There is no button to press yet.") }
        var report = report(message: "Solved!")
        report.phase = .solved
        report.progress = 1
        return report
    }

    private func report(message: String) -> LevelReport {
        var detail = LevelDetail()
        detail.lightness = lastLightness
        detail.threshold = threshold
        detail.button = buttonShown
        // The page's background: the grey of the camera's lightness.
        let l = lastLightness ?? 50
        detail.grey = Int((SRGB.encode(Lab(l: l, a: 0, b: 0).xyz().y) * 255).rounded())
        let progress = lastLightness.map { min(0.9, max(0, (70 - $0) / (70 - threshold) * 0.9)) } ?? 0
        return LevelReport(progress: buttonShown ? 0.9 : progress, message: message, detail: detail)
    }
}

/// The colour level: hold each reference colour in the cut-out for three seconds, in order;
/// matched by CIEDE2000 in CIE Lab (the original found RGB distance failed).
public struct ColourMatchJudge: Sendable {
    public struct Reference: Sendable {
        public var name: String
        public var srgb: SRGB
        public var hex: String {
            let c = srgb.rgba
            return String(format: "#%02X%02X%02X", c.r, c.g, c.b)
        }
    }

    /// Three colours most homes have things of: a red, a yellow and a blue.
    public static let references = [
        Reference(name: "red", srgb: SRGB(r: 0.80, g: 0.12, b: 0.14)),
        Reference(name: "yellow", srgb: SRGB(r: 0.96, g: 0.78, b: 0.10)),
        Reference(name: "blue", srgb: SRGB(r: 0.10, g: 0.36, b: 0.78)),
    ]
    /// The largest ΔE2000 that still counts as the colour. 12 is a clearly visible difference
    /// but the same colour name; a webcam's white balance moves a card by 5–10.
    public var maxDeltaE = 12.0
    public var needSeconds = 3.0
    private var current = 0
    private var hold = HoldTimer(need: 3, grace: 0.3)

    public init() {}

    public mutating func judge(_ sample: ColourSample, at time: Double) -> LevelReport {
        var detail = LevelDetail()
        detail.window = ColourSample.windowRect
        detail.needSeconds = needSeconds
        detail.lightness = sample.lightness
        guard current < Self.references.count else {
            detail.swatches = Self.references.map { .init(name: $0.name, hex: $0.hex, done: true) }
            return .solved(detail)
        }
        let reference = Self.references[current]
        let deltaE = DeltaE.ciede2000(sample.window, reference.srgb.lab)
        let held = hold.update(deltaE <= maxDeltaE, at: time)
        detail.deltaE = (deltaE * 10).rounded() / 10
        detail.heldSeconds = held
        detail.holding = deltaE <= maxDeltaE
        if held >= needSeconds {
            current += 1
            hold.reset()
            detail.heldSeconds = 0
        }
        detail.current = min(current, Self.references.count - 1)
        detail.swatches = Self.references.enumerated().map { .init(name: $1.name, hex: $1.hex, done: $0 < current) }
        if current == Self.references.count {
            return .solved(detail)
        }
        let progress = (Double(current) + min(1, held / needSeconds)) / Double(Self.references.count)
        let message = sample.lightness < 12 ? "It is too dark to see any colour." :
            deltaE <= maxDeltaE ? "That's it — hold it there." : "Colour \(current + 1) of \(Self.references.count)"
        return LevelReport(progress: progress, message: message, detail: detail)
    }
}
