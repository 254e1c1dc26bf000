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
                key: Self.memberKey(request, in: name), body: reply.data, mediaType: reply.response.mediaType,
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

    /// Publishes the values `policy` allows for `snapshot`, in order, as `CachedFetcher.load` does for one
    /// request: the stored group assembled (marked `.cache` with its age), then a fresh group fetched whole and
    /// stored in one transaction. A member that fails fails the attempt: nothing of it is stored or published,
    /// and the stored group stays with its old time (C-OVER-3).
    public func load<Value: Sendable>(
        _ snapshot: Snapshot<Value>, policy: FetchPolicy
    ) -> AsyncThrowingStream<Loaded<Value>, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Loaded<Value>, any Error>.makeStream()
        let task = Task {
            do {
                try await run(snapshot, policy: policy) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: SyncError.wrap(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The stored group of `snapshot` assembled, with its one fetch time and age; `nil` when none is stored
    /// (or what is stored no longer assembles).
    public func stored<Value: Sendable>(_ snapshot: Snapshot<Value>) async throws(SyncError) -> Loaded<Value>? {
        guard let group = try await stored(snapshot.name) else { return nil }
        return try? assembled(snapshot, group, origin: .cache, failure: nil)
    }

    private func run<Value: Sendable>(
        _ snapshot: Snapshot<Value>, policy: FetchPolicy, publish: (Loaded<Value>) -> Void
    ) async throws(SyncError) {
        let cached = policy.cacheRead == .never ? nil : try await stored(snapshot.name)
        var published = false
        if policy.cacheRead == .beforeNetwork, let cached,
            let value = try? assembled(snapshot, cached, origin: .cache, failure: nil)
        {
            publish(value)
            published = true
        }
        let useNetwork: Bool
        switch policy.network {
        case .never: useNetwork = false
        case .always: useNetwork = true
        case .onCacheMiss: useNetwork = !published
        }
        guard useNetwork else {
            if !published { throw .notCached(key: snapshot.name) }
            return
        }
        do {
            let group = try await refresh(snapshot.name, snapshot.members)
            do {
                publish(try assembled(snapshot, group, origin: .network, failure: nil))
            } catch {
                throw SyncError.undecodable(key: snapshot.name, detail: error.description)
            }
        } catch {
            guard let failure = SyncError.httpFailure(in: error) else { throw SyncError.wrap(error) }
            if policy.cacheRead == .onNetworkFailure, let cached,
                let value = try? assembled(snapshot, cached, origin: .cache, failure: failure)
            {
                publish(value)
                return
            }
            if !published { throw .offlineWithoutCache(key: snapshot.name, cause: failure) }
            throw .http(failure)
        }
    }

    private func assembled<Value: Sendable>(
        _ snapshot: Snapshot<Value>, _ group: SnapshotGroup, origin: Loaded<Value>.Origin, failure: HTTPError?
    ) throws(HTTPError) -> Loaded<Value> {
        let members = SnapshotMembers(
            group: snapshot.name, fetchedAt: group.fetchedAt, resources: group.members, client: client)
        let value = try snapshot.assemble(members)
        let age = origin == .network ? 0 : max(0, store.clock.now().timeIntervalSince(group.fetchedAt))
        return Loaded(value: value, origin: origin, fetchedAt: group.fetchedAt, age: age, failure: failure)
    }

    /// The store key of `request` as a member of group `name`.
    ///
    /// Rule: a member is kept apart from the same request read on its own (`CachedFetcher`) or in another
    /// group, so neither replaces the other: a screen reading `/accounts` alone never takes the accounts out of
    /// an overview's stored group (which would then no longer assemble offline).
    public static func memberKey(_ request: any AnyRequest, in name: String) -> String {
        "group:\(name):" + CachedFetcher.key(for: request)
    }

    /// The stored group, if any: what to show offline, with its one fetch time.
    public func stored(_ name: String) async throws(SyncError) -> SnapshotGroup? {
        do { return try await store.group(name) } catch { throw .store(error) }
    }
}
