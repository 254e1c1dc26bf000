import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A channel transport that claims the channel contract (docs/adding-a-transport.md, C-1..C-6) and so runs
/// `ChannelConformanceTests`, each case on the fault server that shows it: the platform's WebSocket transport on
/// Servers/wsfault, Server-Sent Events (`EventSourceChannelTransport`) on the fault server's `/sse` and its other
/// routes. A case that has no meaning for a transport (a WebSocket close frame over SSE) leaves it out of its
/// arguments, and the contract's table says so.
enum ConformingChannel: String, Sendable, CustomTestStringConvertible {
    /// The platform's WebSocket transport (`CurlWebSocketTransport` on Linux).
    case webSocket
    /// `EventSourceChannelTransport` over a client of the fault server.
    case serverSentEvents

    /// Every channel transport this platform has.
    static let all: [ConformingChannel] = [.webSocket, .serverSentEvents]

    /// An SSE socket streaming `path` from the fault server.
    static func sse(_ path: String, settings: EventSourceConfiguration = EventSourceConfiguration()) async throws
        -> any ChannelSocket
    {
        let client = TestClients.loopback(try TestServers.fault(), timeout: .seconds(10))
        let transport = EventSourceChannelTransport(client: client, request: .get(path), configuration: settings)
        return try await transport.open(ChannelRequest(url: try TestServers.fault()))
    }

    var testDescription: String { rawValue }
}

/// The failure that ends opening `socket` or reading its messages, if any: a transport may refuse at `open` (a
/// WebSocket upgrade) or with its first message (an SSE stream, which opens at once).
func channelFailure(_ socket: () async throws -> any ChannelSocket) async -> ChannelError? {
    do {
        for try await _ in try await socket().messages {}
        return nil
    } catch let error as ChannelError {
        return error
    } catch {
        return .unreadable("\(error)")
    }
}

@Suite("The channel transport contract, on every channel transport (docs/adding-a-transport.md)")
struct ChannelConformanceTests {
    /// Signs in on wsfault's `/app` and returns the socket's messages after `auth_ok`.
    private func signedIn(_ request: ChannelRequest) async throws -> (
        any ChannelSocket, AsyncThrowingStream<ChannelMessage, any Error>.AsyncIterator
    ) {
        let socket = try await WSFault.transport().open(request)
        var iterator = socket.messages.makeAsyncIterator()
        _ = try await iterator.next()  // auth_required
        try await socket.send(.text(#"{"type":"auth","access_token":"fault-access-token-0123456789"}"#))
        _ = try await iterator.next()  // auth_ok
        return (socket, iterator)
    }

    @Test(
        "K-WS-10 (C-1, C-6): messages come out whole and in order, text as text and binary as binary; a ping returns",
        arguments: ConformingChannel.all)
    func messagesInOrder(_ kind: ConformingChannel) async throws {
        switch kind {
        case .webSocket:
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
        case .serverSentEvents:
            let socket = try await ConformingChannel.sse("/sse?count=5&interval_ms=5")
            try await socket.ping()
            var ids: [String?] = []
            for try await message in socket.messages {
                guard case .event(let event) = message else {
                    Issue.record("expected an event, got \(message)")
                    return
                }
                #expect(message.text == #"{"n":\#(ids.count + 1),"stream":"default"}"#)
                ids.append(event.id)
            }
            #expect(ids == ["1", "2", "3", "4", "5"])
        }
    }

    @Test(
        "K-WS-11 (C-2): a refused opening fails with the server's status and its own sentence",
        arguments: ConformingChannel.all)
    func refusedOpening(_ kind: ConformingChannel) async throws {
        switch kind {
        case .webSocket:
            let error = await channelFailure {
                try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/refuse")))
            }
            #expect(
                error
                    == .handshakeRefused(
                        status: 403, sentence: "This server does not accept live connections from this app."))
            #expect(error?.description.contains("HTTP 403") == true)
        case .serverSentEvents:
            let error = await channelFailure { try await ConformingChannel.sse("/auth/forbidden") }
            guard case .connection(let failure) = error else {
                Issue.record("expected the HTTP layer's refusal, got \(String(describing: error))")
                return
            }
            #expect(failure.statusCode == 403)
            #expect(failure.description.contains("You are not allowed to do that."))
        }
    }

    @Test(
        "K-WS-12 (C-3): a server that never answers the opening is a timeout within the open timeout",
        arguments: ConformingChannel.all)
    func silentOpening(_ kind: ConformingChannel) async throws {
        // The server answers after 4 or 6 s (a 503, or a JSON body where a stream was asked for): a transport that
        // waited past its bound gets that answer instead of a timeout, so the bound is checked without timing anything.
        let error: ChannelError?
        switch kind {
        case .webSocket:
            let url = try #require(URL(string: try WSFault.url("/silent").absoluteString + "?answer_after=4"))
            let request = ChannelRequest(url: url, openTimeout: .milliseconds(500))
            error = await channelFailure { try await WSFault.transport().open(request) }
        case .serverSentEvents:
            // A stream's bound is its idle timeout (whole seconds on Linux), the head's wait included.
            error = await channelFailure {
                try await ConformingChannel.sse(
                    "/stall?seconds=6", settings: EventSourceConfiguration(reconnects: false, idleTimeout: .seconds(2)))
            }
        }
        guard case .connection(.timedOut) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
    }

    @Test(
        "K-WS-13 (C-4): a message over the size cap ends the messages with a clear error",
        arguments: ConformingChannel.all)
    func oversizedMessage(_ kind: ConformingChannel) async throws {
        switch kind {
        case .webSocket:
            let (socket, signedInIterator) = try await signedIn(
                ChannelRequest(url: try WSFault.url("/app"), maxMessageBytes: 1 << 20))
            var iterator = signedInIterator
            try await socket.send(.text(#"{"id":1,"type":"oversized","bytes":2097152}"#))
            let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
            guard case .protocolViolation(let violation) = error else {
                Issue.record("expected a protocol violation, got \(String(describing: error))")
                return
            }
            #expect(violation.closeCode == .messageTooBig)
        case .serverSentEvents:
            let settings = EventSourceConfiguration(reconnects: false, maxFrameBytes: 4096)
            let error = await channelFailure {
                try await ConformingChannel.sse("/sse?count=2&big=100000", settings: settings)
            }
            #expect(error?.description.contains("larger than 4096 bytes") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "K-WS-14 (C-4): a connection that ends in the middle of a stream is a lost connection, not an end",
        arguments: ConformingChannel.all)
    func cutMidStream(_ kind: ConformingChannel) async throws {
        switch kind {
        case .webSocket:
            let (socket, signedInIterator) = try await signedIn(ChannelRequest(url: try WSFault.url("/app")))
            var iterator = signedInIterator
            try await socket.send(.text(#"{"id":1,"type":"close_mid"}"#))
            let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
            guard case .connection(.connectionLost) = error else {
                Issue.record("expected a lost connection, got \(String(describing: error))")
                return
            }
        case .serverSentEvents:
            let stream = "conformance-cut-\(UUID().uuidString.prefix(8))"
            let settings = EventSourceConfiguration(reconnects: false)
            let error = await channelFailure {
                try await ConformingChannel.sse(
                    "/sse?count=5&interval_ms=5&drop_after=2&stream=\(stream)", settings: settings)
            }
            guard case .connection(.connectionLost) = error else {
                Issue.record("expected a lost connection, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(
        "K-WS-15 (C-4): the server's close comes with its code and reason (WebSocket: SSE has no close frame)",
        arguments: [ConformingChannel.webSocket])
    func serverClose(_ kind: ConformingChannel) async throws {
        let socket = try await WSFault.transport().open(ChannelRequest(url: try WSFault.url("/nowhere")))
        var iterator = socket.messages.makeAsyncIterator()
        let error = await #expect(throws: ChannelError.self) { _ = try await iterator.next() }
        #expect(error == .closed(code: .policyViolation, reason: "no such route"))
    }
}
