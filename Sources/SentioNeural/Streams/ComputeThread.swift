import CSentioKernels
import Foundation

/// A thread of its own that runs Swift concurrency jobs one after another: the executor of
/// stream sessions, so CPU-heavy work (a frame through several networks, tens of
/// milliseconds) never blocks the cooperative pool that serves sockets and timers.
///
/// Several sessions may share one compute thread (they then take turns, frame by frame, in
/// arrival order); a server makes one per core (``ComputeThreads``).
public final class ComputeThread: SerialExecutor, @unchecked Sendable {
    // Unchecked: `jobs` and `stopped` are touched only under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var stopped = false
    public let name: String

    /// A thread named `name`; a `niceness` above 0 lowers its scheduling priority (Linux: the
    /// thread's own nice value), so that its work takes only what the others leave.
    public init(name: String = "sentio-compute", niceness: Int32 = 0) {
        self.name = name
        let thread = Thread { [unowned self] in
            if niceness != 0 { Self.lowerPriority(by: niceness) }
            self.loop()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Jobs waiting to run (for metrics).
    public var backlog: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Lets the thread end once its queue is empty. Jobs enqueued after this never run.
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private static func lowerPriority(by niceness: Int32) {
        _ = sentio_lower_thread_priority(niceness)
    }

    private func loop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopped { condition.wait() }
            if head == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            // Compact now and then rather than shifting the array on every job.
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}

/// One ``ComputeThread`` per core, handed out in turn so streams spread over the cores.
public final class ComputeThreads: Sendable {
    public let threads: [ComputeThread]
    private let next = Counter()

    /// `count` threads (default: one per core).
    public init(count: Int? = nil) {
        let n = max(1, count ?? Interpreter.coreCount)
        threads = (0 ..< n).map { ComputeThread(name: "sentio-compute-\($0)") }
    }

    /// The thread for the next stream.
    public func nextThread() -> ComputeThread {
        threads[next.increment() % threads.count]
    }

    public func stop() { threads.forEach { $0.stop() } }

    /// A counter shared between threads (to hand out threads in turn).
    public final class Counter: @unchecked Sendable {
        // Unchecked: guarded by its lock.
        private let lock = NSLock()
        private var value = 0
        public init() {}
        /// The value before adding one.
        public func increment() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value - 1
        }
    }
}
