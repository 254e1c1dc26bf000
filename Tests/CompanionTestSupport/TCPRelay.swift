import CompanionCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server's second address on 127.0.0.1 that a test takes down and brings back: a TCP relay to another port
/// (a TLS server's, so the same certificate answers on both).
///
/// Down, it listens with an accept queue of one that it fills and never accepts from, so a new connection
/// hangs until the connecting side gives up (a home address that does not answer from another network); a
/// closed port would refuse at once instead. Up, it accepts and relays every byte both ways, each connection
/// on threads of its own. `stop()` closes everything (call it with `defer`).
public final class TCPRelay: Sendable {
    /// The port it listens on.
    public let port: Int
    private let target: Int
    private let listener: Int32
    private let state = Locked(State())
    /// Signalled when the accept loop has returned, so the listening descriptor is closed only after it.
    private let acceptEnded = DispatchSemaphore(value: 0)

    private struct State {
        var fillers: [Int32] = []
        var running = false
        var closed = false
        var accepted = 0
        var open: Set<Int32> = []
    }

    /// SIGPIPE ignored in this process, once: a relayed write to a connection `cut()` or `stop()` shut then fails
    /// with EPIPE, which ends its pump, instead of killing the test process.
    private static let brokenPipesIgnored: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// Binds a free port on 127.0.0.1 and fills its accept queue: down until `start()`.
    public init(relayingTo target: Int) throws {
        _ = Self.brokenPipesIgnored
        self.target = target
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw TestServers.Missing(variable: "a free loopback socket") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 0) == 0 else {
            close(fd)
            throw TestServers.Missing(variable: "a free loopback socket")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        // Connections nobody accepts: once the queue holds them, the kernel drops every further SYN.
        var fillers: [Int32] = []
        for _ in 0..<3 {
            let filler = socket(AF_INET, streamSocketType, 0)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            var peer = Self.loopback(port: port)
            _ = withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        state.withLock { $0.fillers = fillers }
    }

    /// How many connections it has relayed.
    public var accepted: Int { state.withLock { $0.accepted } }

    /// Brings the address up: the fillers go, and every connection is accepted and relayed to the target.
    public func start() {
        let fillers = state.withLock { state -> [Int32] in
            guard !state.running, !state.closed else { return [] }
            state.running = true
            defer { state.fillers = [] }
            return state.fillers
        }
        for filler in fillers { close(filler) }
        // The fillers the kernel already queued are accepted and dropped first.
        var drain = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        while poll(&drain, 1, 0) > 0, drain.revents & Int16(POLLIN) != 0 {
            let queued = accept(listener, nil, nil)
            if queued < 0 { break }
            close(queued)
        }
        Thread { [self] in acceptLoop() }.start()
    }

    private func acceptLoop() {
        defer { acceptEnded.signal() }
        while !state.withLock({ $0.closed }) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, streamSocketType, 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let keep = state.withLock { state -> Bool in
                guard !state.closed, connected == 0 else { return false }
                state.accepted += 1
                state.open.formUnion([client, upstream])
                return true
            }
            guard keep else {
                close(client)
                close(upstream)
                continue
            }
            let ends = Locked(0)
            let finished: @Sendable () -> Void = { [self] in
                guard
                    ends.withLock({ count in
                        count += 1
                        return count == 2
                    })
                else { return }
                state.withLock { $0.open.subtract([client, upstream]) }
                close(client)
                close(upstream)
            }
            Thread { Self.pump(from: client, to: upstream, then: finished) }.start()
            Thread { Self.pump(from: upstream, to: client, then: finished) }.start()
        }
    }

    private static func pump(from source: Int32, to destination: Int32, then finished: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return write(destination, base + sent, count - sent)
                }
                if written <= 0 { break copying }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
        finished()
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Drops every connection it relays now (both ends shut) and goes on accepting new ones: a connection lost in
    /// the middle of a conversation while the address still answers.
    public func cut() {
        let open = state.withLock { $0.open }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Closes the port and keeps relaying the connections it holds: the address no longer answers (the device left
    /// that network), while a connection made before goes on until one side ends it.
    public func stopAccepting() {
        let (fillers, wasClosed, running) = state.withLock { state -> ([Int32], Bool, Bool) in
            defer { state.closed = true }
            return (state.fillers, state.closed, state.running)
        }
        guard !wasClosed else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        if running { _ = acceptEnded.wait(timeout: .now() + 5) }
        close(listener)
        for fd in fillers { close(fd) }
    }

    /// Closes the port and every relayed connection.
    public func stop() {
        let (fillers, open, wasClosed, running) = state.withLock { state -> ([Int32], Set<Int32>, Bool, Bool) in
            defer { state.closed = true }
            return (state.fillers, state.open, state.closed, state.running)
        }
        guard !wasClosed else {
            // The port was closed by `stopAccepting()`: the relayed connections are shut now.
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            return
        }
        // Shutting the listening socket down wakes the accept loop; it is closed once that loop has returned.
        shutdown(listener, Int32(SHUT_RDWR))
        if running { _ = acceptEnded.wait(timeout: .now() + 5) }
        close(listener)
        for fd in fillers { close(fd) }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
