import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// Applies a Server-Sent Events stream into the store, so what is on screen (which follows the
/// store's changes) updates live.
///
/// Rule: each event is applied in its own transaction together with its event id, so after a drop
/// or a restart the stream resumes after the last applied event (`Last-Event-ID`) and nothing is
/// applied twice. For servers that send no ids (Omnigent), the `connectEvent` hook runs on each
/// (re)connection so the caller can read what it missed.
public struct LiveUpdates: Sendable {
    /// Applies one event inside a transaction.
    public typealias Apply = @Sendable (ServerSentEvent, StoreTransaction) throws(StoreError) -> Void

    /// The client.
    public let client: Client
    /// The store.
    public let store: OfflineStore
    /// The name under which the last applied event id is kept.
    public let name: String

    /// Creates live updates named `name` (one per stream).
    public init(client: Client, store: OfflineStore, name: String) {
        self.client = client
        self.store = store
        self.name = name
    }

    /// The id of the last applied event, if the stream sends ids.
    public func lastEventID() async throws(StoreError) -> String? {
        let document = "sse:" + name
        return try await store.read { transaction throws(StoreError) in
            try transaction.document(document).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Follows `request` until the stream ends, fails for good, or the task is cancelled; returns
    /// how many events were applied.
    @discardableResult
    public func run(
        _ request: Request<Void>, configuration: EventSourceConfiguration = EventSourceConfiguration(),
        connectEvent: String? = nil, onConnect: (@Sendable () async throws -> Void)? = nil, apply: @escaping Apply
    ) async throws -> Int {
        var settings = configuration
        if settings.lastEventID == nil { settings.lastEventID = try await lastEventID() }
        let document = "sse:" + name
        var applied = 0
        for try await event in client.events(request, configuration: settings) {
            if let connectEvent, event.event == connectEvent {
                try await onConnect?()
                continue
            }
            try await store.write { transaction throws(StoreError) in
                try apply(event, transaction)
                if let id = event.id { try transaction.putDocument(document, body: Data(id.utf8)) }
            }
            applied += 1
        }
        return applied
    }
}
