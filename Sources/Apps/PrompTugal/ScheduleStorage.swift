import CompanionCore
import CompanionStore
import CompanionSync
import Foundation

/// Where the schedule's picks and removal records are kept between launches.
public protocol ScheduleStorage: Sendable {
    /// The stored state, or `nil` when nothing was stored yet.
    func load() async throws(ScheduleStorageError) -> TimedSet?
    /// Replaces the stored state.
    func save(_ state: TimedSet) async throws(ScheduleStorageError)
}

/// Why the schedule could not be loaded or saved.
public enum ScheduleStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store failed (its sentence).
    case store(String)
    /// The stored state does not decode; it is left as it is.
    case unreadable

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .store(let reason): return "The schedule could not be saved or read: \(reason)"
        case .unreadable:
            return "The saved schedule could not be read; it was left untouched. Pick again or restore a backup."
        }
    }
}

/// The schedule in the app's offline store, as one document (user data: clearing the cache keeps it).
public struct StoreScheduleStorage: ScheduleStorage {
    /// The document name.
    public static let documentName = "promptugal.schedule"
    /// The store.
    public let store: OfflineStore

    /// Keeps the schedule in `store`.
    public init(store: OfflineStore) { self.store = store }

    /// The stored form: `{"picks": {id: time}, "removals": {id: time}}`, times as the wire writes them.
    static func encode(_ state: TimedSet) -> Data {
        func times(_ dates: [String: Date]) -> JSONValue {
            .object(dates.compactMapValues { date in (try? ScheduleTime.write(date)).map(JSONValue.string) })
        }
        return Data(
            JSONValue.object(["picks": times(state.members), "removals": times(state.removals)]).jsonString().utf8)
    }

    /// The state in the stored form, or `unreadable`.
    static func decode(_ data: Data) throws(ScheduleStorageError) -> TimedSet {
        guard let value = JSONValue(data: data), let picks = value["picks"]?.objectValue,
            let removals = value["removals"]?.objectValue
        else { throw .unreadable }
        func dates(_ texts: [String: JSONValue]) throws(ScheduleStorageError) -> [String: Date] {
            var result: [String: Date] = [:]
            for (id, text) in texts {
                guard let text = text.stringValue, let date = try? ScheduleTime.read(text) else { throw .unreadable }
                result[id] = date
            }
            return result
        }
        return TimedSet(members: try dates(picks), removals: try dates(removals))
    }

    /// The stored state.
    public func load() async throws(ScheduleStorageError) -> TimedSet? {
        let data: Data?
        do {
            data = try await store.read { transaction throws(StoreError) in
                try transaction.document(Self.documentName)
            }
        } catch {
            throw .store(error.description)
        }
        guard let data else { return nil }
        return try Self.decode(data)
    }

    /// Saves `state` in one transaction.
    public func save(_ state: TimedSet) async throws(ScheduleStorageError) {
        let data = Self.encode(state)
        do {
            try await store.write { transaction throws(StoreError) in
                try transaction.putDocument(Self.documentName, body: data)
            }
        } catch {
            throw .store(error.description)
        }
    }
}
