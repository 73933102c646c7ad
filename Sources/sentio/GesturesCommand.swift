import ArgumentParser
import Foundation
import SentioImage
import SentioVision

struct GesturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gestures",
        abstract: "Track a hand through frames: pinch, air writing (pen and trace) and hand shape per frame.")

    @Option(help: "A folder of frames (name order) or a Y4M file.") var video: String
    @Flag(help: "Print one JSON object per frame (see the README for the keys).") var json = false
    @Option(help: "Pinch threshold: a fraction of the hand's size (e.g. 0.25) or pixels with a px suffix (e.g. 40px).")
    var pinch = "0.25"
    @Flag(help: "Do not mirror the trace (mirroring suits a selfie camera).") var noMirror = false
    @Option(help: "Run the whole clip N times in one process and print per-frame median/min/max ms.") var bench: Int?
    @Option(help: "Threads (default: all cores).") var threads: Int?

    struct Frame: Encodable {
        let frame: Int, hands: Int, pinch: Bool, pen: Bool, gesture: String?, trace: [[[Double]]]
        enum CodingKeys: String, CodingKey { case frame, hands, pinch, pen, gesture, trace }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(frame, forKey: .frame); try c.encode(hands, forKey: .hands); try c.encode(pinch, forKey: .pinch)
            try c.encode(pen, forKey: .pen); try c.encode(gesture, forKey: .gesture); try c.encode(trace, forKey: .trace)
        }
    }

    func run() throws {
        let threshold: PinchDetector.Threshold
        if pinch.hasSuffix("px"), let v = Double(pinch.dropLast(2)), v > 0 { threshold = .pixels(v) }
        else if let v = Double(pinch), v > 0 { threshold = .handSize(v) }
        else { throw ValidationError("--pinch takes a fraction (0.25) or pixels (40px), not '\(pinch)'") }
        let frames = try VideoFrames.load(video)
        let tracker = HandTracker(landmarker: try HandLandmarker(maxHands: 1, threads: threads))
        if let bench {
            guard bench > 0 else { throw ValidationError("--bench takes a positive count") }
            let result = try Bench.run(bench) { tracker.reset(); for f in frames { _ = try tracker.track(f) } }
            let n = Double(frames.count)
            return try JSONOutput.print(Bench.Result(median_ms: result.median_ms / n, min_ms: result.min_ms / n, max_ms: result.max_ms / n, runs: bench))
        }
        var pinchDetector = PinchDetector(threshold: threshold)
        var writer = AirWriter(mirrored: !noMirror)
        for (i, frame) in frames.enumerated() {
            let hand = try tracker.track(frame).first
            pinchDetector.update(hand, imageWidth: frame.width, imageHeight: frame.height)
            writer.update(hand, imageWidth: frame.width, imageHeight: frame.height)
            let report = Frame(frame: i, hands: hand == nil ? 0 : 1, pinch: pinchDetector.isPinching, pen: writer.penDown,
                               gesture: hand.flatMap(HandShape.init)?.rawValue, trace: writer.strokes.map { $0.map { [$0.x, $0.y] } })
            if json { try JSONOutput.print(report) } else {
                print("frame \(i): \(report.hands) hand, pinch \(report.pinch ? "yes" : "no"), pen \(report.pen ? "down" : "up"), "
                    + "\(report.gesture ?? "no shape"), \(writer.strokes.reduce(0) { $0 + $1.count }) trace points")
            }
        }
    }
}
