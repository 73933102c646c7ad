import Foundation
import SentioNeural
import SentioTestSupport
import Synchronization
import Testing

/// Many streams over one model: a ``CompiledModel`` is shared, each ``Interpreter`` has its own
/// working memory, and the thread pool can be shared by interpreters on different threads.
@Suite("Shared models and the thread pool")
struct SharedModelTests {
    /// A deterministic input in [0, 1) for `interpreter`'s first input, varied by `seed`.
    static func fill(_ interpreter: Interpreter, seed: Int) throws {
        try interpreter.withInput(0) { buffer in
            for i in buffer.indices { buffer[i] = Float((i &* 7919 &+ seed &* 104_729) % 256) / 256 }
        }
    }

    static func outputs(_ interpreter: Interpreter) -> [[Float]] {
        (0 ..< interpreter.graph.outputs.count).map { interpreter.output($0) }
    }

    @Test("a store gives the same loaded model twice, and its copies share it", .requires(model: "face_landmark"))
    func storeShares() throws {
        let store = ModelStore()
        let a = try store.model("face_landmark"), b = try store.model("face_landmark")
        let copy = store
        #expect(a === b)
        #expect(try copy.model("face_landmark") === a)
        #expect(try ModelStore().model("face_landmark") !== a, "another store loads its own")
        #expect(a.weightBytes > 1_000_000 && a.arenaBytes > 0)
    }

    @Test("interpreters over one model give what a model of their own gives, whatever the order they run in",
          .requires(model: "face_detection_short_range"))
    func sharedEqualsOwn() throws {
        let path = try ModelStore().path(of: "face_detection_short_range")
        let shared = try CompiledModel(path: path)
        let own = try Interpreter(graph: ModelLoader.load(path: path), threads: 1)
        var expected: [[[Float]]] = []
        for seed in 0 ..< 3 {
            try Self.fill(own, seed: seed)
            own.invoke()
            expected.append(Self.outputs(own))
        }
        let streams = (0 ..< 3).map { _ in Interpreter(model: shared) }
        // Inputs set on all first, then run in reverse: an interpreter's memory is its own.
        for (seed, s) in streams.enumerated() { try Self.fill(s, seed: seed) }
        for s in streams.reversed() { s.invoke() }
        for (seed, s) in streams.enumerated() { #expect(Self.outputs(s) == expected[seed], "stream \(seed)") }
        #expect(streams[0].workingBytes >= shared.arenaBytes)
    }

    @Test("four threads running one shared model at once get the serial results", .requires(model: "face_landmark"))
    func concurrentStreams() throws {
        let model = try ModelStore().model("face_landmark")
        let reference = Interpreter(model: model)
        var expected: [[[Float]]] = []
        for seed in 0 ..< 4 {
            try Self.fill(reference, seed: seed)
            reference.invoke()
            expected.append(Self.outputs(reference))
        }
        let mismatches = Atomic<Int>(0)
        let frozen = expected
        DispatchQueue.concurrentPerform(iterations: 4) { seed in
            let interpreter = Interpreter(model: model)
            for _ in 0 ..< 5 {
                try? Self.fill(interpreter, seed: seed)
                interpreter.invoke()
                if Self.outputs(interpreter) != frozen[seed] { mismatches.add(1, ordering: .relaxed) }
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }

    @Test("a pool shared by two threads: each job's workers run exactly once, and results match 1 thread",
          .requires(model: "face_landmark"))
    func sharedPool() throws {
        let model = try ModelStore().model("face_landmark")
        let single = Interpreter(model: model)
        try Self.fill(single, seed: 1)
        single.invoke()
        let expected = Self.outputs(single)
        let pool = ThreadPool(threads: 2)
        let mismatches = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let interpreter = Interpreter(model: model, pool: pool)
            for _ in 0 ..< 10 {
                try? Self.fill(interpreter, seed: 1)
                interpreter.invoke()
                if Self.outputs(interpreter) != expected { mismatches.add(1, ordering: .relaxed) }
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }

    /// The generation bug this pool had: a worker that sat a small job out could read the next
    /// job's worker count with the old generation and then run that job twice. Jobs of 2 and 4
    /// workers alternate on a 4-thread pool; every (job, worker) must run exactly once.
    @Test("jobs of different sizes back to back: every worker of every job runs exactly once")
    func generations() {
        let pool = ThreadPool(threads: 4)
        let jobs = 20_000
        let calls = Calls(count: jobs * 4)
        pool.withWorkers {
            for job in 0 ..< jobs {
                pool.forEachWorker(limit: job % 2 == 0 ? 2 : 4) { worker, _ in calls.add(job * 4 + worker) }
            }
        }
        var wrong = 0
        for job in 0 ..< jobs {
            let workers = min(pool.threads, job % 2 == 0 ? 2 : 4)
            for w in 0 ..< 4 where calls.count(job * 4 + w) != (w < workers ? 1 : 0) { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) (job, worker) pairs ran the wrong number of times")
    }

    @Test("a submitter that does not own the pool runs its job alone")
    func secondSubmitter() {
        let pool = ThreadPool(threads: 2)
        let seen = Atomic<Int>(0)
        let owned = Atomic<Bool>(false), done = Atomic<Bool>(false)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            pool.withWorkers {
                owned.store(true, ordering: .releasing)
                while !done.load(ordering: .acquiring) { usleep(100) }
            }
        }
        while !owned.load(ordering: .acquiring) { usleep(100) }
        pool.forEachWorker(limit: 2) { worker, workers in seen.add(workers * 10 + worker, ordering: .relaxed) }
        done.store(true, ordering: .releasing)
        group.wait()
        #expect(seen.load(ordering: .relaxed) == 10, "one call, as worker 0 of 1")
    }

    /// Per-(job, worker) call counts, written from the pool's threads.
    final class Calls: @unchecked Sendable {
        // Unchecked: each slot is written by the one thread running that (job, worker), and
        // read after the pool has returned.
        private let counts: UnsafeMutablePointer<Int>
        init(count: Int) {
            counts = .allocate(capacity: count)
            counts.initialize(repeating: 0, count: count)
        }
        deinit { counts.deallocate() }
        func add(_ i: Int) { counts[i] += 1 }
        func count(_ i: Int) -> Int { counts[i] }
    }
}
