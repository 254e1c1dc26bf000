import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// What one replay of the outbox did.
public struct ReplayReport: Sendable, Hashable {
    /// The idempotency keys of the writes the server accepted (and that left the outbox).
    public var sent: [String] = []
    /// Writes the server refused for good: their keys and the server's sentences. They stay in
    /// the outbox with the person's input.
    public var refused: [(key: String, sentence: String)] = []
    /// The transient failure that stopped the replay (the rest waits for the next one), if any.
    public var stoppedBy: HTTPError?
    /// Entries still pending afterwards.
    public var pending: Int = 0

    /// Equal when the same things happened.
    public static func == (lhs: ReplayReport, rhs: ReplayReport) -> Bool {
        lhs.sent == rhs.sent && lhs.refused.map(\.key) == rhs.refused.map(\.key)
            && lhs.refused.map(\.sentence) == rhs.refused.map(\.sentence) && lhs.stoppedBy == rhs.stoppedBy
            && lhs.pending == rhs.pending
    }

    /// Hashes the keys.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sent)
        hasher.combine(refused.map(\.key))
        hasher.combine(pending)
    }
}

/// Queues writes with their optimistic local change and replays them, in order, with the same
/// idempotency key every time.
///
/// Rule: a transient failure (no connection, timeout, 5xx, 429) keeps the entry pending and stops
/// the replay so later writes do not overtake it; a permanent one (another 4xx) marks the entry
/// failed with the server's sentence, keeps its body, and the replay goes on. Replays never
/// overlap, so a write is never in flight twice from this process.
public actor OutboxSender {
    /// Applies a sent write's reply to the store, in the transaction that removes the entry.
    public typealias OnSent = @Sendable (OutboxEntry, Data, StoreTransaction) throws(StoreError) -> Void

    private let store: OfflineStore
    private let random: any RandomSource
    private var replaying = false

    /// Creates a sender for `store`; `random` makes idempotency keys.
    public init(store: OfflineStore, random: any RandomSource = SystemRandomSource()) {
        self.store = store
        self.random = random
    }

    /// A new idempotency key (128 random bits, hex).
    public nonisolated func makeKey() -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: random.next().bigEndian) { bytes.append(contentsOf: $0) } }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Applies `localChange` and queues `write` in one transaction; returns the entry's sequence.
    @discardableResult
    public func enqueue(
        _ write: OutboxWrite, localChange: @escaping @Sendable (StoreTransaction) throws(StoreError) -> Void = { _ in }
    ) async throws(StoreError) -> Int {
        try await store.write { transaction throws(StoreError) in
            try localChange(transaction)
            return try transaction.enqueue(write)
        }
    }

    /// Sends every pending entry in order through `client`.
    public func replay(through client: Client, onSent: OnSent? = nil) async -> ReplayReport {
        var report = ReplayReport()
        guard !replaying else {
            report.pending =
                (try? await store.read { transaction throws(StoreError) in try transaction.pendingCount() }) ?? 0
            return report
        }
        replaying = true
        defer { replaying = false }
        let entries = (try? await store.outbox()) ?? []
        for entry in entries where entry.state == .pending {
            let request = Request<Data>.raw(
                HTTPMethod(rawValue: entry.method), entry.path, body: entry.body,
                headers: entry.contentType.map { ["Content-Type": $0] } ?? [:]
            ).idempotencyKey(entry.idempotencyKey)
            do {
                let data = try await client.send(request)
                try await store.write { transaction throws(StoreError) in
                    try onSent?(entry, data, transaction)
                    try transaction.removeFromOutbox(entry.sequence)
                }
                report.sent.append(entry.idempotencyKey)
            } catch let error as HTTPError {
                let permanent = !Self.isTransient(error)
                let sentence = error.envelope?.summary ?? error.description
                _ = try? await store.write { transaction throws(StoreError) in
                    try transaction.recordFailure(
                        entry.sequence, sentence: sentence, serverCode: error.envelope?.code, permanent: permanent)
                }
                if permanent {
                    report.refused.append((entry.idempotencyKey, sentence))
                } else {
                    report.stoppedBy = error
                    break
                }
            } catch {
                report.stoppedBy = HTTPError.transport("\(error)")
                break
            }
        }
        report.pending =
            (try? await store.read { transaction throws(StoreError) in try transaction.pendingCount() }) ?? 0
        return report
    }

    /// Whether a failure may go away by itself (worth sending the same write again later).
    public static func isTransient(_ error: HTTPError) -> Bool {
        if error.isConnectivity { return true }
        switch error {
        case .cancelled, .transport: return true
        case .status(let failure): return failure.status >= 500 || failure.status == 429 || failure.status == 408
        default: return false
        }
    }
}
