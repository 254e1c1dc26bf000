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

    private struct Stored: Codable {
        let picks: [String: String]
        let removals: [String: String]
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
        guard let stored = try? JSONDecoder().decode(Stored.self, from: data) else { throw .unreadable }
        func dates(_ texts: [String: String]) throws(ScheduleStorageError) -> [String: Date] {
            var result: [String: Date] = [:]
            for (id, text) in texts {
                guard let date = try? ScheduleTime.read(text) else { throw .unreadable }
                result[id] = date
            }
            return result
        }
        return TimedSet(members: try dates(stored.picks), removals: try dates(stored.removals))
    }

    /// Saves `state` in one transaction.
    public func save(_ state: TimedSet) async throws(ScheduleStorageError) {
        let stored = Stored(
            picks: state.members.compactMapValues { try? ScheduleTime.write($0) },
            removals: state.removals.compactMapValues { try? ScheduleTime.write($0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(stored) else { throw .unreadable }
        do {
            try await store.write { transaction throws(StoreError) in
                try transaction.putDocument(Self.documentName, body: data)
            }
        } catch {
            throw .store(error.description)
        }
    }
}
