import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the test server, for what an HTTP client will not do: stay
/// silent, send a header a line at a time, trickle a body, read a raw answer.
final class RawSocket {
    private let fd: Int32

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address, 127.0.0.2 say,
    /// to play a second client).
    init(port: Int, from source: String? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw TestFailure("bind \(source): \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw TestFailure("connect: \(errno)")
        }
    }

    deinit { close(fd) }

    /// One of this machine's IPv4 addresses other than loopback (a client that is "not this
    /// machine" to the server's loopback check), or nil when it has none.
    static func nonLoopbackAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(cString: host)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }

    /// Sends one HTTP/1.1 request that closes the connection, and reads the whole answer.
    static func request(port: Int, from source: String? = nil, _ method: String, _ path: String, json: String) throws -> String {
        let socket = try RawSocket(port: port, from: source)
        socket.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
        return socket.readUntilClosed(within: 10).text
    }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the server closes the connection or `seconds` pass; the bytes read, and
    /// whether the connection was closed by then.
    func readUntilClosed(within seconds: Double) -> (text: String, closed: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, wait) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0 ..< n]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}
