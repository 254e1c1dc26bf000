import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The WebSocket fault server (Servers/wsfault): its routes and its control API.
enum WSFault {
    /// The server's base URL (`http://127.0.0.1:port`).
    static func base() throws -> URL { try TestServers.url("COMPANION_WS_FAULT_URL") }

    /// `ws://…/path`.
    static func url(_ path: String) throws -> URL {
        var components = try #require(URLComponents(url: try base(), resolvingAgainstBaseURL: false))
        components.scheme = "ws"
        components.path = path
        return try #require(components.url)
    }

    /// A control call (`POST /_control/<name>`, or a GET of the log) and its JSON answer.
    static func control(_ name: String, method: HTTPMethod = .post) async throws -> JSONValue {
        let url = try base().appendingPathComponent("_control").appendingPathComponent(name)
        let (_, body) = try await DefaultTransport.make().send(HTTPRequest(method: method, url: url))
        return try #require(JSONValue(data: try await body.collect(upTo: 1 << 20)))
    }

    /// The log items after `after` (what every /app connection did), and the log's version.
    static func log(after: Int = 0) async throws -> (items: [JSONValue], version: Int) {
        let url = try #require(URL(string: try base().absoluteString + "/_control/log?after=\(after)"))
        let (_, body) = try await DefaultTransport.make().send(HTTPRequest(method: .get, url: url))
        let answer = try #require(JSONValue(data: try await body.collect(upTo: 64 << 20)))
        return (try #require(answer["items"]?.arrayValue), Int(try #require(answer["version"]?.intValue)))
    }

    /// The platform's WebSocket transport.
    static func transport() -> any ChannelTransport { DefaultChannelTransport.webSocket() }
}

@Suite("WebSocket transport against a real server (Servers/wsfault)")
struct WebSocketTransportTests {
    @Test("K-WS-10: text and binary messages go out masked and come back whole, a 1 MiB one too")
    func echo() async throws {
        let socket = try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/echo")))
        var iterator = socket.messages.makeAsyncIterator()
        try await socket.send(.text("héllo"))
        #expect(try await iterator.next() == .text("héllo"))
        let big = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await socket.send(.binary(big))
        #expect(try await iterator.next() == .binary(big))
        try await socket.send(.text(""))
        #expect(try await iterator.next() == .text(""))
        try await socket.ping()
        await socket.close(.normal, reason: "done")
        #expect(try await iterator.next() == nil)
    }

    @Test("K-WS-11: a refused upgrade fails with the server's status and its own sentence")
    func refusedHandshake() async throws {
        let error = await #expect(throws: ChannelError.self) {
            _ = try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/refuse")))
        }
        #expect(
            error
                == .handshakeRefused(
                    status: 403, sentence: "This server does not accept live connections from this app."))
        #expect(error?.description.contains("HTTP 403") == true)
    }

    @Test("K-WS-12: a server that never answers the upgrade is a timeout within the open timeout")
    func silentHandshake() async throws {
        let request = ChannelRequest(url: try WSFault.url("/silent"), openTimeout: .milliseconds(500))
        let error = await #expect(throws: ChannelError.self) { _ = try await WSFault.transport().open(request) }
        guard case .connection(.timedOut) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
    }

    @Test("K-WS-13: a frame over the size cap closes the connection with 1009")
    func oversizedFrame() async throws {
        let request = ChannelRequest(url: try WSFault.url("/app"), maxMessageBytes: 1 << 20)
        let socket = try await WSFault.transport().open(request)
        var iterator = socket.messages.makeAsyncIterator()
        _ = try await iterator.next()  // auth_required
        try await socket.send(.text(#"{"type":"auth","access_token":"fault-access-token-0123456789"}"#))
        _ = try await iterator.next()  // auth_ok
        try await socket.send(.text(#"{"id":1,"type":"oversized","bytes":2097152}"#))
        let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
        guard case .protocolViolation(let violation) = error else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(violation.closeCode == .messageTooBig)
    }

    @Test("K-WS-14: a connection that ends in the middle of a message is a lost connection, not a message")
    func closeMidMessage() async throws {
        let socket = try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/app")))
        var iterator = socket.messages.makeAsyncIterator()
        _ = try await iterator.next()
        try await socket.send(.text(#"{"type":"auth","access_token":"fault-access-token-0123456789"}"#))
        _ = try await iterator.next()
        try await socket.send(.text(#"{"id":1,"type":"close_mid"}"#))
        let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
        guard case .connection(.connectionLost) = error else {
            Issue.record("expected a lost connection, got \(String(describing: error))")
            return
        }
    }

    @Test("K-WS-15: the server's close comes with its code and reason, and is echoed")
    func serverClose() async throws {
        let socket = try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/nowhere")))
        var iterator = socket.messages.makeAsyncIterator()
        let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
        #expect(error == .closed(code: .policyViolation, reason: "no such route"))
    }
}
