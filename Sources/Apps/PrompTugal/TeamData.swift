import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import Foundation

/// The team's public data, read without keys and kept for offline use.
///
/// Rules:
/// - Every request is a plain GET through the app's one network, with no credential of any kind: no
///   Authorization, no cookie (the transport keeps none), no vault or OpenRouter key (P-TEAM-1).
/// - A good reply is decoded first and then cached on disk with its fetch time, keyed by its full URL
///   (P-TEAM-5, P-OPEN-18).
/// - When the site fails, the cached copy is the answer with its age: `offline` when the site could not be reached
///   (no connection, timeout), `stale` when it answered with an error (5xx). With nothing cached the answer is the
///   failed state with an offline sentence, never an empty success; cached copies survive a relaunch (P-TEAM-6).
/// - Screens get the kit's `ScreenState`.
/// - A reply that does not decode is an error and never replaces the last good copy, which is then shown as stale
///   (P-TEAM-7).
/// - Meetings and agents files are found in `llms.txt` (P-TEAM-4).
public struct TeamData: Sendable {
    /// Where the sites are.
    public let bases: TeamDataBases
    /// The one network.
    public let network: PrompTugalNetwork
    /// The offline store holding the cached copies.
    public let store: OfflineStore

    /// Reads from `bases` through `network`, caching in `store`.
    public init(bases: TeamDataBases, network: PrompTugalNetwork, store: OfflineStore) {
        self.bases = bases
        self.network = network
        self.store = store
    }

    /// The cache key of `endpoint`: its full URL.
    public func cacheKey(_ endpoint: TeamEndpoint) -> String { "team:" + endpoint.url(on: bases).absoluteString }

    /// Reads `endpoint` and decodes it with `decode`; `offline` answers from the cache only.
    public func load<Value: Sendable & Equatable>(
        _ endpoint: TeamEndpoint, offline: Bool = false, decode: @escaping @Sendable (Data) throws -> Value
    ) async -> ScreenState<Value> {
        let base = endpoint.site == .team ? bases.team : bases.news
        let fetcher = CachedFetcher(client: network.client(for: base), store: store)
        let key = cacheKey(endpoint)
        do {
            let loaded = try await Self.latest(
                fetcher, endpoint.path, key: key, policy: offline ? .offline : .networkElseCache, decode: decode)
            guard loaded.isStale || offline else { return .content(loaded.value, fetchedAt: loaded.fetchedAt) }
            guard let failure = loaded.failure else {
                return .offline(loaded.value, age: loaded.age, reason: "Shown from the copy saved on this device.")
            }
            let problem = "PrompTugal could not refresh \(endpoint.name): \(Self.reason(failure))."
            return failure.isConnectivity
                ? .offline(loaded.value, age: loaded.age, reason: problem)
                : .stale(loaded.value, age: loaded.age, problem: problem)
        } catch {
            let problem = Self.sentence(error, endpoint: endpoint)
            if !offline, case .undecodable = error,
                let cached = try? await Self.latest(fetcher, endpoint.path, key: key, policy: .offline, decode: decode)
            {
                return .stale(cached.value, age: cached.age, problem: problem)
            }
            return .failed(reason: problem, signInRequired: false)
        }
    }

    /// The freshest answer `policy` allows for the GET of `path`, decoded by `decode`.
    static func latest<Value: Sendable>(
        _ fetcher: CachedFetcher, _ path: String, key: String, policy: FetchPolicy,
        decode: @escaping @Sendable (Data) throws -> Value
    ) async throws(SyncError) -> Loaded<Value> {
        let request = Request<Value>(method: .get, path: path) { data, _, _ throws(HTTPError) in
            do {
                return try decode(data)
            } catch {
                throw .undecodable(
                    HTTPError.DecodingFailure(type: "\(Value.self)", path: "", detail: "\(error)", url: path))
            }
        }
        return try await fetcher.loadLatest(request, key: key, policy: policy)
    }

    /// Reads `endpoint` as JSON of type `Value`.
    public func load<Value: Decodable & Sendable & Equatable>(
        _ endpoint: TeamEndpoint, as type: Value.Type, offline: Bool = false
    ) async -> ScreenState<Value> {
        await load(endpoint, offline: offline) { data in try JSONDecoder().decode(Value.self, from: data) }
    }

    /// Reads `endpoint` as any JSON.
    public func loadJSON(_ endpoint: TeamEndpoint, offline: Bool = false) async -> ScreenState<JSONValue> {
        await load(endpoint, offline: offline) { data in
            guard let value = JSONValue(data: data) else { throw TeamDataError.notJSON(endpoint.name) }
            return value
        }
    }

    /// Reads `llms.txt` and what it names.
    public func discovery(offline: Bool = false) async -> ScreenState<TeamDiscovery> {
        await load(.llmsTxt, offline: offline) { data in
            guard let text = String(data: data, encoding: .utf8) else { throw TeamDataError.notText("llms.txt") }
            return TeamDiscovery(llmsTxt: text)
        }
    }

    /// `places.json`.
    public func places(offline: Bool = false) async -> ScreenState<TeamPlaces> {
        await load(.places, as: TeamPlaces.self, offline: offline)
    }

    /// `agenda.json`.
    public func agenda(offline: Bool = false) async -> ScreenState<TeamAgenda> {
        await load(.agenda, as: TeamAgenda.self, offline: offline)
    }

    /// `me.json`.
    public func me(offline: Bool = false) async -> ScreenState<TeamMe> {
        await load(.me, as: TeamMe.self, offline: offline)
    }

    /// A person's sentence for a failed read; the site's own message is kept word for word.
    static func sentence(_ error: SyncError, endpoint: TeamEndpoint) -> String {
        switch error {
        case .offlineWithoutCache(_, let cause), .http(let cause):
            return "PrompTugal could not load \(endpoint.name) and has no saved copy: \(reason(cause))."
        case .notCached:
            return "PrompTugal has no saved copy of \(endpoint.name) yet; connect once to load it."
        case .undecodable:
            return "PrompTugal could not read the \(endpoint.name) it received; the last good copy is kept."
        case .store(let cause):
            return "PrompTugal could not use its saved data: \(cause.description)"
        }
    }

    /// Why a request failed, without the address: product copy never names a data source's host (P-TEAM-8).
    static func reason(_ error: HTTPError) -> String {
        if let status = error.statusCode {
            if let message = error.envelope?.summary { return "the site answered \(status): \(message)" }
            return "the site answered \(status)"
        }
        return "the connection failed"
    }

    /// `fresh`, `stale, 12 min old`, `offline, 1 h old` or `failed`, for lists and the terminal.
    public static func summary<Value>(_ state: ScreenState<Value>) -> String {
        switch state {
        case .loading: return "loading"
        case .content: return "fresh"
        case .empty: return "empty"
        case .stale(_, let age, _): return "stale, \(describe(age: age)) old"
        case .offline(_, let age, _): return "offline, \(describe(age: age)) old"
        case .failed: return "failed"
        }
    }

    /// The age of a cached value, `nil` for fresh content or no value.
    public static func age<Value>(_ state: ScreenState<Value>) -> TimeInterval? {
        state.kind == .stale || state.kind == .offline ? state.age : nil
    }

    /// The sentence a screen shows with the state, if any.
    public static func note<Value>(_ state: ScreenState<Value>) -> String? { state.problem }

    /// `42 s`, `3 min`, `2 h`, `1 d`.
    public static func describe(age: TimeInterval) -> String {
        let seconds = Int(age.rounded())
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }
}

/// Why a team-data body was not usable.
public enum TeamDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON.
    case notJSON(String)
    /// Not UTF-8 text.
    case notText(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .notJSON(let name): return "The \(name) file is not JSON."
        case .notText(let name): return "The \(name) file is not text."
        }
    }
}
