import CompanionCore
import CompanionHTTP
import Foundation

/// The cookie the phone hands to the watch (O-WATCH-8): the `Cookie` header built from the web-view
/// cookies that apply to `<apiBase>/v1`, for one server, stamped with when the phone built it.
///
/// Rule: the value is a secret. `description` never shows it.
public struct WatchCookieSync: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The server the cookie belongs to (its API base).
    public var serverURL: URL
    /// The `Cookie` header value, such as `ap_session=…`.
    public var cookieHeader: String
    /// When the phone built it.
    public var syncedAt: Date

    /// Creates a synced copy.
    public init(serverURL: URL, cookieHeader: String, syncedAt: Date) {
        self.serverURL = serverURL
        self.cookieHeader = cookieHeader
        self.syncedAt = syncedAt
    }

    /// The wire form the phone sends: `{serverURL, cookieHeader, syncedAt}` (`syncedAt` in Unix seconds).
    enum CodingKeys: String, CodingKey {
        case serverURL, cookieHeader, syncedAt
    }

    /// Reads the wire form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        serverURL = try container.decode(URL.self, forKey: .serverURL)
        cookieHeader = try container.decode(String.self, forKey: .cookieHeader)
        syncedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .syncedAt))
    }

    /// Writes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(serverURL, forKey: .serverURL)
        try container.encode(cookieHeader, forKey: .cookieHeader)
        try container.encode(syncedAt.timeIntervalSince1970, forKey: .syncedAt)
    }

    /// The server and the time, without the cookie.
    public var description: String { "cookie for \(serverURL.absoluteString) synced at \(syncedAt)" }

    /// The phone's side (O-WATCH-8): the `Cookie` header for `apiBase` from the web view's cookies,
    /// keeping only those whose domain, path and `Secure` flag apply to `<apiBase>/v1`.
    public static func cookieHeader(for apiBase: URL, from cookies: [WebViewCookie]) -> String? {
        let target = apiBase.appendingPathComponent("v1")
        guard let host = target.host?.lowercased() else { return nil }
        let path = target.path.isEmpty ? "/" : target.path
        let matching = cookies.filter { cookie in
            let domain = cookie.domain.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
            let domainApplies = host == domain || (!cookie.hostOnly && host.hasSuffix("." + domain))
            let cookiePath = cookie.path.isEmpty ? "/" : cookie.path
            let pathApplies =
                path == cookiePath
                || (path.hasPrefix(cookiePath)
                    && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")))
            let schemeApplies = !cookie.secure || target.scheme == "https"
            return domainApplies && pathApplies && schemeApplies
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}

/// A cookie as a web view's cookie store holds it: what the phone reads to build the watch's header.
public struct WebViewCookie: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value (a secret).
    public var value: String
    /// The domain it was set for.
    public var domain: String
    /// Whether it applies to that exact host only (no `Domain` attribute).
    public var hostOnly: Bool
    /// The path it applies below.
    public var path: String
    /// Whether it goes only over https.
    public var secure: Bool

    /// Creates a cookie.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/", secure: Bool = false
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.secure = secure
    }
}

/// Where the watch keeps the cookie synced from the phone (O-WATCH-8): one copy, the newest.
///
/// Rules: a copy older than (or as old as) the one kept is ignored, so a late delivery of an old sync
/// never replaces a newer cookie; `clear()` forgets it (the phone signed out). A watch app persists the
/// kept copy in its Keychain through `persist`.
public final class WatchCookieKeeper: Sendable {
    private let kept: Locked<WatchCookieSync?>
    private let refusedAt: Locked<Date?> = Locked(nil)
    private let persist: @Sendable (WatchCookieSync?) -> Void

    /// Creates a keeper holding `initial` (as read from the Keychain), saving changes through `persist`.
    public init(_ initial: WatchCookieSync? = nil, persist: @escaping @Sendable (WatchCookieSync?) -> Void = { _ in }) {
        kept = Locked(initial)
        self.persist = persist
    }

    /// The kept copy.
    public var current: WatchCookieSync? { kept.withLock { $0 } }

    /// The kept copy unless the server refused it (O-WATCH-9): what a request may carry. A refused cookie is
    /// not sent again until a newer one arrives.
    public var usable: WatchCookieSync? {
        guard let current, refusedAt.withLock({ $0 }) != current.syncedAt else { return nil }
        return current
    }

    /// The server refused the kept copy (a 401 or 403): it is not sent again until a newer one arrives.
    public func markRefused() {
        let synced = current?.syncedAt
        refusedAt.withLock { $0 = synced }
    }

    /// Keeps `sync` if it is newer than the kept copy; returns whether it was kept.
    @discardableResult
    public func receive(_ sync: WatchCookieSync) -> Bool {
        let accepted = kept.withLock { kept -> Bool in
            if let kept, kept.syncedAt >= sync.syncedAt { return false }
            kept = sync
            return true
        }
        if accepted { persist(sync) }
        return accepted
    }

    /// Forgets the kept copy.
    public func clear() {
        kept.withLock { $0 = nil }
        persist(nil)
    }
}

/// The headers of every watch request, and the slice-key retry (O-WATCH-7, O-WATCH-10).
///
/// Rules:
/// - every request carries `X-Omnigent-Client: watchos` and `Cache-Control: no-cache`;
/// - the synced `Cookie` goes only to the origin of the server it was synced for (O-AUTH-15), and is
///   registered with the journal as a secret so no log shows it;
/// - with a slice key (a Databricks API base), requests carry `X-Databricks-Omnigent-Slice-Key`; a GET
///   (a list, a detail or a stream) answered 400 with `error.code == "wrong_replica"` is sent once more
///   without it. A POST is never sent twice: its 400 comes back as it is.
public struct WatchRequestHeaders: Middleware {
    /// The client header's value.
    public static let clientName = "watchos"
    /// The slice-key header Omnigent's router reads on a Databricks deployment.
    public static let sliceKeyHeader = "X-Databricks-Omnigent-Slice-Key"
    /// The error code of a request that reached the wrong replica.
    public static let wrongReplica = "wrong_replica"

    /// Where the synced cookie is kept.
    public let cookies: WatchCookieKeeper
    /// The slice key (`host_id`), or nil off Databricks.
    public let sliceKey: String?
    /// The journal the cookie is registered with as a secret.
    public let journal: Journal

    /// Creates the middleware.
    public init(cookies: WatchCookieKeeper, sliceKey: String?, journal: Journal) {
        self.cookies = cookies
        self.sliceKey = sliceKey
        self.journal = journal
    }

    /// Adds the headers, sends, and retries a misrouted GET once without the slice key.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        var sent = request
        sent.headers["X-Omnigent-Client"] = Self.clientName
        sent.headers["Cache-Control"] = "no-cache"
        if let synced = cookies.usable, Self.sameOrigin(synced.serverURL, request.url) {
            journal.register(secret: synced.cookieHeader)
            sent.headers["Cookie"] = synced.cookieHeader
        }
        guard let sliceKey else { return try await next(sent) }
        var keyed = sent
        keyed.headers[Self.sliceKeyHeader] = sliceKey
        let (response, body) = try await next(keyed)
        guard response.status == 400, request.method == .get else { return (response, body) }
        let data = try await body.collect(upTo: 1024 * 1024, url: request.url)
        guard ServerErrorEnvelope.parse(data, mediaType: response.mediaType)?.code == Self.wrongReplica else {
            return (response, HTTPBody(data))
        }
        return try await next(sent)
    }

    /// Whether two URLs share scheme, host and port.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }

    /// Whether `apiBase` is a Databricks API base (`…/api/2.0/omnigent`), where the slice key applies.
    public static func isDatabricksAPIBase(_ apiBase: URL) -> Bool {
        apiBase.path.hasSuffix("/api/2.0/omnigent") || apiBase.path.hasSuffix("/api/2.0/omnigent/")
    }
}
