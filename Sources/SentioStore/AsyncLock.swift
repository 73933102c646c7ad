import Foundation

/// A first-come, first-served lock for async code: one holder at a time, waiters resume in order.
/// SQLite has one connection per store, and a transaction's statements must not interleave with
/// another task's, so every use of that connection holds this lock.
final class AsyncLock: @unchecked Sendable {
    private let mutex = NSLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            mutex.lock()
            if held {
                waiters.append(continuation)
                mutex.unlock()
            } else {
                held = true
                mutex.unlock()
                continuation.resume()
            }
        }
    }

    private func release() {
        mutex.lock()
        if waiters.isEmpty {
            held = false
            mutex.unlock()
        } else {
            let next = waiters.removeFirst()  // stays held: ownership passes to the next waiter
            mutex.unlock()
            next.resume()
        }
    }
}
