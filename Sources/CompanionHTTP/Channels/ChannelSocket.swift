import CompanionCore
import Foundation

/// One message on a live channel.
public enum ChannelMessage: Sendable, Hashable {
    /// A text message (a WebSocket text message).
    case text(String)
    /// A binary message (a WebSocket binary message).
    case binary(Data)
    /// A Server-Sent Event (an SSE channel's message: its data is the text, its type and id come along).
    case event(ServerSentEvent)

    /// The text a JSON dialect reads: a text message, or an event's data; `nil` for binary.
    public var text: String? {
        switch self {
        case .text(let text): return text
        case .event(let event): return event.data
        case .binary: return nil
        }
    }
}

/// Everything that can end or refuse a live channel, as a sentence a person can act on.
public enum ChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be made, or broke: the HTTP layer's error (unreachable, TLS, a certificate, the
    /// proxy's sign-in, a timeout, a lost connection).
    case connection(HTTPError)
    /// The server answered the upgrade with something other than `101`: its status and its own sentence.
    case handshakeRefused(status: Int, sentence: String)
    /// The server's `101` answer is not a valid upgrade (a wrong `Sec-WebSocket-Accept`).
    case badHandshake(String)
    /// The peer broke the WebSocket protocol; the channel closed with the error's code.
    case protocolViolation(WebSocketProtocolError)
    /// The server closed the channel with this code and reason.
    case closed(code: WebSocketCloseCode?, reason: String)
    /// The peer did not answer a ping within the time allowed: the connection is taken for dead.
    case noPong(after: Duration)
    /// The server refused the credential (its own sentence): no retry, the person must sign in again.
    case credentialRefused(String)
    /// The server answered a request with an error: its code and its message, word for word.
    case server(code: String, message: String)
    /// The channel is not connected (stopped, or the request's connection ended before a reply).
    case notConnected(String)
    /// This channel cannot do that (sending on a Server-Sent Events channel).
    case unsupported(String)
    /// A message the channel could not read (not JSON where the dialect wants JSON).
    case unreadable(String)
    /// The caller cancelled.
    case cancelled

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .connection(let error): return error.description
        case .handshakeRefused(let status, let sentence):
            let said = sentence.isEmpty ? "" : ": \(sentence)"
            return "The server refused the live connection (HTTP \(status))\(said)."
        case .badHandshake(let problem):
            return "The server's answer to the live connection is not a WebSocket upgrade: \(problem)."
        case .protocolViolation(let error):
            return "The server broke the WebSocket protocol (\(error.description)); the connection was closed."
        case .closed(let code, let reason):
            let said = reason.isEmpty ? "" : ": \(reason)"
            return "The server closed the live connection (code \(code?.description ?? "none"))\(said)."
        case .noPong(let after):
            return "The server stopped answering for \(Int(after.seconds)) s; the live connection is taken for dead."
        case .credentialRefused(let sentence):
            return "The server refused the sign-in for the live connection: \(sentence). Sign in again."
        case .server(let code, let message): return "The server answered with an error (\(code)): \(message)"
        case .notConnected(let why): return "The live connection is not open: \(why)."
        case .unsupported(let what): return "This live connection cannot \(what)."
        case .unreadable(let what): return "A message from the server could not be read: \(what)."
        case .cancelled: return "Cancelled."
        }
    }
}

/// One open two-way connection (a WebSocket, or one direction of it for Server-Sent Events): what a channel
/// transport hands the channel.
///
/// Rules: `messages` yields every message in the order it arrived and finishes when the connection ends: without
/// an error after a clean close the app asked for, with `ChannelError` otherwise (`.closed` for the server's close,
/// `.connection` for a drop). A message sent is written once: a socket never resends.
public protocol ChannelSocket: Sendable {
    /// The incoming messages, in order.
    var messages: AsyncThrowingStream<ChannelMessage, any Error> { get }
    /// Writes `message` once; returns when it is handed to the network.
    func send(_ message: ChannelMessage) async throws(ChannelError)
    /// Sends a ping and returns when its pong arrives (the caller bounds the wait).
    func ping() async throws(ChannelError)
    /// Closes with `code` and `reason` (the close handshake, bounded), then releases the connection.
    func close(_ code: WebSocketCloseCode, reason: String) async
}

/// What a channel transport opens: the address, the extra headers of the upgrade (a proxy's `Authorization`),
/// and the limits.
public struct ChannelRequest: Sendable, Hashable {
    /// `ws`, `wss`, `http` or `https` (the two pairs are the same connection).
    public var url: URL
    /// Headers added to the upgrade request.
    public var headers: HTTPHeaders
    /// How long connecting and the upgrade may take together.
    public var openTimeout: Duration
    /// The largest message accepted (all its fragments).
    public var maxMessageBytes: Int

    /// Creates a request.
    public init(
        url: URL, headers: HTTPHeaders = HTTPHeaders(), openTimeout: Duration = .seconds(10),
        maxMessageBytes: Int = 16 << 20
    ) {
        self.url = url
        self.headers = headers
        self.openTimeout = openTimeout
        self.maxMessageBytes = maxMessageBytes
    }

    /// The URL with an http(s) scheme (what libcurl and URLSession connect to).
    public var httpURL: URL { url(schemes: ["ws": "http", "wss": "https"]) }

    /// The URL with a ws(s) scheme.
    public var webSocketURL: URL { url(schemes: ["http": "ws", "https": "wss"]) }

    /// `url` with its scheme replaced as `schemes` maps it (kept when not in the map).
    private func url(schemes: [String: String]) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let replaced = schemes[scheme]
        else { return url }
        components.scheme = replaced
        return components.url ?? url
    }
}

/// Opens channel sockets: the seam between a channel and the network. The WebSocket transports (libcurl's
/// connect-only stream on Linux, `URLSessionWebSocketTask` on Apple) and the Server-Sent Events one implement it.
public protocol ChannelTransport: Sendable {
    /// Opens one connection for `request`, or fails with `ChannelError` (the server's status and sentence for a
    /// refused upgrade).
    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket

    /// The device's network path changed: decides again where a connection would go, and answers whether one opened
    /// now would go to another address than the last one did (home and away): the channel then replaces its socket.
    func networkChanged() async -> Bool
}

extension ChannelTransport {
    /// A transport with one address: a connection goes where it went before (`false`).
    public func networkChanged() async -> Bool { false }
}

/// Which WebSocket transport a channel uses: libcurl's connect-only stream on Linux (`CurlWebSocketTransport`),
/// `URLSessionWebSocketTask` on Apple platforms (`URLSessionWebSocketTransport`).
public enum DefaultChannelTransport {
    /// The platform's WebSocket transport with one server's TLS settings.
    public static func webSocket(security: ConnectionSecurity = .system) -> any ChannelTransport {
        #if os(Linux) && canImport(CCurl)
            return CurlWebSocketTransport(security: security)
        #elseif canImport(Darwin) && canImport(Security)
            return URLSessionWebSocketTransport(security: security)
        #else
            return UnavailableChannelTransport()
        #endif
    }
}

/// A platform with no WebSocket transport: every open fails saying so.
struct UnavailableChannelTransport: ChannelTransport {
    func open(_ request: ChannelRequest) async throws(ChannelError) -> any ChannelSocket {
        throw .unsupported("open a WebSocket on this platform")
    }
}
