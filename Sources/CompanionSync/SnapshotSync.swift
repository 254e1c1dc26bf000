import CompanionHTTP
import CompanionStore
import Foundation

/// Fetches a snapshot group and stores it whole.
///
/// Rule: all or nothing. The members are typed requests, fetched together (`Client.fetchGroup`, one
/// timestamp, each reply checked to decode with the client's decoder) and written in one transaction; if any member fails, nothing is written and the previous
/// complete group stays with its old time (C-OVER-3, C-OFF-1).
public struct SnapshotSync: Sendable {
    /// The client.
    public let client: Client
    /// The store.
    public let store: OfflineStore

    /// Creates a snapshot sync.
    public init(client: Client, store: OfflineStore) {
        self.client = client
        self.store = store
    }

    /// Fetches `requests` as group `name` and stores them; returns the stored group.
    public func refresh(_ name: String, _ requests: [String: any AnyRequest]) async throws(SyncError) -> SnapshotGroup {
        let fetched: FetchGroup
        do { fetched = try await client.fetchGroup(requests) } catch { throw .http(error) }
        var members: [String: CachedResource] = [:]
        for (member, reply) in fetched.members {
            guard let request = requests[member] else { continue }
            members[member] = CachedResource(
                key: CachedFetcher.key(for: request), body: reply.data, mediaType: reply.response.mediaType,
                etag: reply.response.headers["ETag"], lastModified: reply.response.headers["Last-Modified"],
                fetchedAt: fetched.fetchedAt)
        }
        do {
            let stored = members
            return try await store.write { transaction throws(StoreError) in
                try transaction.writeGroup(name, fetchedAt: fetched.fetchedAt, members: stored)
                guard let group = try transaction.group(name) else { throw .notFound("group \(name)") }
                return group
            }
        } catch {
            throw .store(error)
        }
    }

    /// The stored group, if any: what to show offline, with its one fetch time.
    public func stored(_ name: String) async throws(SyncError) -> SnapshotGroup? {
        do { return try await store.group(name) } catch { throw .store(error) }
    }
}
