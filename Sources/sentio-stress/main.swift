// sentio-stress: the concurrency of shared models and the thread pool, exercised hard enough for
// ThreadSanitizer to see any race. `make test` builds it with --sanitize=thread and runs it
// (TSAN_OPTIONS=halt_on_error=1): a data race, or any result that differs from the serial one,
// ends it with a non-zero status.
//
//   sentio-stress [ROUNDS]
//
// What it runs, each part against results computed first on one thread:
// 1. four threads ask one ModelStore for the same models at once: one CompiledModel each;
// 2. four threads run their own Interpreter over one shared model;
// 3. three threads share one 3-thread ThreadPool (one owns the workers, the others run alone);
// 4. jobs of 2 and 3 workers alternate on one pool: every (job, worker) runs exactly once;
// 5. eight stream sessions as LiveSession actors on two ComputeThreads.
import Foundation
import SentioNeural
import Synchronization

@main
struct Stress {
    static func main() async {
        let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20
        var failures = 0
        func check(_ ok: Bool, _ what: String) {
            print("sentio-stress: \(ok ? "ok" : "FAILED"): \(what)")
            if !ok { failures += 1 }
        }
        let store = ModelStore(environment: ProcessInfo.processInfo.environment)
        let names = ["face_detection_short_range", "iris_landmark"]
        do {
            // 1. One model per name, whoever asks first.
            let loaded = NSLock()
            nonisolated(unsafe) var identities: [String: [ObjectIdentifier]] = [:]
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for name in names {
                    if let model = try? store.model(name) { loaded.withLock { identities[name, default: []].append(ObjectIdentifier(model)) } }
                }
            }
            check(names.allSatisfy { Set(identities[$0] ?? []).count == 1 && identities[$0]?.count == 4 },
                  "4 threads asking for \(names.joined(separator: ", ")) got one shared model each")

            let model = try store.model("iris_landmark")
            let serial = Interpreter(model: model)
            let expected = try (0 ..< 4).map { seed in try run(serial, seed: seed) }

            // 2. Own interpreters, shared model.
            let bad = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 4) { seed in
                let interpreter = Interpreter(model: model)
                for _ in 0 ..< rounds where (try? run(interpreter, seed: seed)) != expected[seed] { bad.add(1, ordering: .relaxed) }
            }
            check(bad.load(ordering: .relaxed) == 0, "4 threads × \(rounds) runs over one shared model equal the serial outputs")

            // 3. One pool, three submitters.
            let pool = ThreadPool(threads: 3)
            let badShared = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 3) { seed in
                let interpreter = Interpreter(model: model, pool: pool)
                for _ in 0 ..< rounds where (try? run(interpreter, seed: seed)) != expected[seed] { badShared.add(1, ordering: .relaxed) }
            }
            check(badShared.load(ordering: .relaxed) == 0, "3 threads × \(rounds) runs sharing one 3-thread pool equal the serial outputs")

            // 4. Generations.
            let jobs = 20_000
            let calls = UnsafeMutablePointer<Int>.allocate(capacity: jobs * 3)
            calls.initialize(repeating: 0, count: jobs * 3)
            defer { calls.deallocate() }
            let box = CallsBox(calls)
            pool.withWorkers {
                for job in 0 ..< jobs { pool.forEachWorker(limit: job % 2 == 0 ? 2 : 3) { worker, _ in box.pointer[job * 3 + worker] += 1 } }
            }
            var wrong = 0
            for job in 0 ..< jobs {
                let workers = min(pool.threads, job % 2 == 0 ? 2 : 3)
                for w in 0 ..< 3 where calls[job * 3 + w] != (w < workers ? 1 : 0) { wrong += 1 }
            }
            check(wrong == 0, "\(jobs) jobs of 2 and 3 workers: every (job, worker) ran exactly once")

            // 5. Sessions on compute threads.
            let threads = ComputeThreads(count: 2)
            defer { threads.stop() }
            let sessions = (0 ..< 8).map { _ in LiveSession(ModelSession(model: model), on: threads.nextThread()) }
            let mismatches = try await mismatchesOf(sessions, rounds: rounds, expected: expected)
            check(mismatches == 0, "8 live sessions on 2 compute threads × \(rounds) inputs equal the serial outputs")
        } catch {
            print("sentio-stress: \(error)")
            failures += 1
        }
        if failures > 0 { exit(1) }
        print("sentio-stress: \(rounds) rounds, no mismatch")
    }

    /// Runs every session over `rounds` inputs at once; counts outputs that differ from `expected`.
    nonisolated static func mismatchesOf(_ sessions: [LiveSession<ModelSession>], rounds: Int, expected: [[[Float]]]) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for session in sessions {
                group.addTask {
                    var bad = 0
                    for i in 0 ..< rounds where try await session.process(i % 4, time: Double(i)) != expected[i % 4] { bad += 1 }
                    return bad
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Fills input 0 deterministically from `seed`, runs, returns every output.
    static func run(_ interpreter: Interpreter, seed: Int) throws -> [[Float]] {
        try interpreter.withInput(0) { buffer in
            for i in buffer.indices { buffer[i] = Float((i &* 7919 &+ seed &* 104_729) % 256) / 256 }
        }
        interpreter.invoke()
        return (0 ..< interpreter.graph.outputs.count).map { interpreter.output($0) }
    }
}

/// A session that runs a model on a seeded input.
final class ModelSession: StreamSession {
    let interpreter: Interpreter
    init(model: CompiledModel) { interpreter = Interpreter(model: model) }
    func process(_ input: Int, time: Double) throws -> [[Float]] { try Stress.run(interpreter, seed: input) }
    func reset() {}
}

struct CallsBox: @unchecked Sendable {
    // Unchecked: each slot is written only by the thread running that (job, worker).
    let pointer: UnsafeMutablePointer<Int>
    init(_ pointer: UnsafeMutablePointer<Int>) { self.pointer = pointer }
}
