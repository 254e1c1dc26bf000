import CompanionCore
import CompanionHTTP
import Foundation

/// P11's Swift contender: the kit's WebSocket channel (`DefaultChannelTransport.webSocket()`) doing the three cases
/// exactly as `Benchmarks/Peers/ws_peer.py` does them: each on its own connection, opened and warmed with one
/// exchange before the clock starts; the CPU seconds cover the whole case, the opening included (as the peer's do).
enum ChannelContender {
    /// Runs one case against the wsbench server at `base` (`ws://127.0.0.1:<port>`).
    @Sendable static func run(_ base: URL, _ item: LiveBenchmarks.Case) async throws -> (wall: Double, cpu: Double) {
        let cpu = ProcessCPU.current()
        let wall: Double
        switch item.letter {
        case "a": wall = try await roundTrips(base, count: item.operations)
        case "b": wall = try await pushed(base, count: item.operations)
        default: wall = try await big(base, size: 16 << 20)
        }
        return (wall, ProcessCPU.current() - cpu)
    }

    /// A JSON text message of exactly 100 bytes carrying `i` (the peer's `echo_message`). The paddings are made
    /// once: `String(repeating:count:)` appends character by character, about 21,000 instructions a message, a
    /// third of a round trip's instructions, where the peer's `"x" * n` is one C fill.
    static func echoMessage(_ i: Int) -> String {
        let head = "{\"id\":\(i),\"type\":\"echo\",\"pad\":\""
        return head + paddings[max(0, 100 - head.utf8.count - 2)] + "\"}"
    }

    /// `paddings[n]` is `n` times `x`.
    private static let paddings = (0...100).map { String(repeating: "x", count: $0) }

    /// (a): `count` sequential round trips on /echo, each reply parsed and its id checked.
    static func roundTrips(_ base: URL, count: Int) async throws -> Double {
        try await connected(base, "echo") { socket, next in
            try await socket.send(.text(echoMessage(0)))
            _ = try await next()
            let start = ContinuousClock.now
            for i in 1...count {
                try await socket.send(.text(echoMessage(i)))
                guard try parsed(try await next())["id"]?.intValue == Int64(i) else {
                    throw BenchmarkError("round trip \(i): another message came back")
                }
            }
            return (ContinuousClock.now - start).seconds
        }
    }

    /// (b): one request on /push for `count` messages of 200 bytes, each read, parsed and its seq checked.
    static func pushed(_ base: URL, count: Int) async throws -> Double {
        try await connected(base, "push") { socket, next in
            try await socket.send(.text(#"{"count":1,"size":200}"#))
            _ = try await next()
            let start = ContinuousClock.now
            try await socket.send(.text("{\"count\":\(count),\"size\":200}"))
            for i in 0..<count {
                guard try parsed(try await next())["seq"]?.intValue == Int64(i) else {
                    throw BenchmarkError("pushed message \(i) came out of order")
                }
            }
            return (ContinuousClock.now - start).seconds
        }
    }

    /// A message's text parsed whole into a JSON tree (every member, as the peer's `json.loads` builds its dict),
    /// the way the kit's JSON dialects read a message (`JSONValue(data:)`, from a copy of the text's UTF-8): the
    /// kit's fast reader (`JSONValue.reading`), and `JSONDecoder` (with its error) only for what that reader leaves
    /// to it. Under callgrind the reader takes about 9,100 instructions for (b)'s message where `JSONDecoder` into a
    /// `Decodable` struct took about 20,800.
    private static func parsed(_ message: ChannelMessage) throws -> JSONValue {
        let data = Data(message.text?.utf8 ?? "".utf8)
        return try JSONValue.reading(data) ?? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// (c): one binary message of `size` random bytes sent to /echo and read back whole, its bytes compared.
    static func big(_ base: URL, size: Int) async throws -> Double {
        // One read of the kernel's random source, as the peer's `os.urandom` (a generator call per word would
        // add a second of CPU to the case's figure).
        guard let source = FileHandle(forReadingAtPath: "/dev/urandom"),
            let payload = try source.read(upToCount: size), payload.count == size
        else { throw BenchmarkError("/dev/urandom gave no \(size) bytes") }
        try source.close()
        return try await connected(base, "echo", maxMessageBytes: size + (1 << 20)) { socket, next in
            try await socket.send(.binary(Data("warm".utf8)))
            _ = try await next()
            let start = ContinuousClock.now
            try await socket.send(.binary(payload))
            let echoed = try await next()
            let seconds = (ContinuousClock.now - start).seconds
            guard echoed == .binary(payload) else { throw BenchmarkError("the big message came back different") }
            return seconds
        }
    }

    /// Opens `base/path`, runs `body` with the socket and a reader of its next message, then closes it.
    private static func connected(
        _ base: URL, _ path: String, maxMessageBytes: Int = 16 << 20,
        _ body: (any ChannelSocket, () async throws -> ChannelMessage) async throws -> Double
    ) async throws -> Double {
        let request = ChannelRequest(url: base.appendingPathComponent(path), maxMessageBytes: maxMessageBytes)
        let socket = try await DefaultChannelTransport.webSocket().open(request)
        var iterator = socket.messages.makeAsyncIterator()
        do {
            let seconds = try await body(socket) {
                guard let message = try await iterator.next() else {
                    throw BenchmarkError("the server closed the connection early")
                }
                return message
            }
            await socket.close(.normal, reason: "")
            return seconds
        } catch {
            await socket.close(.normal, reason: "")
            throw error
        }
    }
}
