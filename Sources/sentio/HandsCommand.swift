import ArgumentParser
import Foundation
import SentioImage
import SentioVision

struct HandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Find hands and place the 21 joints (palm detection + hand landmarks).")

    @Argument(help: "A PNG or JPEG photo.") var image: String
    @Option(help: "Models: full or lite.") var model = "full"
    @Option(help: "Most hands to report.") var maxHands = 2
    @Flag(help: "Print JSON (see the README for the keys).") var json = false
    @Option(help: "Write the photo with the hands drawn.") var annotate: String?
    @Option(help: "Run the whole pipeline N times in one process and print median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    func run() throws {
        guard let choice = HandLandmarker.Model(rawValue: model) else { throw ValidationError("--model is full or lite") }
        guard maxHands > 0 else { throw ValidationError("--max-hands must be positive") }
        let photo = try ImageIO.read(image)
        let landmarker = try HandLandmarker(model: choice, maxHands: maxHands, store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
        landmarker.pose = try PoseLandmarker(store: CommandEnvironment.store, threads: CommandEnvironment.threads(threads))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            return try Bench.report(bench) { _ = try landmarker.hands(in: photo) }
        }
        let hands = try landmarker.hands(in: photo)
        if let annotate {
            var canvas = photo.convertedForDrawing()
            let w = Double(photo.width), h = Double(photo.height), t = max(1, Double(min(photo.width, photo.height)) / 300)
            for hand in hands {
                canvas.drawRotatedRect(hand.region.pixels(width: photo.width, height: photo.height), color: .cyan, thickness: t)
                for (a, b) in HandJoint.bones {
                    canvas.drawLine(from: Point(hand.point(a).x * w, hand.point(a).y * h), to: Point(hand.point(b).x * w, hand.point(b).y * h),
                                    color: .yellow, thickness: t)
                }
                for p in hand.points { canvas.drawPoint(Point(p.x * w, p.y * h), radius: 2 * t, color: .red) }
            }
            try ImageIO.write(canvas, to: annotate)
        }
        let report = HandsObservation(width: photo.width, height: photo.height, hands: hands.map(ObservedHand.init))
        if json { return try JSONOutput.print(report) }
        print("\(image): \(photo.width)×\(photo.height), \(hands.count) hand\(hands.count == 1 ? "" : "s")")
        for (i, hand) in hands.enumerated() {
            print(String(format: "  hand %d: %@ (%.2f), presence %.2f, wrist (%.3f, %.3f), %@", i, hand.handedness as NSString,
                         hand.handednessScore, hand.presence, hand.point(.wrist).x, hand.point(.wrist).y,
                         (HandShape(hand)?.rawValue ?? "no known shape") as NSString))
        }
    }
}
