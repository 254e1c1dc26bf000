import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket on 127.0.0.1 whose accept queue is full: a connection to it is neither accepted nor refused, it
/// hangs until the client's connect timeout (how an address nothing answers on is made on loopback; a closed
/// port would refuse at once).
public final class UnacceptingSocket: Sendable {
    /// The port it listens on.
    public let port: Int
    private let descriptor: Int32
    private let fillers: [Int32]

    /// Listens with the smallest backlog and fills it with connections of its own until one stays pending.
    public init() throws {
        guard let (fd, port) = ListeningSocket.bindLoopback(backlog: 0) else {
            throw TestServers.Missing(variable: "a free loopback socket")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var fillers: [Int32] = []
        // Each filler connects (and waits in the queue) until the queue is full: the next one stays pending.
        for _ in 0..<8 {
            let client = socket(AF_INET, streamSocketType, 0)
            guard client >= 0 else { break }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
            fillers.append(client)
            var entry = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 200) == 0 { break }  // not accepted within 200 ms: the queue is full
        }
        descriptor = fd
        self.fillers = fillers
        self.port = port
    }

    deinit {
        for filler in fillers { close(filler) }
        close(descriptor)
    }
}
