import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// Reads resources through the offline store under a `FetchPolicy`.
///
/// Rule: a request is a typed `Request<Response>`, and every body, fresh or stored, is decoded by the
/// client's decoder (one set of date rules). A reply is decoded before it is stored, so a body that
/// does not decode never replaces the last good copy (P-TEAM-7). A cached copy is sent back with its validators as a conditional
/// request (`If-None-Match`, `If-Modified-Since`); a 304 confirms the copy and renews its time.
public struct CachedFetcher: Sendable {
    /// The client for the network.
    public let client: Client
    /// The store for the cache.
    public let store: OfflineStore

    /// Creates a fetcher.
    public init(client: Client, store: OfflineStore) {
        self.client = client
        self.store = store
    }

    /// The cache key of `request`.
    public static func key(for request: any AnyRequest) -> String {
        CacheKey.make(
            method: request.method.rawValue, path: request.path, query: request.query.map { ($0.name, $0.value) })
    }

    /// Publishes the values `policy` allows, in order: a cached copy (with its age), then the
    /// network's. The sequence fails with `SyncError` when there is nothing to publish, or when
    /// the network fails after a cached copy was already published (the copy stays the answer).
    public func load<Value: Sendable>(
        _ request: Request<Value>, key: String? = nil, policy: FetchPolicy
    ) -> AsyncThrowingStream<Loaded<Value>, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Loaded<Value>, any Error>.makeStream()
        let task = Task {
            do {
                try await run(request, key: key ?? Self.key(for: request), policy: policy) {
                    continuation.yield($0)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: SyncError.wrap(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The last value `load` would publish: the freshest answer the policy allows.
    public func loadLatest<Value: Sendable>(
        _ request: Request<Value>, key: String? = nil, policy: FetchPolicy
    ) async throws(SyncError) -> Loaded<Value> {
        var last: Loaded<Value>?
        do {
            try await run(request, key: key ?? Self.key(for: request), policy: policy) { last = $0 }
        } catch {
            guard let last else { throw SyncError.wrap(error) }
            return last
        }
        guard let last else { throw .notCached(key: key ?? Self.key(for: request)) }
        return last
    }

    private func run<Value: Sendable>(
        _ request: Request<Value>, key: String, policy: FetchPolicy, publish: (Loaded<Value>) -> Void
    ) async throws(SyncError) {
        let cached: CachedResource?
        do {
            cached = policy.cacheRead == .never && policy.network != .never ? nil : try await store.resource(key)
        } catch {
            throw .store(error)
        }
        var published = false
        if policy.cacheRead == .beforeNetwork, let cached {
            publish(try loaded(cached, request, origin: .cache, failure: nil, key: key))
            published = true
        }
        let useNetwork: Bool
        switch policy.network {
        case .never: useNetwork = false
        case .always: useNetwork = true
        case .onCacheMiss: useNetwork = !published
        }
        guard useNetwork else {
            if !published { throw .notCached(key: key) }
            return
        }
        var conditional = request
        if let cached, policy.cacheRead != .never {
            if let etag = cached.etag { conditional.headers["If-None-Match"] = etag }
            if let date = cached.lastModified { conditional.headers["If-Modified-Since"] = date }
        }
        do {
            let reply = try await client.reply(conditional)
            if let failure = reply.failure { throw failure }
            let (data, response) = (reply.body, reply.response)
            let value: Value
            do { value = try reply.value() } catch { throw SyncError.undecodable(key: key, detail: error.description) }
            let now = store.clock.now()
            try await store.put(
                CachedResource(
                    key: key, body: data, mediaType: response.mediaType, etag: response.headers["ETag"],
                    lastModified: response.headers["Last-Modified"], fetchedAt: now))
            publish(Loaded(value: value, origin: .network, fetchedAt: now, age: 0, failure: nil))
        } catch let error as HTTPError {
            if error.statusCode == 304, let cached {
                let now = store.clock.now()
                do {
                    try await store.write { transaction throws(StoreError) in try transaction.touch(key, at: now) }
                } catch {
                    throw .store(error)
                }
                var confirmed = cached
                confirmed.fetchedAt = now
                publish(try loaded(confirmed, request, origin: .notModified, failure: nil, key: key))
                return
            }
            if policy.cacheRead == .onNetworkFailure, let cached {
                publish(try loaded(cached, request, origin: .cache, failure: error, key: key))
                return
            }
            if cached == nil || policy.cacheRead == .never { throw .offlineWithoutCache(key: key, cause: error) }
            throw .http(error)
        } catch {
            throw SyncError.wrap(error)
        }
    }

    private func loaded<Value: Sendable>(
        _ resource: CachedResource, _ request: Request<Value>, origin: Loaded<Value>.Origin, failure: HTTPError?,
        key: String
    ) throws(SyncError) -> Loaded<Value> {
        var headers = HTTPHeaders()
        if let mediaType = resource.mediaType { headers["Content-Type"] = mediaType }
        do {
            let value = try client.decode(
                request, body: resource.body, response: HTTPResponse(status: 200, headers: headers))
            return Loaded(
                value: value, origin: origin, fetchedAt: resource.fetchedAt,
                age: resource.age(at: store.clock.now()), failure: failure)
        } catch {
            throw .undecodable(key: key, detail: "\(error)")
        }
    }
}
