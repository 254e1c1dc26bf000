#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One thing the kit did, as a debug panel or `companion journal` shows it.
///
/// Events are plain values holding only redacted text: by the time an event exists, secrets are gone.
public struct JournalEvent: Sendable, Hashable, Codable, Identifiable {
    /// What part of the kit an event comes from.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A request left the client.
        case request
        /// A response arrived.
        case response
        /// Something failed.
        case error
        /// A web-bridge message crossed between page and app.
        case bridge
        /// The vault reader fetched, verified or decrypted something.
        case vault
        /// The offline store read or wrote.
        case storage
        /// A credential or key was stored, used or removed (never its value).
        case keys
        /// A sign-in step.
        case auth
        /// Sync, outbox replay or a live update.
        case sync
        /// A deep link or managed configuration decision.
        case link
        /// Anything else worth a line.
        case note
    }

    /// Position in the journal, increasing by one per event.
    public let id: UInt64
    /// When it happened, by the journal's clock.
    public let date: Date
    /// Which part of the kit it comes from.
    public let kind: Kind
    /// One line a person can read, such as `GET https://host/v1/sessions`.
    public let message: String
    /// Details such as `status`, `durationMs`, `bytes`, redacted headers.
    public let fields: [String: String]

    /// Creates an event; the journal calls this after redacting.
    public init(id: UInt64, date: Date, kind: Kind, message: String, fields: [String: String] = [:]) {
        self.id = id
        self.date = date
        self.kind = kind
        self.message = message
        self.fields = fields
    }
}

/// A bounded, append-only event log that redacts before it stores.
///
/// Rules:
/// - It keeps the newest `capacity` events and drops the oldest, so a long session cannot grow memory.
/// - Every message and field passes through the `Redactor` and then through the registered-secret
///   scrubber, so a secret that slipped into free text (an error body echoing a token) is still masked.
/// - It is thread-safe (`Locked`); writers never suspend.
/// - An exchange recorded with `record(_:deferred:)` (the HTTP journal middleware's) is described and redacted
///   when the journal is first read, not on the request's path: no reader, no redaction work. Redaction is
///   deferred, never skipped: every way out of the journal (`events`, `newestFirst`, `exportJSONLines`) redacts
///   what is still waiting first, with the same rules as `record`, and `forget(secret:)` redacts what is waiting
///   before the secret stops being masked, so an event recorded while a secret was registered never shows it.
public final class Journal: Sendable {
    /// An event recorded with `record(_:deferred:)`: its text is made and redacted only when the journal is read.
    private struct Pending {
        let id: UInt64
        let date: Date
        let kind: JournalEvent.Kind
        let describe: @Sendable (Redactor) -> (message: String, fields: [String: String])
    }

    /// One kept event: redacted already, or waiting for its first reader.
    private enum Entry {
        case clean(JournalEvent)
        case pending(Pending)
    }

    private struct State {
        var events: [Entry] = []
        var head = 0
        var nextID: UInt64 = 1
        var secrets: Set<String> = []
    }

    /// How many events are kept.
    public let capacity: Int
    /// The rules used to mask secrets.
    public let redactor: Redactor
    private let clock: any WallClock
    private let state = Locked(State())

    /// Creates an empty journal keeping at most `capacity` events.
    public init(capacity: Int = 2_000, redactor: Redactor = Redactor(), clock: any WallClock = SystemWallClock()) {
        self.capacity = max(1, capacity)
        self.redactor = redactor
        self.clock = clock
    }

    /// Registers a secret value (a token, password or key in text form) so that it is masked wherever
    /// it appears in later events. Values shorter than 6 characters are ignored: masking them would
    /// garble ordinary text, and no credential the kit handles is that short.
    public func register(secret: String) {
        guard secret.count >= 6 else { return }
        state.withLock { _ = $0.secrets.insert(secret) }
    }

    /// Stops masking `secret` (after it was revoked and forgotten).
    public func forget(secret: String) {
        state.withLock { state in
            // What was recorded while the secret was registered is redacted now, while it still is.
            redactPending(&state)
            _ = state.secrets.remove(secret)
        }
    }

    /// Masks every registered secret and every secret-shaped value in `text`.
    public func scrub(_ text: String) -> String {
        let secrets = state.withLock { $0.secrets }
        return scrub(text, secrets: Self.longestFirst(secrets))
    }

    private func scrub(_ text: String, secrets: [String]) -> String {
        var result = redactor.scrubShapes(text)
        for secret in secrets {
            result = Redactor.text(result, replacing: secret, with: Redactor.mask)
        }
        return result
    }

    private static func longestFirst(_ secrets: Set<String>) -> [String] {
        secrets.sorted(by: { $0.count > $1.count })
    }

    /// The event as kept: message and fields scrubbed; a field named like a secret header is masked whole.
    private func clean(
        id: UInt64, date: Date, kind: JournalEvent.Kind, message: String, fields: [String: String], secrets: [String]
    ) -> JournalEvent {
        var cleanFields: [String: String] = [:]
        for (name, value) in fields {
            // Header rules include the field rules, and a field is often a header (`Authorization`).
            cleanFields[name] = redactor.isSecretHeader(name) ? Redactor.mask : scrub(value, secrets: secrets)
        }
        return JournalEvent(
            id: id, date: date, kind: kind, message: scrub(message, secrets: secrets), fields: cleanFields)
    }

    /// Appends an event after scrubbing its message and fields, and returns what was stored.
    @discardableResult
    public func record(_ kind: JournalEvent.Kind, _ message: String, fields: [String: String] = [:]) -> JournalEvent {
        let date = clock.now()
        let secrets = Self.longestFirst(state.withLock { $0.secrets })
        let unnumbered = clean(id: 0, date: date, kind: kind, message: message, fields: fields, secrets: secrets)
        return state.withLock { state in
            let event = JournalEvent(
                id: state.nextID, date: date, kind: kind, message: unnumbered.message, fields: unnumbered.fields)
            append(.clean(event), to: &state)
            return event
        }
    }

    /// Appends an event whose message and fields `describe` makes from the journal's redactor when the journal is
    /// first read (or a secret is forgotten), then scrubs exactly as `record` does. For events on a hot path whose
    /// text costs more to make than to keep the values it is made from (an exchange's URL and headers).
    ///
    /// `describe` must only read the values it captured: it runs later, on whichever thread reads the journal.
    public func record(
        _ kind: JournalEvent.Kind,
        deferred describe: @escaping @Sendable (Redactor) -> (message: String, fields: [String: String])
    ) {
        let date = clock.now()
        state.withLock { state in
            append(.pending(Pending(id: state.nextID, date: date, kind: kind, describe: describe)), to: &state)
        }
    }

    private func append(_ entry: Entry, to state: inout State) {
        state.nextID += 1
        if state.events.count < capacity {
            state.events.append(entry)
        } else {
            state.events[state.head] = entry
            state.head = (state.head + 1) % capacity
        }
    }

    /// Describes and scrubs every event still waiting, in place.
    private func redactPending(_ state: inout State) {
        var secrets: [String]?
        for index in state.events.indices {
            guard case .pending(let pending) = state.events[index] else { continue }
            let known = secrets ?? Self.longestFirst(state.secrets)
            secrets = known
            let (message, fields) = pending.describe(redactor)
            state.events[index] = .clean(
                clean(
                    id: pending.id, date: pending.date, kind: pending.kind, message: message, fields: fields,
                    secrets: known))
        }
    }

    /// All kept events, oldest first.
    public var events: [JournalEvent] {
        state.withLock { state in
            redactPending(&state)
            let ordered = state.events[state.head...] + state.events[..<state.head]
            // Every entry is clean now: `redactPending` just replaced the waiting ones.
            return ordered.compactMap { entry in
                guard case .clean(let event) = entry else { return nil }
                return event
            }
        }
    }

    /// The newest events first, at most `limit`, optionally of one kind.
    public func newestFirst(limit: Int = .max, kind: JournalEvent.Kind? = nil) -> [JournalEvent] {
        Array(events.reversed().lazy.filter { kind == nil || $0.kind == kind }.prefix(limit))
    }

    /// Removes every event (registered secrets stay registered).
    public func clear() {
        state.withLock { state in
            state.events.removeAll()
            state.head = 0
        }
    }

    /// The events as JSON Lines, oldest first, for `companion journal` and bug reports. Dates are ISO 8601
    /// UTC with milliseconds, so events within one second keep their spacing.
    public func exportJSONLines() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .companionISO8601
        var output = Data()
        for event in events {
            if let line = try? encoder.encode(event) {
                output.append(line)
                output.append(0x0A)
            }
        }
        return output
    }

    /// Reads events written by `exportJSONLines()`; lines that do not decode are skipped and counted.
    public static func importJSONLines(_ data: Data) -> (events: [JournalEvent], skipped: Int) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .companionFlexible
        var events: [JournalEvent] = []
        var skipped = 0
        for line in data.split(separator: 0x0A) where !line.isEmpty {
            if let event = try? decoder.decode(JournalEvent.self, from: Data(line)) {
                events.append(event)
            } else {
                skipped += 1
            }
        }
        return (events, skipped)
    }
}
