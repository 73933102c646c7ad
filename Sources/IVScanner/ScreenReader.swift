import Foundation
import SentioImage
import SentioText

/// A field read off the screen: its text, Tesseract's confidence and where it was read.
public struct ScreenField: Sendable, Equatable {
    public var text: String
    public var confidence: Double
    public var box: PixelRect
}

/// What a Pokémon detail screen shows, as far as it could be read. Fields that could not be
/// read are nil (and absent from `fields`); nothing is guessed.
public struct ScreenReading: Sendable, Equatable {
    public var name: String?
    public var cp: Int?
    public var hp: Int?
    public var hpMax: Int?
    public var stardust: Int?
    /// Other costs the stardust digits could be (a leading 1 that was the vial, or one more
    /// digit): the scan tries them when the name's species does not fit `stardust`.
    public var stardustAlternatives: [Int] = []
    /// The candy one power-up costs, as the button's row shows it.
    public var candyCost: Int?
    /// The candy the Evolve button asks for (12, 25, 50, 100, 200 or 400), when the screen has
    /// one and it was read; language-independent, it narrows the species when the name cannot.
    public var evolveCandy: Int?
    /// The candy's name as read ("PIKACHU CANDY"; names the family, even under a nickname).
    public var candyName: String?
    /// Whether the screen shows "LUCKY POKÉMON" under the name (its stardust costs are halved,
    /// its IVs at least 12 each).
    public var lucky: Bool?
    /// The appraisal's stat bars, when the screen shows them (the IVs themselves).
    public var appraisal: AppraisalBars?
    /// The level arc and its dot (the level follows from it with the trainer level).
    public var arc: LevelArc?
    public var fields: [String: ScreenField] = [:]
}

/// Reads a Pokémon GO detail screen: the green HP bar is the anchor (found by colour at any
/// resolution or aspect ratio); the name sits above it, the HP text below, CP high above, and
/// the power-up button (the same green) further below with its stardust cost beside it. Every
/// distance is in units of the screen's width, which the game's layout scales with. Without
/// the bar in its colours (a dim layer, another app's box over it) the level arc, found on its
/// own, is the anchor (`readWithoutBar`).
public final class ScreenReader {
    /// How a reader works beyond reading.
    public struct Options: Sendable {
        /// When set, every field is also written there as cut (`raw_X_Y.png`), as binarized
        /// (`field_X_Y.png`) and as the glyphs kept (`glyphs_X_Y.png`), X and Y the field's
        /// top-left corner, for tuning. The folder must exist; a file that cannot be written
        /// is skipped (debug output never fails a reading). Nil (the default): nothing is
        /// written.
        public var debugDirectory: String?

        public init(debugDirectory: String? = nil) {
            self.debugDirectory = debugDirectory
        }
    }

    public let options: Options
    private let ocr: TextRecognizer

    /// When reading must stop (``TextRecognizer/deadline``): a reading past it throws
    /// `TextError.deadlinePassed`. Nil: no limit.
    public var deadline: ContinuousClock.Instant? {
        get { ocr.deadline }
        set { ocr.deadline = newValue }
    }
    let calculator: IVCalculator
    /// The most HP any Pokémon shows (`GameData.maxHP`): a larger reading is a misread.
    let maxHP: Int
    /// Every stardust cost the game shows: each level's, lucky (½), shadow (×1.2), purified (×0.9).
    package let stardustCosts: Set<Int>
    /// Lato's digit tops, for costs whose lower part another app's toast hides.
    let digitTops: DigitTops

    /// A reader on the bundled game tables and digit templates. An error when Tesseract cannot
    /// start or the bundled data is damaged (`GameData.shared`, `DigitTops.bundled()`).
    public init(options: Options = .init()) throws {
        self.options = options
        calculator = try IVCalculator()
        maxHP = calculator.data.maxHP
        var costs = Set<Int>()
        for level in calculator.data.levels where level.stardust > 0 {
            for (lucky, shadow, purified) in ScreenReader.modifiers {
                costs.insert(calculator.stardust(from: level, lucky: lucky, shadow: shadow, purified: purified))
            }
        }
        stardustCosts = costs
        digitTops = try DigitTops.bundled()
        ocr = try TextRecognizer()
    }

    /// Writes `image` as `name` into the debug folder, when the options name one.
    func debug(_ image: Image, _ name: String) {
        guard let dir = options.debugDirectory else { return }
        try? ImageIO.write(image, to: dir + "/" + name)
    }

    /// The HP bar: the first thin, long horizontal run of the bar's colours, centred on the
    /// screen, with the white card above and below it, in the middle of the screen. The bar's
    /// colours are its green fill, the yellow or red fill of a hurt Pokémon, and the gray of the
    /// empty track (a Pokémon at 1 HP shows almost nothing else).
    package static func hpBar(_ image: Image) -> PixelRect? {
        let w = image.width, h = image.height
        func barColour(_ p: RGBA) -> Bool {
            let (r, g, b) = (Int(p.r), Int(p.g), Int(p.b))
            if g > 150 && g - r > 50 && b > 90 && g - b > 10 { return true }             // green fill
            if abs(r - g) < 12 && abs(g - b) < 12 && (185 ... 235).contains(r) { return true } // empty track
            return r > 200 && b < 120 && r - b > 120                                       // yellow or red fill
        }
        // The card is white, or pale pink where the open appraisal tints it.
        func white(_ x: Int, _ y: Int) -> Bool {
            guard y >= 0, y < h else { return false }
            let p = image.pixel(x: x, y: y)
            return min(p.r, p.g, p.b) > 205 && max(p.r, p.g, p.b) > 235 && Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) < 40
        }
        var run: (y: Int, x0: Int, x1: Int, rows: Int)?
        func accept(_ r: (y: Int, x0: Int, x1: Int, rows: Int)) -> PixelRect? {
            let mid = (r.x0 + r.x1) / 2, margin = max(2, w / 100)
            // The white card above and below, at three of five points along the bar (something
            // may stand in front of it).
            let points = (1 ... 5).map { r.x0 + (r.x1 - r.x0) * $0 / 6 }
            guard r.rows <= max(3, w / 60), abs(mid - w / 2) < w / 15,
                  points.filter({ white($0, r.y - margin) && white($0, r.y + r.rows + margin) }).count >= 3 else { return nil }
            // The game centres the bar. Green of another app's overlay joined on at one end
            // (Calcy IV's bubble at the left edge) shifts the run's middle: keep the part
            // symmetric about the screen's middle.
            if abs(mid - w / 2) > w / 100 {
                let half = min(w / 2 - r.x0, r.x1 - w / 2)
                return PixelRect(x: w / 2 - half, y: r.y, width: 2 * half, height: r.rows)
            }
            return PixelRect(x: r.x0, y: r.y, width: r.x1 - r.x0, height: r.rows)
        }
        for y in h * 3 / 10 ..< h * 8 / 10 {
            // Runs of the bar's colours on this row, joined across gaps up to a quarter of the
            // width (a wing or tail in front of the bar) as long as the runs cover three
            // quarters of the joined stretch; the longest stretch centred on the screen (within
            // a fifteenth of the width) counts, so that another app's button on the bar's row
            // (Calcy IV's red ring at the left edge) is not joined on. A run shorter than a
            // thirtieth of the width (the gender sign beside the bar, gray like the track) is
            // not joined on.
            var runs: [(Int, Int)] = [], start = -1
            for x in 0 ... w {
                if x < w && barColour(image.pixel(x: x, y: y)) { if start < 0 { start = x } } else if start >= 0 {
                    if x - start >= max(2, w / 100) { runs.append((start, x)) }
                    start = -1
                }
            }
            var best = (0, 0)
            for i in runs.indices {
                var j = i, covered = runs[i].1 - runs[i].0
                while true {
                    if abs((runs[i].0 + runs[j].1) / 2 - w / 2) < w / 15 && runs[j].1 - runs[i].0 > best.1 - best.0 { best = (runs[i].0, runs[j].1) }
                    guard j + 1 < runs.count && runs[j + 1].0 - runs[j].1 <= w / 4 && runs[j + 1].1 - runs[j + 1].0 >= w / 30
                        && (covered + runs[j + 1].1 - runs[j + 1].0) * 4 >= (runs[j + 1].1 - runs[i].0) * 3 else { break }
                    j += 1; covered += runs[j].1 - runs[j].0
                }
            }
            // The bar is about half the width on every screen seen (2016–2026); a gray line
            // over two thirds of it (the top edge of Calcy IV's result box) is no bar.
            let length = best.1 - best.0
            if length > w * 3 / 10 && length < w * 2 / 3 && best.0 > w / 10 {
                if let r = run { run = (r.y, min(r.x0, best.0), max(r.x1, best.1), r.rows + 1) } else { run = (y, best.0, best.1, 1) }
            } else if let r = run {
                if let bar = accept(r) { return bar }
                run = nil
            }
        }
        return nil
    }

    /// Crops `rect`, enlarges small text, and makes it dark on light for Tesseract. Light text
    /// is what stands out from a white top-hat `glyphHeight` pixels wide (default a quarter of
    /// the box's height).
    /// `keepOrange` keeps orange text (a lucky Pokémon's halved stardust cost) as ink. Light
    /// text is at least `white` in its darkest channel (lower under a dim layer).
    package func prepare(_ image: Image, _ rect: PixelRect, lightText: Bool, glyphHeight: Int? = nil, keepOrange: Bool = false,
                         white: Int = 245, dimmed: Bool = false) throws -> Image {
        guard let r = rect.clamped(width: image.width, height: image.height) else { throw IVError.invalid("field outside the screen") }
        var colour = try image.cropped(to: r).converted(to: .rgb8)
        if !lightText {
            // Text on the card is gray; icons (stardust, candy) are saturated: wash them out.
            for y in 0 ..< colour.height {
                for x in 0 ..< colour.width {
                    let p = colour.pixel(x: x, y: y)
                    // Red text (a cost the player cannot pay) stays: red well above green and blue.
                    let red = Int(p.r) - Int(max(p.g, p.b)) > 80
                    let orange = keepOrange && p.r > 200 && (110 ... 200).contains(p.g) && Int(p.r) - Int(p.b) > 110
                    if !red && !orange && Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) > 70 { for k in 0 ..< 3 { colour[x, y, k] = 255 } }
                }
            }
        }
        // Light text is pure white: its darkest channel stays near 255 where a yellow sun's
        // glow or a pale sky drops in blue or red. Dark text: plain luminance.
        var crop = lightText ? try ScreenReader.darkestChannel(colour) : colour.converted(to: .gray8)
        let scale = max(1, 60.0 / Double(r.height))
        crop = try crop.resized(to: Size(width: Int(Double(r.width) * scale), height: Int(Double(r.height) * scale)))
        // Light text (CP) is near-white, but so can be the sky behind it: the text is what is
        // white and brighter than its surroundings once everything thinner than a quarter of
        // the field's height is taken away (a white top-hat). Dark text sits on the
        // card, where Otsu's threshold separates it from the (white or pale green) background.
        var out = crop
        if lightText {
            let background = ScreenReader.opening(crop, size: max(5, glyphHeight.map { Int(Double($0) * scale) } ?? crop.height / 4))
            // A lossy copy (a messenger's JPEG) leaves the white text speckled: hysteresis closes
            // it up. Not under a dim layer: there nothing is at 255, and the lower threshold let
            // the dimmed sky join the digits (DimmedCardTests misread three CPs).
            let lossy = !dimmed && ScreenReader.lossy(crop, background: background)
            out = ScreenReader.hysteresis(crop, background: background, strong: white, weak: lossy ? white - ScreenReader.lossyMargin : white)
        } else {
            let threshold = ScreenReader.otsu(crop.packedBytes)
            for y in 0 ..< out.height {
                for x in 0 ..< out.width { out[x, y, 0] = Int(crop[x, y, 0]) < threshold ? 0 : 255 }
            }
        }
        // `Options.debugDirectory` keeps every field as cut and as binarized, for tuning.
        if options.debugDirectory != nil {
            debug(out, "field_\(rect.x)_\(rect.y).png")
            if let raw = try? image.cropped(to: r) { debug(raw, "raw_\(rect.x)_\(rect.y).png") }
        }
        return out
    }

    /// The (lucky, shadow, purified) combinations a Pokémon can have.
    static let modifiers = [(false, false, false), (true, false, false), (false, true, false), (false, false, true),
                            (true, false, true), (true, true, false)]

    /// The candy costs a power-up can show beside `stardust` (every level charging that much
    /// stardust, plain, shadow ×1.2 or purified ×0.9); 1…20 when the stardust is unknown.
    func candyCosts(stardust: Int?) -> Set<Int> {
        guard let stardust else { return Set(1 ... 20) }
        var costs = Set<Int>()
        for level in calculator.data.levels where level.candy > 0 {
            for (lucky, shadow, purified) in ScreenReader.modifiers
            where calculator.stardust(from: level, lucky: lucky, shadow: shadow, purified: purified) == stardust {
                costs.insert(shadow ? Int((Double(level.candy) * 1.2).rounded()) : purified ? Int((Double(level.candy) * 0.9).rounded()) : level.candy)
            }
        }
        return costs
    }

    /// Keeps only the tallest line of glyphs of a binarized field (ink 0 on 255): the digits of
    /// a cost are the largest text in their box, while labels are smaller and icons touch the
    /// edge. A line is a glyph with those nearly as tall (70%) whose middles are within its
    /// height. With `minimumCount` the tallest line of at least that many glyphs wins (a
    /// stardust cost has three digits or more; the outline of its vial icon, taller than the
    /// digits, stands alone), else the tallest. `round` drops glyphs about as wide as tall or
    /// wider (a candy icon, whole or in stripes; a lone digit is narrower). A band across the
    /// field — from the first to the last row nearly all ink, with whatever it holds (another
    /// app's toast over the costs, its message light on dark) — is cleared first: it is no
    /// text, and the digits' tops above it still read: the line then comes with each glyph's
    /// ink down to the band (`cutTops`). Returns nil when no line is left.
    package static func tallestGlyphs(_ binary: Image, minimumCount: Int = 1, droppingRound round: Bool = false) throws -> GlyphLine? {
        var binary = binary
        let band = (0 ..< binary.height).filter { y in (0 ..< binary.width).reduce(0) { $0 + (binary[$1, y, 0] == 0 ? 1 : 0) } * 10 >= binary.width * 9 }
        if let top = band.first, let bottom = band.last {
            for y in top ... bottom { for x in 0 ..< binary.width { binary[x, y, 0] = 255 } }
        }
        let glyphs = Glyphs(binary)
        func height(_ b: Glyphs.Box) -> Int { b.y1 - b.y0 }
        let candidates = glyphs.boxes.enumerated().filter {
            !$0.element.touches && height($0.element) >= 4 && !(round && ($0.element.x1 - $0.element.x0) * 10 >= height($0.element) * 9)
        }
        func line(_ top: Glyphs.Box) -> [Int32] {
            candidates.filter {
                height($0.element) >= height(top) * 7 / 10 && (top.y0 ... top.y1).contains(($0.element.y0 + $0.element.y1) / 2)
            }.map { Int32($0.offset) }
        }
        // Tallest first; of equal heights the later (further right) first, as a digit follows its icon.
        let lines = candidates.sorted { (height($0.element), $0.offset) > (height($1.element), $1.offset) }.lazy.map { line($0.element) }
        guard let best = lines.first(where: { $0.count >= minimumCount }) ?? lines.first,
              let image = try glyphs.render(Set(best)) else { return nil }
        // Feet cut by the band: the line ends on the row above it. The digits' tops are level,
        // and even a 1's top is a quarter as wide as the visible line is tall: the stardust
        // vial in the line, taller or a mere stroke, is left out.
        let boxes = best.map { glyphs.boxes[Int($0)] }, top = boxes.map(\.y0).min()!, bottom = boxes.map(\.y1).max()!
        guard let bandTop = band.first, (bandTop - 2 ... bandTop).contains(bottom + 1) else { return GlyphLine(image: image, rows: top ... bottom) }
        let level = boxes.map(\.y0).sorted()[boxes.count / 2], slack = max(2, (bottom - level) / 6)
        let digits = best.filter {
            let b = glyphs.boxes[Int($0)]
            return abs(b.y0 - level) <= slack && (b.x1 - b.x0 + 1) * 4 >= bottom - level + 1
        }
        guard let digitsTop = digits.map({ glyphs.boxes[Int($0)].y0 }).min() else { return GlyphLine(image: image, rows: top ... bottom) }
        let tops = digits.sorted { glyphs.boxes[Int($0)].x0 < glyphs.boxes[Int($1)].x0 }.compactMap { id in
            let b = glyphs.boxes[Int(id)]
            return InkMask(width: b.x1 - b.x0 + 1, height: bottom - digitsTop + 1,
                           ink: (digitsTop ... bottom).flatMap { y in (b.x0 ... b.x1).map { glyphs.label[y * glyphs.width + $0] == id } })
        }
        return GlyphLine(image: image, rows: top ... bottom, cutTops: tops.count == digits.count ? tops : [])
    }

    /// A line of glyphs picked out of a field: drawn alone for Tesseract, the field's rows it
    /// spans, and where a band cut off their feet, each glyph's ink from the line's top down
    /// to the band, left to right.
    package struct GlyphLine {
        package var image: Image
        package var rows: ClosedRange<Int>
        package var cutTops: [InkMask]? = nil
    }

    /// The CP's digits in a binarized box above the arc: the line of the most glyphs between
    /// `minHeight` and twice that tall, side by side (gaps under their height), their tops
    /// level, centred within `offCentre` of the box's middle. Glyphs down to half the line's
    /// height join it when their tops are level with it (a digit whose foot the Pokémon
    /// hides), and touching digits make one glyph up to 2.5 times as wide as tall. The status
    /// bar's icons and the "CP" label are shorter; a white spike or eye of the Pokémon stands
    /// alone or off the line. A thin line touching a digit is cut off first (`Glyphs.cutNecks`).
    static func cpGlyphs(_ binary: Image, minHeight: Int, offCentre: Int) throws -> Image? {
        var glyphs = Glyphs(binary)
        glyphs.cutNecks(minHeight: minHeight)
        typealias Box = Glyphs.Box
        // A thin stroke lost to the threshold splits a digit (a 3 into its two bowls): pieces a
        // third of a digit tall or more, stacked in the same columns less than a fifth of its
        // height apart, are one glyph. Smaller specks are left out before this pairwise merging.
        var pieces = glyphs.boxes.enumerated().filter { !$0.element.touches && ($0.element.y1 - $0.element.y0) * 3 >= minHeight }
            .map { (box: $0.element, labels: [Int32($0.offset)]) }
        var merged = true
        while merged {
            merged = false
            outer: for i in pieces.indices {
                for j in pieces.indices where j > i {
                    let a = pieces[i].box, b = pieces[j].box
                    let overlap = min(a.x1, b.x1) - max(a.x0, b.x0) + 1, narrower = min(a.x1 - a.x0, b.x1 - b.x0) + 1
                    let gap = max(a.y0, b.y0) - min(a.y1, b.y1)
                    if overlap * 5 >= narrower * 3 && gap * 5 <= minHeight && min(a.y1 - a.y0, b.y1 - b.y0) * 3 >= minHeight {
                        pieces[i] = ((min(a.x0, b.x0), min(a.y0, b.y0), max(a.x1, b.x1), max(a.y1, b.y1), false), pieces[i].labels + pieces[j].labels)
                        pieces.remove(at: j)
                        merged = true
                        break outer
                    }
                }
            }
        }
        pieces.sort { $0.box.x0 < $1.box.x0 }
        func height(_ b: Box) -> Int { b.y1 - b.y0 + 1 }
        var best: [Int] = []
        for (k, seed) in pieces.enumerated() where (minHeight ... 2 * minHeight).contains(height(seed.box)) && seed.box.x1 - seed.box.x0 + 1 <= height(seed.box) * 5 / 2 {
            let s = seed.box, h = height(s)
            func member(_ b: Box) -> Bool {
                abs(b.y0 - s.y0) * 7 <= h && height(b) * 2 >= h && height(b) * 4 <= h * 5 && b.x1 - b.x0 + 1 <= height(b) * 5 / 2
            }
            // The line through the seed, grown both ways while the gaps stay under its height.
            let line = pieces.indices.filter { member(pieces[$0].box) }
            guard let at = line.firstIndex(of: k) else { continue }
            var lo = at, hi = at
            while lo > 0 && pieces[line[lo]].box.x0 - pieces[line[lo - 1]].box.x1 <= h { lo -= 1 }
            while hi < line.count - 1 && pieces[line[hi + 1]].box.x0 - pieces[line[hi]].box.x1 <= h { hi += 1 }
            let members = Array(line[lo ... hi]), middle = (pieces[members.first!].box.x0 + members.map { pieces[$0].box.x1 }.max()!) / 2
            if abs(middle - glyphs.width / 2) <= offCentre, members.count > best.count { best = members }
        }
        // One glyph can be two or three touching digits.
        guard best.count >= 2 || best.contains(where: { let b = pieces[$0].box; return b.x1 - b.x0 + 1 > height(b) }) else { return nil }
        return try glyphs.render(Set(best.flatMap { pieces[$0].labels }))
    }

    /// Sets to background (255) the pixels of a binarized crop of `box` (possibly enlarged) that
    /// lie within `halfWidth` pixels of the arc's line.
    static func erase(_ arc: LevelArc, from binary: inout Image, box: PixelRect, halfWidth: Double) {
        let sx = Double(box.width) / Double(binary.width), sy = Double(box.height) / Double(binary.height)
        let ry = arc.radius * arc.squash
        for y in 0 ..< binary.height {
            for x in 0 ..< binary.width {
                let dx = (Double(box.x) + (Double(x) + 0.5) * sx - arc.centerX) / arc.radius
                let dy = (Double(box.y) + (Double(y) + 0.5) * sy - arc.centerY) / ry
                if dy <= 0.05, abs((dx * dx + dy * dy).squareRoot() - 1) * arc.radius < halfWidth { binary[x, y, 0] = 255 }
            }
        }
    }

    /// How much darker than `white` a light glyph's pixel may be when it touches one that is
    /// white: a JPEG (a screenshot sent through a messenger) leaves white digits speckled,
    /// their strokes between 215 and 255 and their chroma bled into the sky's, where the
    /// phone's own PNG has them at 255.
    static let lossyMargin = 30

    /// Light text on a light, uneven background, binarized (ink 0 on 255): a pixel is ink when
    /// it rises more than 6 over `background` (the opening, `opening`) and is at least
    /// `strong`, or at least `weak` and joined to such a pixel through others (hysteresis, as
    /// in Canny's edges: the speckled strokes of a compressed screenshot stay whole, while a
    /// pale patch of sky, nowhere `strong`, stays background). `weak` equal to `strong`: a
    /// plain threshold.
    static func hysteresis(_ gray: Image, background: [UInt8], strong: Int, weak: Int) -> Image {
        let w = gray.width, h = gray.height
        // 2: ink, 1: weak, 0: background.
        var level = [UInt8](repeating: 0, count: w * h)
        var stack: [Int] = []
        for y in 0 ..< h {
            for x in 0 ..< w {
                let i = y * w + x, v = Int(gray[x, y, 0])
                guard v - Int(background[i]) > 6 else { continue }
                if v >= strong { level[i] = 2; stack.append(i) } else if v >= weak { level[i] = 1 }
            }
        }
        while let i = stack.popLast() {
            let x = i % w, y = i / w
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let nx = x + dx, ny = y + dy
                guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                let j = ny * w + nx
                if level[j] == 1 { level[j] = 2; stack.append(j) }
            }
        }
        var out = gray
        for y in 0 ..< h { for x in 0 ..< w { out[x, y, 0] = level[y * w + x] == 2 ? 0 : 255 } }
        return out
    }

    /// Whether light text in `gray` (a field's darkest channel, over its `background`) comes
    /// from a lossy copy of the screen. The game draws its white text and lines at exactly 255,
    /// and a phone's own screenshot keeps them so, scaled or not: of the pixels from 240 up
    /// that rise over the background (text and lines, not a flat white sky, which a JPEG
    /// keeps at 255 too), most are 255. A JPEG's colour conversion and quantisation leave few
    /// of them at 255. Fewer than 50 such pixels (a dimmed screen) say nothing: not lossy.
    static func lossy(_ gray: Image, background: [UInt8]) -> Bool {
        var bright = 0, pure = 0
        for y in 0 ..< gray.height {
            for x in 0 ..< gray.width {
                let v = Int(gray[x, y, 0])
                guard v >= 240, v - Int(background[y * gray.width + x]) > 6 else { continue }
                bright += 1
                if v == 255 { pure += 1 }
            }
        }
        return bright >= 50 && pure * 10 < bright * 3
    }

    /// min(R, G, B) per pixel, as a gray image.
    static func darkestChannel(_ rgb: Image) throws -> Image {
        var out = try Image(width: rgb.width, height: rgb.height, format: .gray8)
        for y in 0 ..< rgb.height {
            for x in 0 ..< rgb.width { let p = rgb.pixel(x: x, y: y); out[x, y, 0] = min(p.r, p.g, p.b) }
        }
        return out
    }

    /// Grayscale opening (a minimum then a maximum over `size`×`size` squares, each done as
    /// two one-dimensional passes): what remains of the image once every bright detail
    /// narrower than `size` is flattened. Each pass is van Herk and Gil-Werman's: running
    /// extremes from both ends of `size`-long blocks give every window's in two lookups, so the
    /// cost does not grow with the window.
    package static func opening(_ gray: Image, size: Int) -> [UInt8] {
        let w = gray.width, h = gray.height, half = size / 2, k = 2 * half + 1
        var values = [UInt8](repeating: 0, count: w * h)
        gray.withUnsafeBytes { p in for y in 0 ..< h { for x in 0 ..< w { values[y * w + x] = p[y * gray.rowStride + x] } } }
        var other = values
        // One set of line buffers for every pass, long enough for the longer side.
        let longest = max(w, h) + 2 * half
        var padded = [UInt8](repeating: 0, count: longest), forward = padded, backward = padded
        padded.withUnsafeMutableBufferPointer { padded in
        forward.withUnsafeMutableBufferPointer { forward in
        backward.withUnsafeMutableBufferPointer { backward in
            /// Window extremes (centred, `k` wide) along `count` values of `src` at `start`,
            /// `start + step`, …, into the same places of `dst`. Outside the line the window
            /// simply stops (as if padded with the neutral value).
            func line(_ src: UnsafeMutableBufferPointer<UInt8>, _ dst: UnsafeMutableBufferPointer<UInt8>,
                      _ start: Int, _ step: Int, _ count: Int, minimum: Bool) {
                if minimum { line(src, dst, start, step, count, min, 255) } else { line(src, dst, start, step, count, max, 0) }
            }
            // Inlined once for min and once for max, so neither calls through a closure.
            @inline(__always) func line(_ src: UnsafeMutableBufferPointer<UInt8>, _ dst: UnsafeMutableBufferPointer<UInt8>,
                                        _ start: Int, _ step: Int, _ count: Int, _ pick: (UInt8, UInt8) -> UInt8, _ neutral: UInt8) {
                let n = count + 2 * half
                for i in 0 ..< half { padded[i] = neutral; padded[n - 1 - i] = neutral }
                for i in 0 ..< count { padded[half + i] = src[start + i * step] }
                for i in 0 ..< n { forward[i] = i % k == 0 ? padded[i] : pick(forward[i - 1], padded[i]) }
                backward[n - 1] = padded[n - 1]
                for i in stride(from: n - 2, through: 0, by: -1) { backward[i] = (i + 1) % k == 0 ? padded[i] : pick(backward[i + 1], padded[i]) }
                // The window over padded[i ... i + k − 1].
                for i in 0 ..< count { dst[start + i * step] = pick(backward[i], forward[i + k - 1]) }
            }
            values.withUnsafeMutableBufferPointer { a in
            other.withUnsafeMutableBufferPointer { b in
                // Rows from a into b, columns from b back into a: the minimum, then the maximum.
                for minimum in [true, false] {
                    for y in 0 ..< h { line(a, b, y * w, 1, w, minimum: minimum) }
                    for x in 0 ..< w { line(b, a, x, w, h, minimum: minimum) }
                }
            }
            }
        }
        }
        }
        return values
    }

    /// Otsu's threshold: the gray level that best splits the histogram into two classes.
    static func otsu(_ values: [UInt8]) -> Int {
        var histogram = [Double](repeating: 0, count: 256)
        for v in values { histogram[Int(v)] += 1 }
        let total = Double(values.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element }
        var best = (score: -1.0, t: 128), weight = 0.0, partial = 0.0
        for t in 0 ..< 256 {
            weight += histogram[t]
            partial += Double(t) * histogram[t]
            guard weight > 0, weight < total else { continue }
            let m0 = partial / weight, m1 = (sum - partial) / (total - weight)
            let score = weight * (total - weight) * (m0 - m1) * (m0 - m1)
            if score > best.score { best = (score, t) }
        }
        return best.t + 1
    }

    func read(_ image: Image, _ rect: PixelRect, lightText: Bool, characters: String?) throws -> ScreenField {
        let r = try ocr.recognize(prepare(image, rect, lightText: lightText), layout: .singleLine, characters: characters)
        return ScreenField(text: r.text, confidence: r.confidence, box: rect)
    }

    static func numbers(_ text: String) -> [Int] {
        text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    }

    /// Reads the screen; throws when it is not a Pokémon detail screen (neither the HP bar nor
    /// the level arc with the CP above it).
    public func read(_ image: Image) throws -> ScreenReading {
        guard let bar = ScreenReader.hpBar(image) else { return try readWithoutBar(image) }
        return try read(image, bar: bar)
    }

    /// Reads the screen from its HP bar. `dimmed` is the screen as shot when `image` is its
    /// undimmed copy: the CP is read from it, as white as `white`, with its `arc`.
    func read(_ image: Image, bar: PixelRect, dimmed: (image: Image, arc: LevelArc, white: Int)? = nil) throws -> ScreenReading {
        let w = Double(image.width)
        func u(_ v: Double) -> Int { Int(v * w / 1080) }
        let centre = bar.x + bar.width / 2
        var reading = ScreenReading()
        reading.appraisal = AppraisalBars.read(image)

        // A lucky Pokémon has a line of green "LUCKY POKÉMON" between its name and the bar.
        let luckyLine = ScreenReader.luckyLine(image, bar: bar, unit: w / 1080)
        reading.lucky = luckyLine != nil
        let nameBottom = luckyLine.map { $0.y - u(4) } ?? bar.y - u(15)
        let nameBox = PixelRect(x: centre - u(380), y: nameBottom - u(95), width: u(760), height: u(95))
        let name = try read(image, nameBox, lightText: false, characters: nil)
        let cleaned = name.text.filter { $0.isLetter || $0 == "-" || $0 == "." || $0 == "'" || $0 == " " }.trimmingCharacters(in: .whitespaces)
        if !cleaned.isEmpty { reading.name = cleaned; reading.fields["name"] = name }

        let hpBox = PixelRect(x: centre - u(230), y: bar.y + bar.height + u(8), width: u(460), height: u(55))
        let hp = try read(image, hpBox, lightText: false, characters: "0123456789/HP ")
        let hpNumbers = ScreenReader.numbers(hp.text)
        // "HP" (or Italian "PS") beside the numbers can read as more digits: a current HP over
        // the maximum, or a maximum no Pokémon has, is a misread, left unread.
        // Under a dim layer the text is fainter: the bar must not show more fill than the
        // numbers allow ("32 / 32HP" read as "32 / 321HP" under a full bar). Less fill proves
        // nothing: a menu's label over the bar's end hides some.
        if hpNumbers.count >= 2, hpNumbers[0] <= hpNumbers[1], hpNumbers[1] <= maxHP,
           dimmed == nil || ScreenReader.barFill(image, bar).map({ $0 <= Double(hpNumbers[0]) / Double(hpNumbers[1]) + 0.1 }) ?? false {
            reading.hp = hpNumbers[0]; reading.hpMax = hpNumbers[1]; reading.fields["hp"] = hp
        }

        // CP: above the arc. How far above the HP bar depends on the screen's shape (0.64
        // widths on a 768×1280 screen, 0.79 on 1080×1920), so the box reaches from 1.0 to 0.52
        // widths above the bar.
        let arc = dimmed?.arc ?? LevelArc.find(in: image, bar: bar, luckyLine: luckyLine)
        reading.arc = arc
        let cpBox = PixelRect(x: centre - u(300), y: max(0, bar.y - u(1000)), width: u(600), height: bar.y - u(520) - max(0, bar.y - u(1000)))
        if let (cp, field) = try cp(dimmed?.image ?? image, cpBox, arc: arc, white: dimmed?.white ?? 245, dimmed: dimmed != nil) { reading.cp = cp; reading.fields["cp"] = field }
        // Something bar-like without the CP above it or the HP under it (the small detail
        // screen among the recent-apps switcher's thumbnails, say) is no detail screen to read.
        if reading.cp == nil && reading.hpMax == nil {
            throw IVError.invalid("not a Pokémon detail screen (neither CP nor HP beside the HP bar)")
        }
        // Under a dim layer the costs stay unread: the dim is deepest at their row, and takes
        // the colour out of the stardust and candy icons that tell them from the digits (the
        // vial read as a 1 once the card was undimmed). A wrong cost is worse than none; the
        // level comes from the arc.
        if dimmed != nil { return reading }

        // The stardust cost: right of the power-up button, after the stardust icon. On the
        // fixtures' devices (2016–18) the row sits 490–570 units below the HP bar and the
        // digits start 0–9 units right of the centre; since the candy XL row (2020) it sits
        // lower, about 830 units below on a 2026 screen. The green button, when found from
        // there up to 900 units below the bar, places the row exactly. A disabled button (not
        // enough candy) is pale, not green: then the stardust icon's vial beside the centre
        // places it, and failing that the 2016–18 layout (the 120-unit box holds the digits
        // anywhere in that range).
        do {
            let expected = bar.y + bar.height + u(525)
            var cy = expected, left = centre + u(8)
            if let button = ScreenReader.button(image, below: bar.y + bar.height + u(300)),
               abs(button.y + button.height / 2 - expected) < u(60)
                || ((expected ..< bar.y + bar.height + u(900)).contains(button.y + button.height / 2)
                    && ScreenReader.hasStardustIcon(image, rightOf: button, within: u(150))) {
                cy = button.y + button.height / 2
                // A label-less stretch of the button's gradient can end the run early.
                if abs(button.x + button.width + u(20) - left) < u(40) { left = button.x + button.width + u(20) }
            } else if let vial = ScreenReader.stardustVial(image, columns: max(0, centre - u(60)) ..< min(image.width, centre + u(120)),
                                                           rows: min(image.height, bar.y + bar.height + u(300)) ..< min(image.height, bar.y + bar.height + u(900)),
                                                           unit: w / 1080) {
                cy = vial
            }
            let dustBox = PixelRect(x: left, y: cy - u(60), width: u(230), height: u(120))
            // The candy's name: the lowest line of dark text 40–200 units above the stardust row,
            // in the right half (74 units above it on most screens; more where the button is
            // taller, 170 on a 2021 screen without the XL candy), else where it usually is.
            let candyBox = ScreenReader.textLine(image, x: centre + u(20), width: u(480), from: cy - u(200), to: cy - u(40),
                                                 minHeight: u(12), maxHeight: u(40), margin: u(10))
                ?? PixelRect(x: centre + u(20), y: cy - u(102), width: u(480), height: u(56))
            let candy = try read(image, candyBox, lightText: false, characters: nil)
            let candyText = candy.text.filter { $0.isLetter || $0 == " " || $0 == "-" || $0 == "'" || $0 == "." }.trimmingCharacters(in: .whitespaces)
            if !candyText.isEmpty { reading.candyName = candyText; reading.fields["candyName"] = candy }
            var dust = ScreenField(text: "", confidence: 0, box: dustBox)
            if let line = try ScreenReader.tallestGlyphs(prepare(image, dustBox, lightText: false, keepOrange: true), minimumCount: 3) {
                debug(line.image, "glyphs_\(dustBox.x)_\(dustBox.y).png")
                // Digits whose feet a toast hides are matched against the costs the game charges.
                if let tops = line.cutTops {
                    if let match = digitTops.read(tops, among: stardustCosts.map(String.init)) {
                        dust = ScreenField(text: match.text, confidence: 100 * match.score, box: dustBox)
                    }
                } else {
                    let r = try ocr.recognize(line.image, layout: .singleLine, characters: "0123456789")
                    dust = ScreenField(text: r.text, confidence: r.confidence, box: dustBox)
                }
            }
            reading.fields["stardust"] = dust
            if let digits = ScreenReader.numbers(dust.text).first.map(String.init) {
                // The stardust icon before the digits reads as a 1 now and then: keep the
                // longest tail of the digits that is a cost the game actually charges.
                let costs = stardustCosts
                let tails = (0 ..< digits.count).compactMap { Int(digits.dropFirst($0)) }.filter { costs.contains($0) }
                let heads = (1 ..< max(1, digits.count)).compactMap { Int(digits.dropLast($0)) }.filter { costs.contains($0) }
                let candidates = (tails + heads).reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
                reading.stardust = candidates.first
                reading.stardustAlternatives = Array(candidates.dropFirst())
            }
            // The power-up's candy cost: further right on the same row, after the candy icon.
            let candyCostBox = PixelRect(x: centre + u(180), y: cy - u(60), width: u(200), height: u(120))
            if let (cost, field) = try cost(image, candyCostBox, droppingRound: true, among: candyCosts(stardust: reading.stardust)) {
                reading.candyCost = cost
                reading.fields["candyCost"] = field
            }
            // The Evolve row, 150–200 units below the power-up row: its candy cost at the right,
            // after the candy icon (the round menu button further right touches the box's edge
            // and is dropped with it). Only the costs evolutions have count as read.
            let evolveBox = PixelRect(x: centre + u(180), y: cy + u(115), width: u(200), height: u(140))
            if let (cost, field) = try cost(image, evolveBox, droppingRound: false, among: [12, 25, 50, 100, 200, 400]) {
                reading.evolveCandy = cost
                reading.fields["evolveCandy"] = field
            }
        }
        return reading
    }

    /// The CP in `box`: the tallest white digits, centred. The top-hat is as wide as the
    /// digits' box of a 16:9 screen (47 units), and the arc's line is wiped out first: digits
    /// are the tallest glyphs there, above the status bar's icons and the "CP" label.
    func cp(_ image: Image, _ box: PixelRect, arc: LevelArc?, white: Int = 245, dimmed: Bool = false) throws -> (Int, ScreenField)? {
        let unit = Double(image.width) / 1080
        guard var binary = try? prepare(image, box, lightText: true, glyphHeight: Int(47 * unit), white: white, dimmed: dimmed) else { return nil }
        if let arc { ScreenReader.erase(arc, from: &binary, box: box, halfWidth: 8 * unit) }
        let scale = Double(binary.height) / Double(box.height)
        guard let digits = try ScreenReader.cpGlyphs(binary, minHeight: Int(50 * unit * scale), offCentre: Int(200 * unit * scale)) else { return nil }
        debug(digits, "glyphs_\(box.x)_\(box.y).png")
        let r = try ocr.recognize(digits, layout: .singleLine, characters: "0123456789")
        guard let cp = ScreenReader.numbers(r.text).first, cp >= 10 else { return nil }
        return (cp, ScreenField(text: r.text, confidence: r.confidence, box: box))
    }

    /// A detail screen without an HP bar in the game's colours: found by its arc (searched for
    /// without the bar). Under a dim layer (the team leader's appraisal, the Pokémon menu) the
    /// card is undimmed row by row and read from its bar; where the bar is hidden (Calcy IV's
    /// result box over it) the CP above the arc is all that is read. Without the arc and the
    /// CP it is no detail screen.
    func readWithoutBar(_ image: Image) throws -> ScreenReading {
        guard let arc = LevelArc.find(in: image) else { throw IVError.invalid("not a Pokémon detail screen (no HP bar or level arc found)") }
        // The digits are as white as the arc's line at its top (a dim layer greys both).
        let line = stride(from: 70.0, through: 110, by: 2).compactMap { degrees -> Int? in
            let p = arc.point(at: degrees * .pi / 180)
            guard (0 ..< image.width).contains(Int(p.x)), (0 ..< image.height).contains(Int(p.y)) else { return nil }
            let q = image.pixel(x: Int(p.x), y: Int(p.y))
            return Int(min(q.r, q.g, q.b))
        }.sorted()
        let white = line.isEmpty ? 245 : min(245, line[line.count / 2] - 10)
        if let undimmed = ScreenReader.undimmed(image), let bar = ScreenReader.hpBar(undimmed),
           let reading = try? read(undimmed, bar: bar, dimmed: (image, arc, white)), reading.cp != nil {
            return reading
        }
        // The CP's digits stand 100–180 units above the arc's top on every screen seen; the box
        // is as tall as the one the bar places.
        let unit = Double(image.width) / 1080
        let arcTop = Int(arc.centerY - arc.radius * arc.squash)
        let top = max(0, arcTop - Int(380 * unit))
        let cpBox = PixelRect(x: Int(arc.centerX - 300 * unit), y: top, width: Int(600 * unit), height: arcTop + Int(100 * unit) - top)
        guard let (cp, field) = try cp(image, cpBox, arc: arc, white: white) else {
            throw IVError.invalid("not a Pokémon detail screen (no HP bar found, and no CP above the level arc)")
        }
        var reading = ScreenReading()
        reading.arc = arc
        reading.cp = cp
        reading.fields["cp"] = field
        return reading
    }

    /// How much of the HP bar is filled (green, yellow or red rather than the gray track),
    /// along its middle row: the current HP over the maximum, to a few hundredths.
    static func barFill(_ image: Image, _ bar: PixelRect) -> Double? {
        guard bar.width > 0, bar.x >= 0, bar.x + bar.width <= image.width else { return nil }
        let y = bar.y + bar.height / 2
        let filled = (bar.x ..< bar.x + bar.width).filter { x in
            let p = image.pixel(x: x, y: y)
            return Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) > 40
        }.count
        return Double(filled) / Double(bar.width)
    }

    /// The screen with a dim layer taken off the card, or nil when nothing is dimmed. The layer
    /// (the team leader's appraisal lays a blue-gray one, darker towards the bottom) turns the
    /// card's white into the colour at the card's left margin (a twentieth of the width in) on
    /// each row: each channel of the row is scaled to bring that back to white. Rows whose
    /// margin is not a dimmed card (the background above it, a dark dialog) stay as they are.
    static func undimmed(_ image: Image) -> Image? {
        var out = image.format == .rgb8 ? image : image.converted(to: .rgb8)
        let x = image.width / 20, width = out.width, height = out.height, stride = out.rowStride
        var changed = false
        out.withUnsafeMutableBytes { p in
            for y in 0 ..< height {
                let margin = y * stride + x * 3
                let card = (0 ..< 3).map { Int(p[margin + $0]) }
                // A dimmed card is still light and only tinted: no channel under 80, none over
                // 235 (then it is white already), and none more than 90 apart. (Rows darker
                // than that, the leader's dim at the costs' row, stay dim: the costs are not read
                // under a dim anyway.)
                guard card.min()! >= 80, card.max()! <= 235, card.max()! - card.min()! <= 90 else { continue }
                changed = true
                let gain = card.map { 250 / Double($0) }
                for i in 0 ..< width {
                    for c in 0 ..< 3 { p[y * stride + i * 3 + c] = UInt8(min(255, Double(p[y * stride + i * 3 + c]) * gain[c])) }
                }
            }
        }
        return changed ? out : nil
    }

    /// A candy cost in `box`: the tallest line of dark digits read by Tesseract, kept only when
    /// its first number is one of `costs`.
    func cost(_ image: Image, _ box: PixelRect, droppingRound: Bool, among costs: Set<Int>) throws -> (Int, ScreenField)? {
        guard let digits = try ScreenReader.tallestGlyphs(prepare(image, box, lightText: false), droppingRound: droppingRound)?.image else { return nil }
        debug(digits, "glyphs_\(box.x)_\(box.y).png")
        let r = try ocr.recognize(digits, layout: .singleLine, characters: "0123456789")
        guard let cost = ScreenReader.numbers(r.text).first, costs.contains(cost) else { return nil }
        return (cost, ScreenField(text: r.text, confidence: r.confidence, box: box))
    }

    /// The Pokémon's height in metres, from the row under the HP text where weight, type and
    /// height stand in some order ("0.73m", "2,36 m"): the number with a decimal point right
    /// before an "m". Language-independent where the name is not, so the scan reads it only
    /// when nothing else names the species. Nil when no such number is read.
    public func height(_ image: Image, hpText: PixelRect) throws -> (metres: Double, field: ScreenField)? {
        let u = Double(image.width) / 1080
        let top = hpText.y + hpText.height + Int(10 * u)
        let row = PixelRect(x: 0, y: top, width: image.width, height: min(Int(150 * u), image.height - top))
        guard row.height > Int(20 * u) else { return nil }
        let r = try ocr.recognize(try prepare(image, row, lightText: false), layout: .sparse, characters: nil)
        let words = r.text.split(whereSeparator: \.isWhitespace).map(String.init)
        for (i, word) in words.enumerated() {
            // "0.73m" in one word, or "2.36" then "m".
            var number = Substring(word)
            if word.hasSuffix("m") { number = number.dropLast() } else if i + 1 >= words.count || words[i + 1] != "m" { continue }
            let parts = number.split(whereSeparator: { $0 == "." || $0 == "," })
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }), parts[1].count <= 2,
                  let metres = Double(parts[0] + "." + parts[1]), metres > 0 else { continue }
            return (metres, ScreenField(text: r.text, confidence: r.confidence, box: row))
        }
        return nil
    }

    /// The lowest band of rows in `x ..< x + width`, `from ..< to`, holding dark gray text (a
    /// few unsaturated pixels darker than 200 on the light card), `minHeight`…`maxHeight` tall,
    /// as a box with `margin` above and below; nil when there is none.
    static func textLine(_ image: Image, x: Int, width: Int, from: Int, to: Int, minHeight: Int, maxHeight: Int, margin: Int) -> PixelRect? {
        let x0 = max(0, x), x1 = min(image.width, x + width), y0 = max(0, from), y1 = min(image.height, to)
        guard x1 > x0, y1 > y0 else { return nil }
        let inked = ScreenReader.inkedRows(image, columns: x0 ..< x1, rows: y0 ..< y1, atLeast: max(2, (x1 - x0) / 200)) { p in
            Int(max(p.r, p.g, p.b)) < 200 && Int(max(p.r, p.g, p.b)) - Int(min(p.r, p.g, p.b)) < 40
        }
        var y = inked.count - 1
        while y >= 0 {
            guard inked[y] else { y -= 1; continue }
            var top = y
            while top > 0 && inked[top - 1] { top -= 1 }
            if (minHeight ... maxHeight).contains(y - top + 1) {
                return PixelRect(x: x, y: y0 + top - margin, width: width, height: y - top + 1 + 2 * margin)
            }
            y = top - 1
        }
        return nil
    }

    /// For each of `rows`, whether at least `atLeast` pixels of `columns` are `ink`.
    static func inkedRows(_ image: Image, columns: Range<Int>, rows: Range<Int>, atLeast: Int, _ ink: (RGBA) -> Bool) -> [Bool] {
        rows.map { y in columns.reduce(0) { $0 + (ink(image.pixel(x: $1, y: y)) ? 1 : 0) } >= atLeast }
    }

    /// The green "LUCKY POKÉMON" line just above the HP bar (within 75 units, 20–50 units
    /// tall, in the middle 600 units): rows where the bar's hue of green (but darker, text on
    /// the white card) covers at least 3% of the width. Nil when there is none.
    static func luckyLine(_ image: Image, bar: PixelRect, unit: Double) -> PixelRect? {
        func u(_ v: Double) -> Int { Int(v * unit) }
        let centre = bar.x + bar.width / 2
        let x0 = max(0, centre - u(300)), x1 = min(image.width, centre + u(300))
        let y0 = max(0, bar.y - u(75)), y1 = bar.y
        guard x1 > x0, y1 > y0 else { return nil }
        let rows = ScreenReader.inkedRows(image, columns: x0 ..< x1, rows: y0 ..< y1, atLeast: (x1 - x0) * 3 / 100) { p in
            Int(p.g) - Int(p.r) > 40 && Int(p.g) - Int(p.b) > 20 && p.g < 230
        }
        guard let first = rows.firstIndex(of: true), let last = rows.lastIndex(of: true),
              (u(20) ... u(50)).contains(last - first + 1) else { return nil }
        return PixelRect(x: x0, y: y0 + first, width: x1 - x0, height: last - first + 1)
    }

    /// The magenta of the stardust icon's liquid.
    static func vialMagenta(_ p: RGBA) -> Bool { p.r > 150 && p.b > 150 && p.g < 120 }

    /// Whether the stardust icon (a vial whose liquid is magenta) sits within `distance` right
    /// of `button`: it tells the power-up row from the Evolve row below it when the power-up
    /// button is pale (not enough candy) and the first green button is Evolve's.
    static func hasStardustIcon(_ image: Image, rightOf button: PixelRect, within distance: Int) -> Bool {
        let x0 = min(image.width, button.x + button.width), x1 = min(image.width, x0 + distance)
        let y0 = max(0, button.y), y1 = min(image.height, button.y + button.height)
        var count = 0
        for y in y0 ..< y1 {
            for x in x0 ..< x1 {
                let p = image.pixel(x: x, y: y)
                if ScreenReader.vialMagenta(p) { count += 1 }
            }
        }
        // The vial is about a tenth of `distance` wide: a sixteenth of its area in magenta is plenty.
        return count >= max(4, distance * distance / 1600)
    }

    /// The middle row of the stardust icon's vial (its magenta liquid, 15–60 units tall) in
    /// `columns` × `rows`: the first run of rows holding some magenta that is that tall (the
    /// power-up row comes first; a pink move-type icon may follow). Nil when there is none.
    static func stardustVial(_ image: Image, columns: Range<Int>, rows: Range<Int>, unit: Double) -> Int? {
        guard !columns.isEmpty, !rows.isEmpty else { return nil }
        let inked = inkedRows(image, columns: columns, rows: rows, atLeast: 2, vialMagenta)
        var start: Int?
        for (i, on) in (inked + [false]).enumerated() {
            if on, start == nil { start = i }
            if !on, let s = start {
                if (Int(15 * unit) ... Int(60 * unit)).contains(i - s) { return rows.lowerBound + (s + i) / 2 }
                start = nil
            }
        }
        return nil
    }

    /// The power-up button's row: a run of the bar's green from near the left edge, 20–55% of
    /// the width long, below `y`.
    static func button(_ image: Image, below start: Int) -> PixelRect? {
        let w = image.width
        func green(_ p: RGBA) -> Bool { Int(p.g) > 150 && Int(p.g) - Int(p.r) > 50 && Int(p.b) > 90 }
        for y in stride(from: max(0, start), to: image.height, by: 2) {
            var x = w / 50
            while x < w / 5 && !green(image.pixel(x: x, y: y)) { x += 1 }
            guard x < w / 5 else { continue }
            var end = x
            while end < w && green(image.pixel(x: end, y: y)) { end += 1 }
            if end - x > w / 5 && end - x < w * 11 / 20 {
                // Down to its bottom edge, the deepest of eight columns across it (the label's
                // letters stop the walk at their top wherever they are), then its extent at
                // mid-height (the rounded corners make the top row short).
                let bottom = (0 ..< 8).map { k in
                    let column = x + (end - x) * k / 8
                    var bottom = y
                    while bottom + 1 < image.height && green(image.pixel(x: column, y: bottom + 1)) { bottom += 1 }
                    return bottom
                }.max()!
                // The label's letters interrupt the green at mid-height: measure the extent on
                // a row below the label (four fifths down) instead.
                let row = y + (bottom - y) * 4 / 5
                var left = x, right = x
                while left > 0 && green(image.pixel(x: left - 1, y: row)) { left -= 1 }
                while right + 1 < w && green(image.pixel(x: right + 1, y: row)) { right += 1 }
                return PixelRect(x: left, y: y, width: right - left + 1, height: bottom - y + 1)
            }
        }
        return nil
    }
}
