import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP client for what no HTTP client will send: malformed framing, and requests left half-sent. Used from
/// one thread at a time.
final class RawConnection: @unchecked Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw RawError("connect: \(errno)")
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw RawError("send: \(errno)")
        }
    }

    /// Everything the server sends until it closes the connection or `limit` passes.
    func readAll(limit: TimeInterval) -> (text: String, closed: Bool) {
        var received = Data()
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            guard ready > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received.append(contentsOf: buffer[0..<count])
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// Reads until `marker` has arrived or the server closes the connection (true for either), or `limit` passes.
    func read(until marker: String, limit: TimeInterval) -> Bool { received(until: marker, limit: limit).arrived }

    /// What arrives until `marker` has (or the server closes the connection: `arrived` true for either), or `limit` passes.
    func received(until marker: String, limit: TimeInterval) -> (arrived: Bool, text: String) {
        var received = ""
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { return (false, received) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (true, received) }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
            if received.contains(marker) { return (true, received) }
        }
        return (false, received)
    }

    /// Whether the server has closed the connection, without waiting: any answer it sent first is read and dropped,
    /// then a read at the end of the stream returns 0.
    var isClosedByServer: Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    /// One request on a new connection; the response's status and body.
    static func exchange(port: Int, _ request: String, limit: TimeInterval = 10) throws -> (status: Int, body: String, head: String) {
        let connection = try RawConnection(port: port)
        try connection.send(request)
        let text = connection.readAll(limit: limit).text
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (status, parts.dropFirst().joined(separator: "\r\n\r\n"), parts.first ?? "")
    }
}

struct RawError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
