import CompanionHTTP
import CompanionStore
import Foundation

/// What a list screen shows while a recent list opens.
public enum RecentListUpdate: Sendable {
    /// The stored rows, shown at once with no spinner.
    case showing(ListState, [ListItem])
    /// Nothing is stored (never read, or evicted): show progress while the list is read.
    case loading
    /// The rows as just read.
    case refreshed(ListState, [ListItem])
}

/// The lists a person left most recently (Mainworthy keeps 40): shown at once when reopened and
/// read again in the background; older ones are forgotten and read again with a progress state.
///
/// Rule: a stored list is read again only if the server's revision rose since it was read
/// (M-LIST-1), or always when the caller does not know the revision; a pull reads it now
/// whatever is cached (M-LIST-3); leaving a list past the capacity forgets the one left longest
/// ago (M-LIST-2). Searches are not kept here (M-FIND-5): the caller simply never leaves one.
public struct RecentLists: Sendable {
    /// The store.
    public let store: OfflineStore
    /// How many left lists are kept.
    public let capacity: Int

    /// Creates recent lists over `store` keeping `capacity` lists.
    public init(store: OfflineStore, capacity: Int = 40) {
        self.store = store
        self.capacity = capacity
    }

    /// Opens `list`: the stored rows first (or `.loading`), then, if a read is due, the fresh rows.
    /// `currentRevision` is the revision the app knows now (from a stream event or its own write).
    public func open(_ list: PagedList, currentRevision: String? = nil, pull: Bool = false, limit: Int = 200)
        -> AsyncThrowingStream<RecentListUpdate, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream<RecentListUpdate, any Error>.makeStream()
        let store = store
        let task = Task {
            do {
                let stored = try await store.list(list.key, limit: limit)
                if let (state, items) = stored {
                    continuation.yield(.showing(state, items))
                    let unchanged = currentRevision != nil && state.revision == currentRevision
                    if unchanged && !pull {
                        continuation.finish()
                        return
                    }
                } else {
                    continuation.yield(.loading)
                }
                try await list.refresh()
                if let (state, items) = try await store.list(list.key, limit: limit) {
                    continuation.yield(.refreshed(state, items))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: SyncError.wrap(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Records that the person left `key`; returns the keys forgotten to stay within capacity.
    @discardableResult
    public func leave(_ key: String) async throws(StoreError) -> [String] {
        let capacity = capacity
        return try await store.write { transaction throws(StoreError) in
            try transaction.leaveList(key, capacity: capacity)
        }
    }
}
