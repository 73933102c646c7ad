import ArgumentParser
import Foundation
import SentioImage
import SentioNeural
import SentioVision

/// Many camera streams at once over one set of models, as a server runs them: the figures the
/// live-streams issue asks for (identical results, memory, throughput against one stream).
struct StreamsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract: "Run N sessions at once over shared models and compare them with one session alone.",
        discussion: """
            One session runs the clip alone on one thread first (its observations are the reference and its frames \
            per second the baseline); then N sessions, sharing the store's models, run the clip at once on one \
            compute thread per core. Prints whether every session's observations equal the reference, the \
            throughput against (one session's frames/s × threads), and resident memory against one session's plus \
            N × the per-stream working memory.
            """)

    @Argument(help: "A folder of frames or a Y4M clip (or use --pan).") var clip: String?
    @Option(help: "Make a 640×480 clip panning across this photo instead (the face moves 4 px a frame).") var pan: String?
    @Option(help: "Frames of the --pan clip.") var frames = 30
    @Option(help: "faces, hands or pose.") var task = "faces"
    @Option(help: "Sessions at once.") var sessions = 32
    @Option(help: "Compute threads (default: one per core).") var threads: Int?
    @Option(help: "Times each session runs the clip (more gives steadier figures).") var rounds = 2
    @Flag(help: "Print JSON.") var json = false

    struct Report: Encodable {
        let task: String, sessions: Int, threads: Int, frames_per_session: Int
        let single_fps: Double, concurrent_fps: Double, efficiency: Double
        let identical: Bool, mismatched_sessions: Int
        let rss_before_mb: Double, rss_one_session_mb: Double, rss_all_sessions_mb: Double, rss_peak_mb: Double
        let working_per_session_mb: Double, memory_bound_mb: Double, within_memory_bound: Bool
        let shared_weights_mb: Double
    }

    func run() async throws {
        guard sessions > 0, rounds > 0, frames > 0 else { throw ValidationError("--sessions, --rounds and --frames take positive counts") }
        let video: [Image]
        if let pan {
            video = try Self.panningClip(ImageIO.read(pan), frames: frames)
        } else if let clip {
            video = try VideoFrames.load(clip).frames
        } else {
            throw ValidationError("give a clip (a folder of frames or a Y4M file) or --pan PHOTO")
        }
        let threadCount = CommandEnvironment.threads(threads)
        let report: Report
        switch task {
        case "faces": report = try await measure(video, threads: threadCount) { try FaceSession(store: $0) } working: { $0.workingBytes }
        case "hands": report = try await measure(video, threads: threadCount) { try HandSession(store: $0) } working: { $0.workingBytes }
        case "pose": report = try await measure(video, threads: threadCount) { try PoseSession(store: $0) } working: { $0.workingBytes }
        default: throw ValidationError("--task is faces, hands or pose, not '\(task)'")
        }
        if json { return try JSONOutput.print(report) }
        print(String(format: "%d %@ sessions on %d threads, %d frames each: %@", report.sessions, task, report.threads, report.frames_per_session,
                     report.identical ? "every observation equals one session's alone" : "\(report.mismatched_sessions) sessions differ"))
        print(String(format: "throughput %.1f frames/s against one session's %.1f × %d = %.1f (%.0f%%)", report.concurrent_fps, report.single_fps,
                     report.threads, report.single_fps * Double(report.threads), report.efficiency * 100))
        print(String(format: "resident memory %.1f MB with all sessions (peak %.1f); one session %.1f MB + %d × %.2f MB working memory = %.1f MB bound: %@",
                     report.rss_all_sessions_mb, report.rss_peak_mb, report.rss_one_session_mb, report.sessions, report.working_per_session_mb,
                     report.memory_bound_mb, report.within_memory_bound ? "within" : "OVER"))
    }

    func measure<S: StreamSession>(_ video: [Image], threads: Int, make: (ModelStore) throws -> S,
                                   working: (S) -> Int) async throws -> Report
    where S.Input == Image, S.Observation: Equatable, S: SendableMetatype {
        let store = CommandEnvironment.store
        let before = Memory.residentMB
        let single = try make(store)
        let clock = ContinuousClock()
        // The reference run (also pages in code and lazily built tables), then the timed one.
        let expected = try video.enumerated().map { try single.process($0.element, time: Double($0.offset)) }
        single.reset()
        let start = clock.now
        for _ in 0 ..< rounds {
            single.reset()
            for (i, frame) in video.enumerated() { _ = try single.process(frame, time: Double(i)) }
        }
        let singleFPS = Double(video.count * rounds) / (clock.now - start).seconds
        let oneSession = Memory.residentMB
        let perSession = Double(working(single)) / 1e6

        let computeThreads = ComputeThreads(count: threads)
        defer { computeThreads.stop() }
        var live: [LiveSession<S>] = []
        for _ in 0 ..< sessions { live.append(LiveSession(try make(store), on: computeThreads.nextThread())) }
        let concurrentStart = clock.now
        let mismatched = try await withThrowingTaskGroup(of: Bool.self) { group in
            for session in live {
                group.addTask {
                    var same = true
                    for round in 0 ..< rounds {
                        await session.reset()
                        for (i, frame) in video.enumerated() {
                            let observation = try await session.process(frame, time: Double(i))
                            if round == 0 && observation != expected[i] { same = false }
                        }
                    }
                    return same
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        let concurrentFPS = Double(video.count * rounds * sessions) / (clock.now - concurrentStart).seconds
        let all = Memory.residentMB
        let bound = oneSession + Double(sessions) * perSession
        let weights = try ["face_detection_short_range", "face_landmark"].reduce(0.0) { $0 + Double(try store.model($1).weightBytes) / 1e6 }
        return Report(task: task, sessions: sessions, threads: threads, frames_per_session: video.count * rounds,
                      single_fps: singleFPS, concurrent_fps: concurrentFPS, efficiency: concurrentFPS / (singleFPS * Double(threads)),
                      identical: mismatched == 0, mismatched_sessions: mismatched,
                      rss_before_mb: before, rss_one_session_mb: oneSession, rss_all_sessions_mb: all, rss_peak_mb: Memory.peakMB,
                      working_per_session_mb: perSession, memory_bound_mb: bound, within_memory_bound: all <= bound,
                      shared_weights_mb: task == "faces" ? weights : 0)
    }

    /// 640×480 frames cut from `photo` (scaled so it is 40% larger than the frame) around its
    /// centre, the cut moving 4 px right and 2 px down a frame for 20 frames, then back.
    static func panningClip(_ photo: Image, frames: Int) throws -> [Image] {
        let scale = max(640 * 1.4 / Double(photo.width), 480 * 1.4 / Double(photo.height))
        let big = try photo.resized(to: Size(width: Int(Double(photo.width) * scale), height: Int(Double(photo.height) * scale)))
        let spanX = big.width - 640, spanY = big.height - 480
        return try (0 ..< frames).map { i in
            let step = i % 40 < 20 ? i % 40 : 40 - i % 40
            let x = max(0, min(spanX, spanX / 2 - 40 + 4 * step)), y = max(0, min(spanY, spanY / 2 - 20 + 2 * step))
            return try big.cropped(to: PixelRect(x: x, y: y, width: 640, height: 480)).compacted()
        }
    }
}

/// The process's resident memory, from /proc/self/status.
enum Memory {
    static func field(_ name: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kb / 1024
        }
        return 0
    }
    static var residentMB: Double { field("VmRSS") }
    static var peakMB: Double { field("VmHWM") }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
