import Foundation
import Play
import SentioImage
import SentioTestSupport
import SentioVision
import Testing

/// The air-writing pen on the labelled photos of hands.tsv, as the gestures stream judges a frame:
/// landmarks (SentioVision) → the fingers' 3-D reach (`penFingersStraight`) → Play's
/// `GestureBoard`. Issue #41: curled index and middle tips touch in a thumbs up or down, a "call"
/// and a fist, and put the pen down; the pen is two straight fingers held together. Each photo is
/// one frame on a new board, judged by three rules: before (the tips' gap alone), the 3-D reach
/// added, and the whole rule (reach and the tips past the middle joints in the picture).
/// The suite lives here because it needs both SentioVision and Play, as the server does.
@Suite("Pen fingers", .serialized)
struct PenFingersTests {
    enum Rule: CaseIterable { case gapOnly, reach, full }

    /// Whether one frame of `points` (normalised, MediaPipe's order) puts the pen down by `rule`.
    static func pen(_ points: [BoardPoint], straight: Bool, rule: Rule, width: Int, height: Int) -> Bool {
        var board = GestureBoard()
        if rule != .full { board.penExtension = 0 }
        return board.update(hand: points, penFingersStraight: rule == .gapOnly || straight, imageWidth: width, imageHeight: height, time: 0).pen
    }

    /// The index–middle tip gap over the hand's size and each finger's tip-over-middle-joint
    /// distance from the wrist, in pixels: printed so the thresholds' measured ranges can be checked.
    static func geometry(_ p: [BoardPoint], width: Int, height: Int) -> (gap: Double, index: Double, middle: Double) {
        func d(_ a: Int, _ b: Int) -> Double { hypot((p[a].x - p[b].x) * Double(width), (p[a].y - p[b].y) * Double(height)) }
        return (d(8, 12) / d(0, 9), d(0, 8) / d(0, 6), d(0, 12) / d(0, 10))
    }

    static func describe(_ label: String, _ file: String, _ hand: Hand, _ points: [BoardPoint], width: Int, height: Int) -> String {
        let g = geometry(points, width: width, height: height)
        let reach = [FingerReach.Finger.index, .middle].map { FingerReach.of($0, world: hand.world).map { String(format: "%.2f", $0) } ?? "-" }
        return String(format: "%@ %@ (%@): gap %.2f, reach %@/%@, picture %.2f/%.2f", label, file, HandShape(hand).map { "\($0)" } ?? "no shape",
                      g.gap, reach[0], reach[1], g.index, g.middle)
    }

    /// The labels whose index and middle are curled: no pen. "Fist": the fixtures have no photo
    /// taken as one; the grasp (fingers round a cup, handtrackjs_6) and the loose fist resting on
    /// the desk in handtrackjs_7 (cropped below) stand for it, and a thumb up or down is a fist
    /// with the thumb out.
    static let curled: Set<String> = ["thumb_up", "thumb_down", "call(thumb+pinky)", "grasp", "fist"]

    @Test("no pen on thumbs up and down, call, grasp and fist photos; the old rule (gap only) put it down on some",
          .requires(fixture: "faces/hands.tsv"), .requires(model: "palm_detection_full", "hand_landmark_full"))
    func labelledPhotos() throws {
        let fixtures = try Fixtures.required("faces/hands.tsv")
        let landmarker = try HandLandmarker(maxHands: 1, threads: 1)
        var photos: [(label: String, file: String, image: Image)] = try Fixtures.labelledHands(in: fixtures).map { ($0.label, $0.file, try ImageIO.read($0.path)) }
        // John Oliver's right hand resting on the desk as a loose fist (the lower right of the photo).
        let desk = try ImageIO.read(fixtures + "/faces/hands/handtrackjs_7.jpg")
        photos.append(("fist", "hands/handtrackjs_7.jpg x 200–380, y 300–432", try desk.cropped(to: PixelRect(x: 200, y: 300, width: 180, height: 132))))

        var rows: [String: (photos: Int, read: Int, down: [Rule: Int])] = [:]
        for photo in photos {
            var row = rows[photo.label] ?? (0, 0, [:])
            row.photos += 1
            defer { rows[photo.label] = row }
            guard let hand = try landmarker.hands(in: photo.image).first else { continue }
            row.read += 1
            let points = hand.points.map { BoardPoint($0.x, $0.y) }
            print("pen fingers: " + Self.describe(photo.label, photo.file, hand, points, width: photo.image.width, height: photo.image.height))
            for rule in Rule.allCases where Self.pen(points, straight: hand.penFingersStraight, rule: rule, width: photo.image.width, height: photo.image.height) {
                row.down[rule, default: 0] += 1
                if rule == .full, Self.curled.contains(photo.label) { Issue.record("the pen went down on \(photo.label) \(photo.file)") }
            }
        }
        print("pen table (label: photos, hands read; pen down before (gap only) → with the 3-D reach → now):")
        for (label, row) in rows.sorted(by: { $0.key < $1.key }) {
            print("  \(label): \(row.photos), \(row.read); \(row.down[.gapOnly] ?? 0) → \(row.down[.reach] ?? 0) → \(row.down[.full] ?? 0)")
        }
        // The photos exercise the rule: hands were read in each curled class, and the gap alone
        // put the pen down on some of them (the issue's complaint).
        for label in Self.curled { #expect((rows[label]?.read ?? 0) >= 1, "\(label): no hand read") }
        let before = Self.curled.map { rows[$0]?.down[.gapOnly] ?? 0 }.reduce(0, +)
        #expect(before >= 3, "the old rule put the pen down on \(before) curled photos")
    }

    /// The victory photo's landmarks with index and middle each turned about its knuckle, towards
    /// the other, until their tips are `gap` of the hand's size apart (in pixels of the photo).
    static func fingersTogether(_ points: [BoardPoint], width: Int, height: Int, gap: Double) -> [BoardPoint] {
        let w = Double(width), h = Double(height)
        func turned(_ angle: Double) -> [BoardPoint] {
            var p = points
            for (knuckle, joints, sign) in [(5, [6, 7, 8], 1.0), (9, [10, 11, 12], -1.0)] {
                let c = points[knuckle], a = sign * angle
                for j in joints {
                    let dx = (points[j].x - c.x) * w, dy = (points[j].y - c.y) * h
                    p[j] = BoardPoint(c.x + (dx * cos(a) - dy * sin(a)) / w, c.y + (dx * sin(a) + dy * cos(a)) / h)
                }
            }
            return p
        }
        func gapAt(_ angle: Double) -> Double { geometry(turned(angle), width: width, height: height).gap }
        // The direction that closes the V, then bisection on the angle (the gap shrinks as the
        // fingers turn in, up to where the tips would cross).
        let sign = gapAt(0.01) < gapAt(0) ? 1.0 : -1.0
        var (lo, hi) = (0.0, sign * 0.8)
        for _ in 0..<50 {
            let mid = (lo + hi) / 2
            if gapAt(mid) > gap { lo = mid } else { hi = mid }
        }
        return turned(hi)
    }

    @Test("the pen goes down on two straight fingers held together: the victory photo's fingers turned together",
          .requires(fixture: "faces/hands/mprs_victory.jpg"), .requires(model: "palm_detection_full", "hand_landmark_full"))
    func straightFingersTogether() throws {
        let fixtures = try Fixtures.required("faces/hands")
        let photo = try ImageIO.read(fixtures + "/faces/hands/mprs_victory.jpg")
        let hand = try #require(try HandLandmarker(maxHands: 1, threads: 1).hands(in: photo).first)
        let points = hand.points.map { BoardPoint($0.x, $0.y) }
        // As photographed the fingers are spread (a V, gap 1.19 of the hand's size): no pen.
        #expect(!Self.pen(points, straight: hand.penFingersStraight, rule: .full, width: photo.width, height: photo.height))
        // Together: tip centres of index and middle held side by side are about a finger's width
        // apart (1.6–1.8 cm) against 8.5 cm from the wrist crease to the middle knuckle, 0.2 of the
        // hand's size; the browser test's constructed pen photo (hand_clip.py) reads 0.15–0.27.
        // The world joints stay the photo's: turning a finger about its knuckle keeps its reach.
        let together = Self.fingersTogether(points, width: photo.width, height: photo.height, gap: 0.2)
        print("pen fingers: " + Self.describe("victory, fingers turned together", "hands/mprs_victory.jpg", hand, together, width: photo.width, height: photo.height))
        #expect(hand.penFingersStraight, "the victory's index and middle reach as straight fingers")
        #expect(Self.pen(together, straight: hand.penFingersStraight, rule: .full, width: photo.width, height: photo.height))
    }
}
