import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket listening on 127.0.0.1 that never answers: a server address nothing else uses, so
/// a test can tell whether anything connected to it (a deep link must make no request before consent).
public final class ListeningSocket: Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32

    /// Binds 127.0.0.1 on a free port and listens.
    public init() throws {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw TestServers.Missing(variable: "a free loopback socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw TestServers.Missing(variable: "a free loopback socket")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a connection is waiting to be accepted (checked without waiting).
    public var hasPendingConnection: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// Waits up to `seconds` for a connection to arrive (a bounded wait on the condition, not a sleep).
    public func waitForConnection(seconds: Int) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    deinit { close(descriptor) }
}

/// `SOCK_STREAM` as `socket()` takes it: an enum case on Glibc, an `Int32` on Darwin (the macOS job builds these).
let streamSocketType: Int32 = {
    #if canImport(Glibc)
        return Int32(SOCK_STREAM.rawValue)
    #else
        return SOCK_STREAM
    #endif
}()
