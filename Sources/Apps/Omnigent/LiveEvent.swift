import CompanionCore
import CompanionHTTP
import Foundation

/// One event of a session's live stream, as the real app's watch parser reads it (`WatchCompanionTests`): the
/// type is the event's name, or the `type` member of its data when the stream named none.
public enum LiveEvent: Sendable, Equatable {
    /// `session.heartbeat`: the stream is alive.
    case heartbeat
    /// `session.presence`: sent first on every (re)connection.
    case presence
    /// `response.output_text.delta`: text of a reply being written.
    case textDelta(LiveDelta)
    /// `response.output_item.done`: a finished item.
    case itemDone(SessionItem)
    /// `session.input.consumed`: a turn took a message; `pendingID` is the pending input it cleared
    /// (`cleared_pending_id`), `message` the message as the transcript now holds it, when it decodes.
    case inputConsumed(message: SessionItem?, pendingID: String?)
    /// `response.failed` or `response.error`: the turn failed; the server's sentence.
    case failed(String)
    /// Any other event, by its type.
    case other(String)

    /// Reads `event`; `now` stamps a consumed message that carries no time of its own; `client` decodes items
    /// with the rules of every reply.
    public static func read(_ event: ServerSentEvent, client: Client, now: Date) -> LiveEvent {
        let data = JSONValue(data: Data(event.data.utf8))
        let type = event.event == "message" ? data?["type"]?.stringValue ?? event.event : event.event
        switch type {
        case "session.heartbeat": return .heartbeat
        case "session.presence": return .presence
        case "response.output_text.delta":
            return .textDelta(
                LiveDelta(
                    text: data?["delta"]?.stringValue ?? "", messageID: data?["message_id"]?.stringValue,
                    index: data?["index"]?.intValue.map(Int.init), isFinal: data?["final"]?.boolValue ?? false))
        case "response.output_item.done":
            guard let object = data?["item"],
                let item = try? client.decode(SessionItem.self, from: Data(object.jsonString().utf8))
            else { return .other(type) }
            return .itemDone(item)
        case "session.input.consumed":
            let body = data?["data"] ?? data
            return .inputConsumed(
                message: consumedMessage(body, client: client, now: now),
                pendingID: body?["cleared_pending_id"]?.stringValue)
        case "response.failed", "response.error":
            let said =
                data?["response"]?["last_error"]?["message"]?.stringValue ?? data?["error"]?["message"]?.stringValue
                ?? data?["message"]?.stringValue ?? data?["error"]?.stringValue
            return .failed(said ?? "The reply failed; the server gave no reason.")
        default:
            return .other(type)
        }
    }

    /// The message a `session.input.consumed` carries (`{item_id, type, data: {role, content}}`).
    private static func consumedMessage(_ body: JSONValue?, client: Client, now: Date) -> SessionItem? {
        guard let body, let id = body["item_id"]?.stringValue ?? body["id"]?.stringValue else { return nil }
        var object = body.objectValue ?? [:]
        object["id"] = .string(id)
        if object["created_at"] == nil { object["created_at"] = .integer(Int64(now.timeIntervalSince1970)) }
        return try? client.decode(SessionItem.self, from: Data(JSONValue.object(object).jsonString().utf8))
    }
}

/// Text of a reply being written (`response.output_text.delta`).
public struct LiveDelta: Sendable, Hashable {
    /// The text.
    public var text: String
    /// The message it belongs to, when the server names it.
    public var messageID: String?
    /// Its place in the message, when the server numbers it (a repeated place is a duplicate).
    public var index: Int?
    /// Whether it ends its message.
    public var isFinal: Bool

    /// Creates a delta.
    public init(text: String, messageID: String? = nil, index: Int? = nil, isFinal: Bool = false) {
        self.text = text
        self.messageID = messageID
        self.index = index
        self.isFinal = isFinal
    }
}

/// The replies being written, as the live stream sends them (the real app's streaming transcript).
///
/// Rules: deltas of one message id join in order, and a place already seen is not added twice; deltas without
/// an id join the open message until one is final, then start the next; a finished item removes the message of
/// its id; a new read of the transcript (`reset`) ends them all.
public struct LiveTranscript: Sendable, Equatable {
    /// One reply being written.
    public struct Message: Sendable, Equatable {
        /// The server's message id, if it gave one.
        public var id: String?
        /// The text so far.
        public var text: String
        var places: Set<Int> = []
        var isClosed = false
    }

    /// The replies being written, in the order they started.
    public private(set) var messages: [Message] = []

    /// An empty transcript.
    public init() {}

    /// Adds a delta.
    public mutating func append(_ delta: LiveDelta) {
        let open: Int? =
            if let id = delta.messageID {
                messages.firstIndex { $0.id == id }
            } else {
                messages.lastIndex { $0.id == nil && !$0.isClosed }
            }
        var message = open.map { messages[$0] } ?? Message(id: delta.messageID, text: "")
        if let index = delta.index, delta.messageID != nil {
            guard message.places.insert(index).inserted else { return }
        }
        message.text += delta.text
        if delta.isFinal, delta.messageID == nil { message.isClosed = true }
        if let open { messages[open] = message } else { messages.append(message) }
    }

    /// Removes the reply `id` (its finished item is in the transcript now).
    public mutating func commit(_ id: String) { messages.removeAll { $0.id == id } }

    /// Ends every reply being written (the transcript was read again).
    public mutating func reset() { messages = [] }
}
