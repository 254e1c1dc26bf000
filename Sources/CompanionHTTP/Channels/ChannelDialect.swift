import CompanionCore
import Foundation

/// What one incoming message is to the channel.
public enum ChannelIncoming: Sendable, Hashable {
    /// The reply to request `id`: its result, or the server's error.
    case reply(id: Int, Result<JSONValue, ChannelError>)
    /// An event of subscription `id`.
    case event(id: Int, JSONValue)
    /// Anything else (a Server-Sent Event, a message no request asked for): delivered on `events()`.
    case other(JSONValue)
}

/// The two-way link a dialect signs in over, on a fresh connection before the channel is ready.
public protocol ChannelLink: Sendable {
    /// The next message (one element of an array frame at a time).
    func receive() async throws(ChannelError) -> JSONValue
    /// Sends `message` (journaled with its secrets masked).
    func send(_ message: JSONValue) async throws(ChannelError)
}

/// A server's message format on a channel: how to sign in, number a request, read a reply or an event, and stop a
/// subscription. The app registers its own; the kit ships `NumberedJSONDialect` (numbered JSON requests with
/// `result` and `event` replies) and `EventStreamDialect` (Server-Sent Events: every message is an event).
public protocol ChannelDialect: Sendable {
    /// Signs in on a fresh connection. Throws `ChannelError.credentialRefused` when the server refuses the
    /// credential (the channel then stops and does not retry); any other error is a failed attempt, retried.
    func authenticate(over link: any ChannelLink) async throws(ChannelError)
    /// The message sent for request number `id` with `body`.
    func request(id: Int, body: JSONValue) -> JSONValue
    /// What `message` is.
    func classify(_ message: JSONValue) -> ChannelIncoming
    /// The request that ends subscription `id`, or `nil` when the server has none (the channel just stops
    /// delivering its events).
    func unsubscribe(id: Int) -> JSONValue?
    /// The channel's own ping as a request body (its reply is the pong), or `nil` to use the transport's ping (a
    /// WebSocket control frame).
    var pingRequest: JSONValue? { get }
    /// Whether the channel can send requests at all (false for Server-Sent Events).
    var sendsRequests: Bool { get }
    /// Requests sent first on every connection once it is ready, before any subscription or waiting request
    /// (numbered by the channel; their replies are not delivered): the server's feature switches.
    var readyRequests: [JSONValue] { get }
}

extension ChannelDialect {
    /// None by default.
    public var readyRequests: [JSONValue] { [] }
}

/// The common shape of numbered JSON channels: a request is an object with an increasing `id` and a `type`; its
/// reply is `{"id", "type": "result", "success", "result" | "error": {"code", "message"}}`; a subscription's events
/// are `{"id", "type": "event", "event"}`; a pong is `{"id", "type": "pong"}`. The member names are settings, and
/// signing in is the app's closure.
public struct NumberedJSONDialect: ChannelDialect {
    /// The member holding the request number.
    public var idKey = "id"
    /// The member holding the message type.
    public var typeKey = "type"
    /// The type of a reply.
    public var resultType = "result"
    /// The type of a subscription's event.
    public var eventType = "event"
    /// The type of the answer to a ping request.
    public var pongType = "pong"
    /// The member of an event holding its payload.
    public var eventKey = "event"
    /// The request that ends subscription `id`.
    public var unsubscribeRequest: @Sendable (Int) -> JSONValue?
    /// The channel's own ping request, or `nil` for the transport's ping.
    public var pingRequest: JSONValue?
    /// Signs in over a fresh connection.
    public var signIn: @Sendable (any ChannelLink) async throws(ChannelError) -> Void
    /// Requests sent first on every ready connection (a feature switch such as Home Assistant's
    /// `supported_features`).
    public var readyRequests: [JSONValue] = []

    /// Creates the dialect with how to sign in, stop a subscription and ping.
    public init(
        pingRequest: JSONValue? = ["type": "ping"],
        unsubscribe: @escaping @Sendable (Int) -> JSONValue? = { _ in nil },
        signIn: @escaping @Sendable (any ChannelLink) async throws(ChannelError) -> Void = { _ in }
    ) {
        self.pingRequest = pingRequest
        self.unsubscribeRequest = unsubscribe
        self.signIn = signIn
    }

    /// Runs the sign-in closure.
    public func authenticate(over link: any ChannelLink) async throws(ChannelError) { try await signIn(link) }

    /// `body` with `id` set.
    public func request(id: Int, body: JSONValue) -> JSONValue {
        var members = body.objectValue ?? [:]
        members[idKey] = .integer(Int64(id))
        return .object(members)
    }

    /// A reply, an event or a pong by its `type` and `id`; anything else is `other`.
    public func classify(_ message: JSONValue) -> ChannelIncoming {
        guard let id = message[idKey]?.intValue.map(Int.init), let type = message[typeKey]?.stringValue else {
            return .other(message)
        }
        switch type {
        case resultType:
            if message["success"]?.boolValue == false {
                let error = message["error"]
                return .reply(
                    id: id,
                    .failure(
                        .server(
                            code: error?["code"]?.stringValue ?? "error",
                            message: error?["message"]?.stringValue ?? error?.jsonString() ?? "no message")))
            }
            return .reply(id: id, .success(message["result"] ?? .null))
        case pongType: return .reply(id: id, .success(.null))
        case eventType: return .event(id: id, message[eventKey] ?? .null)
        default: return .other(message)
        }
    }

    /// The configured unsubscribe request.
    public func unsubscribe(id: Int) -> JSONValue? { unsubscribeRequest(id) }

    /// A numbered dialect sends requests.
    public var sendsRequests: Bool { true }
}

/// Server-Sent Events as a channel: nothing to sign in (the request carries the credential), no requests; each
/// event is delivered on `events()` as `{"type": <event type>, "id": <id or null>, "data": <JSON or text>}`.
public struct EventStreamDialect: ChannelDialect {
    /// Creates the dialect.
    public init() {}

    /// Nothing to do: the stream's request is signed like any other.
    public func authenticate(over link: any ChannelLink) async throws(ChannelError) {}
    /// Unused (an event stream takes no requests).
    public func request(id: Int, body: JSONValue) -> JSONValue { body }
    /// Every message is an event for `events()`.
    public func classify(_ message: JSONValue) -> ChannelIncoming { .other(message) }
    /// No unsubscribe request.
    public func unsubscribe(id: Int) -> JSONValue? { nil }
    /// No ping request (the stream's idle timeout finds a dead peer).
    public var pingRequest: JSONValue? { nil }
    /// An event stream takes no requests.
    public var sendsRequests: Bool { false }
}
