#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The part of a store one reader depends on: cached resources, snapshot groups and lists, by key.
///
/// Rule: a committed change touches a region when it wrote, extended or removed one of its keys, or cleared the
/// store; an invalidation of one of its keys says the region must be read from the server again. A screen that
/// observes a region (`OfflineStore.observe`) is told about both, and about nothing else.
public struct StoreRegion: Sendable, Hashable {
    /// The cached resources' keys.
    public var resources: Set<String>
    /// The snapshot groups' names.
    public var groups: Set<String>
    /// The lists' keys.
    public var lists: Set<String>

    /// A region of the given keys.
    public init(resources: Set<String> = [], groups: Set<String> = [], lists: Set<String> = []) {
        self.resources = resources
        self.groups = groups
        self.lists = lists
    }

    /// One cached resource.
    public static func resource(_ key: String) -> StoreRegion { StoreRegion(resources: [key]) }
    /// One snapshot group.
    public static func group(_ name: String) -> StoreRegion { StoreRegion(groups: [name]) }
    /// One list.
    public static func list(_ key: String) -> StoreRegion { StoreRegion(lists: [key]) }

    /// Whether `change` wrote data of this region (the store was cleared, or one of its keys was written).
    public func isWritten(by change: StoreChange) -> Bool {
        switch change {
        case .resource(let key): return resources.contains(key)
        case .group(let name): return groups.contains(name)
        case .list(let key): return lists.contains(key)
        case .cleared: return true
        case .draft, .outbox, .document, .invalidated: return false
        }
    }

    /// Whether `change` invalidated one of this region's keys.
    public func isInvalidated(by change: StoreChange) -> Bool {
        guard case .invalidated(let key) = change else { return false }
        return resources.contains(key) || groups.contains(key) || lists.contains(key)
    }
}

/// What an observation of a region publishes.
public enum RegionEvent: Sendable, Hashable {
    /// The region's data was written (read it again from the store).
    case written
    /// The region's data is out of date (read it again from the server).
    case invalidated
}

extension StoreTransaction {
    /// Marks what is stored under `key` (a resource, a group or a list) as out of date, without changing it:
    /// every observer of that key is told to read it from the server again. For an event that says something
    /// changed without carrying the new data.
    public func invalidate(_ key: String) {
        note(.invalidated(key))
    }
}

extension OfflineStore {
    /// Every committed change that touches `region`, as it happens: `.written` after a write of its data (read
    /// it again from the store), `.invalidated` after an invalidation of one of its keys. The subscription starts
    /// when this returns, so a write committed afterwards is never missed. Several changes committed while the
    /// observer is busy are published in order.
    public func observe(_ region: StoreRegion) -> AsyncStream<RegionEvent> {
        let changes = changes()
        let (stream, continuation) = AsyncStream<RegionEvent>.makeStream()
        let task = Task {
            for await change in changes {
                if region.isInvalidated(by: change) {
                    continuation.yield(.invalidated)
                } else if region.isWritten(by: change) {
                    continuation.yield(.written)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
