#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A write waiting to reach the server.
///
/// Rule: queued in the same transaction as the optimistic local change it stands for, with the
/// idempotency key it will always be sent with, so replaying it after a restart or a reconnect
/// can never apply it twice. A permanent failure keeps the row (and with it the person's input)
/// and carries the server's sentence.
public struct OutboxEntry: Sendable, Hashable {
    /// Whether the entry is still to be sent, or was refused for good.
    public enum State: String, Sendable, Hashable {
        /// Waiting to be sent (or re-sent after a transient failure).
        case pending
        /// The server refused it; it stays until the person edits or discards it.
        case failed
    }

    /// The queue order (ascending).
    public var sequence: Int
    /// The idempotency key, fixed when the write was queued.
    public var idempotencyKey: String
    /// The HTTP method (`POST`, `PATCH`, `PUT`, `DELETE`).
    public var method: String
    /// The path below the server's base URL.
    public var path: String
    /// The body, if any.
    public var body: Data?
    /// The body's content type, if any.
    public var contentType: String?
    /// What the write is about (a resource key or a draft subject), for the UI.
    public var subject: String?
    /// When it was queued.
    public var createdAt: Date
    /// How many times sending it was attempted.
    public var attempts: Int
    /// Pending or failed.
    public var state: State
    /// The last failure's sentence (the server's own, when it sent one).
    public var lastError: String?
    /// The server's error code for a permanent failure, if it sent one.
    public var serverCode: String?
}

/// A write to queue: what `StoreTransaction.enqueue` stores.
public struct OutboxWrite: Sendable, Hashable {
    /// The HTTP method.
    public var method: String
    /// The path below the server's base URL.
    public var path: String
    /// The body.
    public var body: Data?
    /// The body's content type (JSON by default).
    public var contentType: String?
    /// What the write is about.
    public var subject: String?
    /// The idempotency key; made once, when the write is created.
    public var idempotencyKey: String

    /// Creates a write.
    public init(
        method: String, path: String, body: Data? = nil, contentType: String? = "application/json",
        subject: String? = nil, idempotencyKey: String
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.contentType = contentType
        self.subject = subject
        self.idempotencyKey = idempotencyKey
    }
}

/// A draft: what a person typed, kept until it is sent or discarded.
public struct Draft: Sendable, Hashable {
    /// What it is a draft of (`case:C-12`, `session:abc/title`).
    public var subject: String
    /// The draft as the app encoded it.
    public var body: Data
    /// When it was last saved.
    public var updatedAt: Date
}

/// What changed in a store, published after each committed transaction.
public enum StoreChange: Sendable, Hashable {
    /// A cached resource was written or removed.
    case resource(String)
    /// A snapshot group was written.
    case group(String)
    /// A list was written, extended or forgotten.
    case list(String)
    /// A draft was saved or discarded.
    case draft(String)
    /// The outbox changed; the number of entries still pending.
    case outbox(pending: Int)
    /// A document was written.
    case document(String)
    /// Everything was cleared.
    case cleared
    /// What is stored under this key (a resource, a group or a list) is known to be out of date: an event said
    /// so without carrying the new data. Observers read it from the server again (`StoreTransaction.invalidate`).
    case invalidated(String)
}
