import Foundation
import Puzzler
import SentioImage
import SentioVision
import Testing

/// The game's rules, each checked against values worked out by hand from the rule's text.
@Suite("Puzzler rules")
struct RuleTests {
    @Test("the map: two open at the start; every level opens at least two neighbours; at least two always open")
    func starMap() {
        #expect(Set(StarMap.startOpen).count >= 2)
        for level in Catalogue.levels {
            #expect(Set(level.neighbours).count >= 2, "\(level.id) has fewer than two neighbours")
            #expect(!level.neighbours.contains(level.id))
        }
        #expect(Catalogue.levels.map(\.number) == Array(1...17))
        // Play the game to the end in 2,000 random orders (only open levels can be solved).
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var opened = Set(StarMap.startOpen), solved = Set<LevelID>()
            while solved.count < 17 {
                let open = opened.subtracting(solved)
                #expect(open.count >= min(2, 17 - solved.count), "only \(open.count) open with \(17 - solved.count) unsolved")
                let level = open.randomElement(using: &generator)!
                let newly = StarMap.opening(after: level, opened: opened, solved: solved)
                #expect(Set(newly).isDisjoint(with: opened), "opened again")
                opened.formUnion(newly)
                solved.insert(level)
                // Every neighbour is open afterwards (opened now or before).
                #expect(Set(Catalogue.level(level).neighbours).isSubset(of: opened))
            }
        }
    }

    @Test("solving a level whose neighbours are all open already opens the nearest locked stars to keep two open")
    func nearestStars() {
        // eyes's neighbours: smile, dark, loud. With those three solved and eyes the last open
        // level besides sos, solving eyes must open the locked stars nearest to it.
        let solved: Set<LevelID> = [.smile, .dark, .loud, .sos]
        let opened: Set<LevelID> = solved.union([.eyes])
        let newly = StarMap.opening(after: .eyes, opened: opened, solved: solved)
        #expect(newly.count == 2)
        // eyes is at (0.10, 0.55); the locked stars' distances: colours (0.30, 0.62) 0.21,
        // fruit (0.45, 0.50) 0.35, theme (0.34, 0.88) 0.41, offline (0.44, 0.80) 0.42, mouth
        // (0.33, 0.15) 0.46, … — so colours, then fruit.
        #expect(newly == [.colours, .fruit])
    }

    @Test("the hold timer: a gap shorter than the grace does not start over; a longer one does")
    func holdTimer() {
        var timer = HoldTimer(need: 1, grace: 0.25)
        #expect(timer.update(true, at: 0) == 0)
        #expect(timer.update(true, at: 0.5) == 0.5)
        #expect(timer.update(false, at: 0.7) == 0.5)   // 0.2 s since the last true: kept
        #expect(timer.update(true, at: 0.8) == 0.8)
        #expect(timer.update(false, at: 1.1) == 0)     // 0.3 s: over
        #expect(timer.update(true, at: 1.2) == 0)
    }

    static func face(ear: Double, mar: Double = 0.05, smile: Double = 0.1, nose: (Double, Double) = (0.5, 0.5)) -> FaceSignals {
        FaceSignals(leftEAR: ear, rightEAR: ear, mar: mar, smile: smile, yaw: 0, pitch: 0, roll: 0, noseTip: Point2(x: nose.0, y: nose.1))
    }

    @Test("eyes: calibration on ten neutral frames, then 15 closed frames start the state and five seconds of it solve")
    func eyes() {
        var judge = FaceJudge(goal: .eyesClosed)
        var t = 0.0
        // A wearer of glasses: neutral EAR 0.20, closed 0.12 (under 0.24 both — the fixed rule
        // would call them closed all the time). Calibrated threshold: 0.75 × 0.20 = 0.15.
        for _ in 0..<10 { #expect(judge.judge(faces: [Self.face(ear: 0.20)], at: t).phase == .calibrating); t += 0.1 }
        var report = judge.judge(faces: [Self.face(ear: 0.20)], at: t)
        #expect(report.phase == .playing)
        #expect(report.detail.earThreshold == 0.15)
        // Open eyes for 10 s at 10 fps: never solved.
        for _ in 0..<100 { t += 0.1; report = judge.judge(faces: [Self.face(ear: 0.20)], at: t); #expect(report.phase == .playing) }
        // Closed: the detector needs 15 frames (1.4 s after the first), then 5 s of holding.
        var solvedAt: Double?
        let closedFrom = t + 0.1
        for _ in 0..<80 {
            t += 0.1
            report = judge.judge(faces: [Self.face(ear: 0.12)], at: t)
            if report.phase == .solved { solvedAt = t; break }
        }
        let elapsed = try! #require(solvedAt) - closedFrom
        // Frame 15 (1.4 s after the first closed one) starts the hold; 5 s later it is solved.
        #expect(abs(elapsed - 6.4) < 0.05, "solved \(elapsed) s after closing")
    }

    @Test("eyes: two faces in view stop the timer and say so; a flicker of two frames is tolerated, three are not")
    func eyesFaces() {
        var judge = FaceJudge(goal: .eyesClosed)
        var t = 0.0
        for _ in 0..<10 { _ = judge.judge(faces: [Self.face(ear: 0.3)], at: t); t += 0.1 }
        for _ in 0..<30 { t += 0.1; _ = judge.judge(faces: [Self.face(ear: 0.1)], at: t) }
        let two = judge.judge(faces: [Self.face(ear: 0.1), Self.face(ear: 0.1)], at: t + 0.1)
        #expect(two.message.contains("2 faces"))
        #expect(two.detail.heldSeconds == 0)
        // Start again: 20 closed frames, 2 open ones, closed again: the state holds through.
        t += 0.2
        for _ in 0..<20 { t += 0.1; _ = judge.judge(faces: [Self.face(ear: 0.1)], at: t) }
        var r = judge.judge(faces: [Self.face(ear: 0.3)], at: t + 0.1)
        r = judge.judge(faces: [Self.face(ear: 0.3)], at: t + 0.2)
        #expect(r.detail.holding == true)
        r = judge.judge(faces: [Self.face(ear: 0.3)], at: t + 0.3)
        #expect(r.detail.holding == false)
        #expect(r.detail.heldSeconds == 0)
    }

    @Test("smile and mouth: the smile must pass the neutral width by 0.5 with the mouth closed; an open mouth is MAR > 0.5")
    func smileAndMouth() {
        var smile = FaceJudge(goal: .smile), mouth = FaceJudge(goal: .mouthOpen)
        var t = 0.0
        for _ in 0..<10 {
            _ = smile.judge(faces: [Self.face(ear: 0.3, smile: 0.2)], at: t)
            _ = mouth.judge(faces: [Self.face(ear: 0.3)], at: t)
            t += 0.1
        }
        // Neutral smile 0.2: 0.65 is not enough (needs > 0.7), 0.8 is; a laugh (MAR 0.4) is no closed-mouth smile.
        var solved = false
        for _ in 0..<70 { t += 0.1; solved = solved || smile.judge(faces: [Self.face(ear: 0.3, smile: 0.65)], at: t).phase == .solved }
        #expect(!solved)
        for _ in 0..<70 { t += 0.1; solved = solved || smile.judge(faces: [Self.face(ear: 0.3, mar: 0.4, smile: 0.9)], at: t).phase == .solved }
        #expect(!solved)
        for _ in 0..<52 { t += 0.1; solved = solved || smile.judge(faces: [Self.face(ear: 0.3, smile: 0.8)], at: t).phase == .solved }
        #expect(solved)
        solved = false
        for _ in 0..<70 { t += 0.1; solved = solved || mouth.judge(faces: [Self.face(ear: 0.3, mar: 0.45)], at: t).phase == .solved }
        #expect(!solved)
        for _ in 0..<52 { t += 0.1; solved = solved || mouth.judge(faces: [Self.face(ear: 0.3, mar: 0.6)], at: t).phase == .solved }
        #expect(solved)
    }

    @Test("nose: the cursor moves 2.5 times the nose's movement, mirrored, and the targets count only in order")
    func nose() {
        var judge = FaceJudge(goal: .noseTargets)
        var t = 0.0
        for _ in 0..<10 { _ = judge.judge(faces: [Self.face(ear: 0.3, nose: (0.5, 0.5))], at: t); t += 0.1 }
        // Target 2 (0.75, 0.3) first: nose at x = 0.5 − 0.25/2.5 = 0.4, y = 0.5 − 0.2/2.5 = 0.42.
        var r = judge.judge(faces: [Self.face(ear: 0.3, nose: (0.4, 0.42))], at: t)
        #expect(abs(r.detail.cursor!.x - 0.75) < 1e-9 && abs(r.detail.cursor!.y - 0.3) < 1e-9)
        #expect(r.detail.next == 0)
        // Then in order: 1 (0.25, 0.3) → nose (0.6, 0.42); 2; 3 (0.75, 0.7) → (0.4, 0.58); 4 (0.25, 0.7) → (0.6, 0.58).
        for nose in [(0.6, 0.42), (0.4, 0.42), (0.4, 0.58)] {
            t += 0.1
            r = judge.judge(faces: [Self.face(ear: 0.3, nose: nose)], at: t)
            #expect(r.phase == .playing)
        }
        #expect(r.detail.next == 3)
        r = judge.judge(faces: [Self.face(ear: 0.3, nose: (0.6, 0.58))], at: t + 0.1)
        #expect(r.phase == .solved)
        // Frames after the solve keep saying so.
        #expect(judge.judge(faces: [Self.face(ear: 0.3, nose: (0.5, 0.5))], at: t + 0.2).phase == .solved)
    }

    @Test("colour: L* of sRGB greys and the swatches matched by ΔE2000 in order, three seconds each")
    func colour() throws {
        // sRGB 119/255 is L* 50.0 (CIE: Y = ((0.4667 + 0.055)/1.055)^2.4 = 0.1845; L* = 116·Y^(1/3) − 16).
        let grey = try Image(width: 64, height: 48, format: .rgb8, fill: 119)
        #expect(abs(ColourSample(grey).lightness - 50.0) < 0.1)
        let black = try Image(width: 64, height: 48, format: .rgb8, fill: 0)
        var dark = DarkJudge()
        #expect(dark.judge(ColourSample(grey), at: 0).detail.button == false)
        #expect(dark.press().phase == .playing)
        #expect(dark.judge(ColourSample(black), at: 1).detail.button == true)
        // Light again: the button lingers 1.5 s.
        _ = dark.judge(ColourSample(grey), at: 2.4)
        #expect(dark.buttonShown)
        _ = dark.judge(ColourSample(grey), at: 2.6)
        #expect(!dark.buttonShown)
        _ = dark.judge(ColourSample(black), at: 3)
        #expect(dark.press().phase == .solved)

        var colours = ColourMatchJudge()
        func card(_ c: SRGB) throws -> ColourSample {
            let rgba = c.rgba
            var image = try Image(width: 64, height: 48, format: .rgb8)
            for y in 0..<48 { for x in 0..<64 { for (k, v) in [rgba.r, rgba.g, rgba.b].enumerated() { image[x, y, k] = v } } }
            return ColourSample(image)
        }
        var t = 0.0
        // Yellow first does nothing: red comes first.
        for _ in 0..<40 { t += 0.1; _ = colours.judge(try card(ColourMatchJudge.references[1].srgb), at: t) }
        var r = colours.judge(try card(ColourMatchJudge.references[1].srgb), at: t)
        #expect(r.detail.current == 0)
        var solved = false
        for reference in ColourMatchJudge.references {
            for _ in 0..<32 { t += 0.1; r = colours.judge(try card(reference.srgb), at: t); solved = r.phase == .solved }
        }
        #expect(solved)
        #expect(colours.judge(try card(ColourMatchJudge.references[0].srgb), at: t + 0.1).phase == .solved)
    }

    @Test("morse: nine presses, short under 300 ms; a pause of 3 s starts over")
    func morse() {
        var judge = MorseJudge()
        let presses = [100.0, 120, 90, 500, 600, 450, 100, 110]
        for ms in presses { #expect(judge.judge(pressMs: ms).phase == .playing) }
        #expect(judge.judge(pressMs: 80, gapMs: 3500).phase == .playing)  // the pause: over
        judge = MorseJudge()
        for ms in presses { _ = judge.judge(pressMs: ms, gapMs: 200) }
        let r = judge.judge(pressMs: 80, gapMs: 200)
        #expect(r.phase == .solved && r.detail.letters == "SOS")
        // O S O is wrong.
        judge = MorseJudge()
        var last = LevelReport(progress: 0, message: "")
        for ms in [500.0, 500, 500, 100, 100, 100, 500, 500, 500] { last = judge.judge(pressMs: ms) }
        #expect(last.phase == .playing)
    }

    @Test("device levels: only changes count; the orders of the original")
    func device() {
        var theme = DeviceJudge(level: .theme)
        _ = theme.judge(DeviceEvent(name: "color-scheme", text: "dark"))    // where the player starts: no change
        #expect(theme.judge(DeviceEvent(name: "color-scheme", text: "light")).phase == .playing)
        #expect(theme.judge(DeviceEvent(name: "color-scheme", text: "dark")).progress == 0.5)
        #expect(theme.judge(DeviceEvent(name: "color-scheme", text: "light")).phase == .solved)

        var offline = DeviceJudge(level: .offline)
        _ = offline.judge(DeviceEvent(name: "offline", t: 1000))
        let short = offline.judge(DeviceEvent(name: "online", t: 2500))   // 1.5 s: too short, and said
        #expect(short.phase == .playing && short.message.contains("too soon"))
        _ = offline.judge(DeviceEvent(name: "offline", t: 5000))
        #expect(offline.judge(DeviceEvent(name: "online", t: 7000)).phase == .solved)

        var plugs = DeviceJudge(level: .plugs)
        _ = plugs.judge(DeviceEvent(name: "audio-outputs", number: 1))
        _ = plugs.judge(DeviceEvent(name: "battery", charging: false))
        #expect(plugs.judge(DeviceEvent(name: "battery", charging: true)).progress == 0)  // charger first: not the order
        _ = plugs.judge(DeviceEvent(name: "battery", charging: false))
        #expect(plugs.judge(DeviceEvent(name: "audio-outputs", number: 2)).progress == 0.5)
        #expect(plugs.judge(DeviceEvent(name: "battery", charging: true)).phase == .solved)

        var hidden = DeviceJudge(level: .plugs)
        _ = hidden.judge(DeviceEvent(name: "battery", text: "unsupported"))
        _ = hidden.judge(DeviceEvent(name: "audio-outputs", number: 1))
        _ = hidden.judge(DeviceEvent(name: "audio-outputs", number: 2))
        _ = hidden.judge(DeviceEvent(name: "audio-outputs", number: 1))
        #expect(hidden.judge(DeviceEvent(name: "audio-outputs", number: 2)).phase == .solved)

        var volume = DeviceJudge(level: .volume)
        var r = LevelReport(progress: 0, message: "")
        for type in ["portrait-primary", "landscape-primary", "portrait-secondary"] { r = volume.judge(DeviceEvent(name: "orientation", text: type)) }
        #expect(r.phase == .playing)
        r = volume.judge(DeviceEvent(name: "orientation", text: "portrait-primary"))
        #expect(r.phase == .playing)   // three quarters of the way round is not round
        r = volume.judge(DeviceEvent(name: "orientation", text: "landscape-secondary"))
        #expect(r.phase == .playing)
        r = volume.judge(DeviceEvent(name: "orientation", text: "portrait-primary"))
        #expect(r.phase == .solved)
    }

    @Test("loud: two seconds of windows at or over −20 dBFS; a gap over 0.25 s starts over")
    func loud() {
        var judge = LoudJudge()
        func windows(_ from: Double, _ n: Int, _ level: Double) -> [(start: Double, level: Double)] {
            (0..<n).map { (from + Double($0) * 0.1, level) }
        }
        #expect(judge.judge(windows: windows(0, 50, -45)).phase == .playing)   // a quiet room
        #expect(judge.judge(windows: windows(5, 15, -10)).phase == .playing)   // 1.5 s
        _ = judge.judge(windows: windows(6.5, 3, -40))                          // 0.3 s quiet
        #expect(judge.judge(windows: windows(6.8, 19, -10)).phase == .playing)  // window ends 6.9…8.7: 1.8 s held
        #expect(judge.judge(windows: windows(8.7, 3, -10)).phase == .solved)    // …9.0: 2.1 s
    }

    @Test("fruit: banana then orange, each a second; an orange first or apple-like scores do not count")
    func fruit() {
        var judge = FruitJudge()
        var t = 0.0
        for _ in 0..<20 { t += 0.1; #expect(judge.judge(scores: ["banana": 0.01, "orange": 0.9], at: t).detail.step == 0) }
        for _ in 0..<11 { t += 0.1; _ = judge.judge(scores: ["banana": 0.6, "orange": 0.01], at: t) }
        #expect(judge.judge(scores: ["banana": 0.6, "orange": 0.01], at: t).detail.step == 1)
        // An apple: neither above 0.15.
        for _ in 0..<20 { t += 0.1; #expect(judge.judge(scores: ["banana": 0.02, "orange": 0.1], at: t).phase == .playing) }
        var r = LevelReport(progress: 0, message: "")
        for _ in 0..<12 { t += 0.1; r = judge.judge(scores: ["banana": 0.05, "orange": 0.5], at: t) }
        #expect(r.phase == .solved)
    }
}
