import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP server on 127.0.0.1 (a free port) that answers every request with one HTML page, so a
/// script can be checked in Chromium on a real loopback origin. Two of them are two origins.
///
/// Rules: it listens on loopback only; each connection gets one `200 text/html` answer and is closed;
/// `stop()` (or deinit) closes the socket, which ends the accept loop.
public final class ChromiumLoopbackPage: Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32

    /// The page's URL, `http://127.0.0.1:<port>/`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

    /// The page's origin, `http://127.0.0.1:<port>`.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `html`.
    public init(html: String) throws {
        let socket = ListeningSocket.bindLoopback()
        guard let socket else { throw TestServers.Missing(variable: "a free loopback socket") }
        (descriptor, port) = socket
        let body = Array(html.utf8)
        let head = Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
                + "Cache-Control: no-store\r\nConnection: close\r\n\r\n").utf8)
        let listening = descriptor
        Thread.detachNewThread {
            while true {
                let client = accept(listening, nil, nil)
                if client < 0 { return }
                var request: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4_096)
                while request.count < 65_536 {
                    let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    request += chunk[0..<count]
                    if request.count >= 4, Array(request.suffix(4)) == [13, 10, 13, 10] { break }
                }
                let answer = head + body
                _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }

    /// Stops serving.
    public func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}

extension ListeningSocket {
    /// A socket bound to 127.0.0.1 on a free port and listening with `backlog`, with its port; `nil` when none
    /// could be made.
    static func bindLoopback(backlog: Int32 = 16) -> (Int32, Int)? {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            close(fd)
            return nil
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
