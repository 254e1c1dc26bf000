import CompanionCore
import Foundation

/// One thing the vault reader did: a request, a cache hit, a verification, a decryption, a key import or a failure.
///
/// Rule: no field ever holds a key in any form. `path` is a file id or a path inside the vault; `detail` names a
/// key only by its role ("read key").
public struct VaultTrafficEvent: Identifiable, Sendable, Hashable {
    /// What kind of step an event records.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A fetch from the source (HTTP or a folder); `status` holds the HTTP status.
        case request
        /// An object answered from the local cache instead of the source.
        case cacheHit
        /// An AES-256-GCM decryption.
        case decrypt
        /// A content-address, size or content-hash check.
        case verify
        /// A key import or an id derived from the key.
        case keyDerivation
        /// A failure of any of the above.
        case error
    }

    /// A unique id.
    public let id: UUID
    /// When it happened.
    public let at: Date
    /// What kind of step it was.
    public let kind: Kind
    /// A file id such as `bare/refs/ref-pid-muw-…`, or a path inside the vault; never a key.
    public let path: String
    /// How many bytes were moved or produced.
    public let bytes: Int
    /// How long it took, in milliseconds.
    public let durationMs: Double
    /// The HTTP status on `request` events (and on errors that have one), else `nil`.
    public let status: Int?
    /// A short description, such as "AES-256-GCM, read key, 547 B → 519 B".
    public let detail: String

    /// Creates an event.
    public init(
        id: UUID = UUID(), at: Date, kind: Kind, path: String, bytes: Int, durationMs: Double, status: Int?,
        detail: String
    ) {
        self.id = id
        self.at = at
        self.kind = kind
        self.path = path
        self.bytes = bytes
        self.durationMs = durationMs
        self.status = status
        self.detail = detail
    }
}

/// The vault traffic log: newest first, capped at 2,000 events, optionally mirrored into the kit's `Journal`.
///
/// It is thread-safe (`Locked`) so the reader can record without suspending; a SwiftUI panel observes it through
/// `changes` or polls `events`.
public final class VaultTrafficLog: Sendable {
    /// How many events are kept.
    public let capacity: Int
    private let journal: Journal?
    private let clock: any WallClock
    private struct Ring {
        var events: [VaultTrafficEvent] = []
        var head = 0
    }
    private let state = Locked(Ring())
    private let counter = Locked<[VaultTrafficEvent.Kind: Int]>([:])
    private let observers = Locked<[UUID: @Sendable (VaultTrafficEvent) -> Void]>([:])

    /// Creates an empty log keeping the newest `capacity` events; each event also goes to `journal` as `.vault`.
    public init(capacity: Int = 2_000, journal: Journal? = nil, clock: any WallClock = SystemWallClock()) {
        self.capacity = max(1, capacity)
        self.journal = journal
        self.clock = clock
    }

    /// The kept events, newest first.
    public var events: [VaultTrafficEvent] {
        state.withLock { ring in Array((ring.events[ring.head...] + ring.events[..<ring.head]).reversed()) }
    }

    /// How many events of `kind` were recorded since the log was made (including those dropped by the cap).
    public func count(of kind: VaultTrafficEvent.Kind) -> Int { counter.withLock { $0[kind, default: 0] } }

    /// Removes every kept event and resets the counters.
    public func clear() {
        state.withLock { $0 = Ring() }
        counter.withLock { $0.removeAll() }
    }

    /// Calls `handler` with every later event until the returned token is passed to `removeObserver(_:)`.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (VaultTrafficEvent) -> Void) -> UUID {
        let token = UUID()
        observers.withLock { $0[token] = handler }
        return token
    }

    /// Stops calling the handler registered under `token`.
    public func removeObserver(_ token: UUID) {
        observers.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// Records one event and returns it.
    @discardableResult
    public func record(
        _ kind: VaultTrafficEvent.Kind, path: String, bytes: Int = 0, durationMs: Double = 0, status: Int? = nil,
        detail: String = ""
    ) -> VaultTrafficEvent {
        let event = VaultTrafficEvent(
            at: clock.now(), kind: kind, path: path, bytes: bytes, durationMs: durationMs, status: status,
            detail: detail)
        state.withLock { ring in
            if ring.events.count < capacity {
                ring.events.append(event)
            } else {
                ring.events[ring.head] = event
                ring.head = (ring.head + 1) % capacity
            }
        }
        counter.withLock { $0[kind, default: 0] += 1 }
        if let journal {
            var fields = [
                "kind": kind.rawValue, "bytes": String(bytes), "durationMs": String(format: "%.3f", durationMs),
            ]
            if !path.isEmpty { fields["path"] = path }
            if let status { fields["status"] = String(status) }
            if !detail.isEmpty { fields["detail"] = detail }
            journal.record(.vault, "\(kind.rawValue) \(path)", fields: fields)
        }
        for handler in observers.withLock({ Array($0.values) }) { handler(event) }
        return event
    }
}
