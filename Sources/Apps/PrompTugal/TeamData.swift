import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

/// What a team-data read gives a screen.
public enum TeamDataState<Value: Sendable>: Sendable {
    /// Fresh from the site.
    case content(Value, fetchedAt: Date)
    /// The cached copy, because the site could not give a usable one; with its age and why.
    case stale(Value, fetchedAt: Date, age: TimeInterval, problem: String)
    /// Nothing cached and the site unreachable or unusable.
    case offline(reason: String)

    /// The value, fresh or stale.
    public var value: Value? {
        switch self {
        case .content(let value, _), .stale(let value, _, _, _): return value
        case .offline: return nil
        }
    }

    /// The same state with its value transformed.
    public func map<Other: Sendable>(_ transform: (Value) throws -> Other) rethrows -> TeamDataState<Other> {
        switch self {
        case .content(let value, let fetchedAt): return .content(try transform(value), fetchedAt: fetchedAt)
        case .stale(let value, let fetchedAt, let age, let problem):
            return .stale(try transform(value), fetchedAt: fetchedAt, age: age, problem: problem)
        case .offline(let reason): return .offline(reason: reason)
        }
    }

    /// `fresh`, `stale, 3 min old` or `offline`, for lists and the terminal.
    public var summary: String {
        switch self {
        case .content: return "fresh"
        case .stale(_, _, let age, _): return "stale, \(TeamData.describe(age: age)) old"
        case .offline: return "offline"
        }
    }
}

/// The team's public data, read without keys and kept for offline use.
///
/// Rules:
/// - Every request is a plain GET through the app's one network, with no credential of any kind: no
///   Authorization, no cookie (the transport keeps none), no vault or OpenRouter key (P-TEAM-1).
/// - A good reply is decoded first and then cached on disk with its fetch time, keyed by its full URL
///   (P-TEAM-5, P-OPEN-18).
/// - When the site fails (offline, 5xx, timeout), the cached copy is the answer, marked stale with its age; with
///   nothing cached the answer is the offline state, never an empty success; cached copies survive a relaunch
///   (P-TEAM-6).
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
    public func load<Value: Sendable>(
        _ endpoint: TeamEndpoint, offline: Bool = false, decode: @escaping @Sendable (Data) throws -> Value
    ) async -> TeamDataState<Value> {
        let base = endpoint.site == .team ? bases.team : bases.news
        let fetcher = CachedFetcher(client: network.client(for: base), store: store)
        let key = cacheKey(endpoint)
        let request = PrompTugalNetwork.get(endpoint.path)
        do {
            let loaded = try await fetcher.loadLatest(
                request, key: key, policy: offline ? .offline : .networkElseCache, decode: decode)
            if loaded.isStale || offline {
                let problem =
                    loaded.failure.map { "PrompTugal could not refresh \(endpoint.name): \(Self.reason($0))." }
                    ?? "Shown from the copy saved on this device."
                return .stale(loaded.value, fetchedAt: loaded.fetchedAt, age: loaded.age, problem: problem)
            }
            return .content(loaded.value, fetchedAt: loaded.fetchedAt)
        } catch {
            let problem = Self.sentence(error, endpoint: endpoint)
            if !offline, case .undecodable = error,
                let cached = try? await fetcher.loadLatest(request, key: key, policy: .offline, decode: decode)
            {
                return .stale(cached.value, fetchedAt: cached.fetchedAt, age: cached.age, problem: problem)
            }
            return .offline(reason: problem)
        }
    }

    /// Reads `endpoint` as JSON of type `Value`.
    public func load<Value: Decodable & Sendable>(
        _ endpoint: TeamEndpoint, as type: Value.Type, offline: Bool = false
    ) async -> TeamDataState<Value> {
        await load(endpoint, offline: offline) { data in try JSONDecoder().decode(Value.self, from: data) }
    }

    /// Reads `endpoint` as any JSON.
    public func loadJSON(_ endpoint: TeamEndpoint, offline: Bool = false) async -> TeamDataState<JSONValue> {
        await load(endpoint, offline: offline) { data in
            guard let value = JSONValue(data: data) else { throw TeamDataError.notJSON(endpoint.name) }
            return value
        }
    }

    /// Reads `llms.txt` and what it names.
    public func discovery(offline: Bool = false) async -> TeamDataState<TeamDiscovery> {
        await load(.llmsTxt, offline: offline) { data in
            guard let text = String(data: data, encoding: .utf8) else { throw TeamDataError.notText("llms.txt") }
            return TeamDiscovery(llmsTxt: text)
        }
    }

    /// `places.json`.
    public func places(offline: Bool = false) async -> TeamDataState<TeamPlaces> {
        await load(.places, as: TeamPlaces.self, offline: offline)
    }

    /// `agenda.json`.
    public func agenda(offline: Bool = false) async -> TeamDataState<TeamAgenda> {
        await load(.agenda, as: TeamAgenda.self, offline: offline)
    }

    /// `me.json`.
    public func me(offline: Bool = false) async -> TeamDataState<TeamMe> {
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
