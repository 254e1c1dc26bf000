#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A cached reply: the body of a request together with what is needed to ask again cheaply.
///
/// Rule: the key is the request (method, path and query), the validators (`etag`,
/// `lastModified`) are sent back as `If-None-Match` / `If-Modified-Since`, and the fetch time
/// says how old the copy is. A resource that came in a snapshot group names the group.
public struct CachedResource: Sendable, Hashable {
    /// The request key (see `CacheKey`).
    public var key: String
    /// The body as received.
    public var body: Data
    /// The media type, if the server sent one.
    public var mediaType: String?
    /// The `ETag` the server sent.
    public var etag: String?
    /// The `Last-Modified` the server sent.
    public var lastModified: String?
    /// When the body was fetched (or last confirmed by a 304).
    public var fetchedAt: Date
    /// The snapshot group it came in, if any.
    public var group: String?
    /// Its name inside that group.
    public var member: String?

    /// Creates a resource.
    public init(
        key: String, body: Data, mediaType: String? = nil, etag: String? = nil, lastModified: String? = nil,
        fetchedAt: Date, group: String? = nil, member: String? = nil
    ) {
        self.key = key
        self.body = body
        self.mediaType = mediaType
        self.etag = etag
        self.lastModified = lastModified
        self.fetchedAt = fetchedAt
        self.group = group
        self.member = member
    }

    /// How old the copy is at `now` (never negative).
    public func age(at now: Date) -> TimeInterval { max(0, now.timeIntervalSince(fetchedAt)) }
}

/// How cache keys are made from requests.
public enum CacheKey {
    /// `GET /v1/sessions?limit=20&order=desc`: the method, the path and the query items sorted by
    /// name, so the same request always finds the same entry.
    public static func make(method: String = "GET", path: String, query: [(String, String?)] = []) -> String {
        var pathPart = path
        var items = query
        if let mark = path.firstIndex(of: "?") {
            pathPart = String(path[..<mark])
            for pair in path[path.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                items.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : nil))
            }
        }
        let sorted = items.filter { $0.1 != nil }.sorted { ($0.0, $0.1 ?? "") < ($1.0, $1.1 ?? "") }
        let query = sorted.map { "\($0.0)=\($0.1 ?? "")" }.joined(separator: "&")
        return "\(method.uppercased()) \(pathPart)" + (query.isEmpty ? "" : "?\(query)")
    }
}

/// A snapshot group as stored: every member from one fetch, with that fetch's single time.
public struct SnapshotGroup: Sendable, Hashable {
    /// The group's name.
    public var name: String
    /// When the whole group was fetched.
    public var fetchedAt: Date
    /// How many times the group has been written (1 for the first).
    public var generation: Int
    /// The members by their names.
    public var members: [String: CachedResource]
}
