import Attendance
import Foundation
import Hummingbird
import SentioStore

/// Class-list imports as background jobs (issue 34, finding 6): an import's cost is a bcrypt
/// hash for each new account (about a quarter of a second each), so 300 rows held a request,
/// and a core, for over a minute. The request now answers 202 with the job at once; the job
/// runs off the request path, one at a time for the whole server, hashing one password at a
/// time (one core at most, the other cores left to everyone else), then writes the whole list
/// in one transaction. The page polls the job for its progress; the first passwords are given
/// to the administrator who started it, and forgotten half an hour after it ends.
actor ImportJobs {
    enum State: String, Codable, Sendable { case queued, hashing, saving, done, failed }

    /// A job as its page sees it.
    struct Job: Encodable, Sendable {
        var id: String
        var course: String
        var state: State
        /// New accounts whose password is hashed so far, of `total`.
        var done: Int
        var total: Int
        var rows: Int
        var result: ImportResult?
        var error: String?
        /// Who started it (only they may read it; never sent).
        var owner: String
        var ended: ContinuousClock.Instant?

        enum CodingKeys: String, CodingKey { case id, course, state, done, total, rows, result, error }
    }

    private var jobs: [String: Job] = [:]
    private var tail: Task<Void, Never>?
    private let register: AttendanceRegister
    private let passwords: Passwords
    /// Jobs queued or running beyond which a new one is refused (503).
    static let maxPending = 8
    static let keepSeconds = 1800.0

    init(register: AttendanceRegister, passwords: Passwords) {
        self.register = register
        self.passwords = passwords
    }

    /// Queues the import of `list` into `course` for `owner`; the job as it stands.
    func start(_ list: StudentImport, course: String, owner: String) throws -> Job {
        forgetOld()
        let pending = jobs.values.filter { $0.state != .done && $0.state != .failed }.count
        guard pending < Self.maxPending else {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "30"], message: "\(pending) imports are waiting; try again in a minute")
        }
        let job = Job(id: RandomID.make(), course: course, state: .queued, done: 0, total: 0, rows: list.rows.count, owner: owner)
        jobs[job.id] = job
        let previous = tail
        tail = Task {
            await previous?.value
            await self.run(job.id, list)
        }
        return job
    }

    /// The job `id` if `owner` started it.
    func job(_ id: String, owner: String) -> Job? {
        forgetOld()
        guard let job = jobs[id], job.owner == owner else { return nil }
        return job
    }

    private func run(_ id: String, _ list: StudentImport) async {
        guard let course = jobs[id]?.course, let owner = jobs[id]?.owner else { return }
        do {
            let new = try await register.newUsernames(list)
            update(id) { $0.state = .hashing; $0.total = new.count }
            var firsts: [String: (password: String, hash: String)] = [:]
            for name in new.sorted() {
                let password = "S-" + RandomID.make(bytes: 9)
                firsts[name] = (password, try await passwords.hash(password))
                update(id) { $0.done += 1 }
            }
            update(id) { $0.state = .saving }
            let result = try await register.importStudents(list, course: course, passwords: firsts, actor: owner)
            update(id) { $0.state = .done; $0.result = result; $0.ended = .now }
        } catch {
            update(id) { $0.state = .failed; $0.error = "\(error)"; $0.ended = .now }
        }
    }

    private func update(_ id: String, _ change: (inout Job) -> Void) {
        guard var job = jobs[id] else { return }
        change(&job)
        jobs[id] = job
    }

    /// Ended jobs, and the passwords they hold, are forgotten after half an hour.
    private func forgetOld() {
        let now = ContinuousClock.now
        jobs = jobs.filter { _, job in job.ended.map { (now - $0).milliseconds < Self.keepSeconds * 1000 } ?? true }
    }
}
