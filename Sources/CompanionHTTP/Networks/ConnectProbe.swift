import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a TCP connection to an address opens within a short time: how the kit tells whether a server's
/// internal (home) address answers before sending anything there. The network comes in through this protocol,
/// so tests can also give one that says what they want.
public protocol ConnectProbe: Sendable {
    /// Whether a TCP connection to `host`:`port` is accepted within `timeout` (it is closed again at once).
    func canConnect(host: String, port: Int, timeout: Duration) async -> Bool
}

/// The live probe: a non-blocking `connect` to each address the host name resolves to, waited on with `poll`, on
/// a thread of its own (never one of the shared pool), bounded by the timeout.
///
/// A refused connection answers at once; an address nothing answers on (another network's LAN address, a server
/// whose accept queue is full) waits out the timeout.
public struct TCPConnectProbe: ConnectProbe {
    /// Creates the probe.
    public init() {}

    /// Connects and closes, on a thread of its own.
    public func canConnect(host: String, port: Int, timeout: Duration) async -> Bool {
        let milliseconds = max(
            1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Self.reaches(host, port, milliseconds)) }
            thread.name = "CompanionHTTP.ConnectProbe"
            thread.start()
        }
    }

    private static func reaches(_ host: String, _ port: Int, _ milliseconds: Int) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            if attempt(current.pointee, Int32((deadline - now) / 1_000_000)) { return true }
            entry = current.pointee.ai_next
        }
        return false
    }

    private static func attempt(_ address: addrinfo, _ milliseconds: Int32) -> Bool {
        let fd = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if connect(fd, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, max(1, milliseconds)) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == 0
    }
}
