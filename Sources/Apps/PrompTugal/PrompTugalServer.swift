import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation

/// PrompTugal's sites, on the kit's road: one bundle per team-data site, clients for the vault servers and
/// OpenRouter, all from one `AppEnvironment` with one `AppProfile`.
///
/// Rules:
/// - Every request the app core makes (team data, the vault, OpenRouter) goes through a client made here from the
///   environment: the platform's transport under the environment's transport policy, and the environment's one
///   journal, which the Network panel reads (P-NET-1, P-OPEN-24). Nothing in the app makes a transport or a
///   client of its own.
/// - Team data is public: each site's bundle has no credential and its own store, opened from the environment's
///   registry under the site's server key, so a cached file is keyed by its site and its path, which is its full
///   URL (P-OPEN-18). The schedule lives in the app's own store (`appStore`), not a site's.
/// - The OpenRouter key middleware is the app's middleware on every client, bound to its host: it attaches the key
///   to `https://openrouter.ai` only and keeps it off every other request (P-SECRET-2).
public struct PrompTugalServer: Sendable {
    /// What PrompTugal registers about its servers: its user agent, a 20 s timeout, no automatic retries (the
    /// fetcher's cached copy answers a failed read), failures worded in the product's name without a data source's
    /// address (`ReadSentence`, P-TEAM-8), and a copy read offline by choice shown as offline.
    public static func profile(for sites: TeamDataBases) -> AppProfile {
        let wording = ReadSentence(sites: sites)
        var profile = AppProfile(
            userAgent: "PrompTugal/1.0", accept: "application/json, */*", timeout: .seconds(20), retryPolicy: .never,
            sentence: { wording($0) })
        profile.offlineCopy = { _ in ReadSentence.offlineCopy }
        return profile
    }

    /// The profile of the live sites.
    public static let profile = PrompTugalServer.profile(for: .production)

    /// The account a public site's data is filed under.
    public static let publicUser = "public"
    /// The app's own store (the schedule and its removal records).
    public static let appAccount = AccountKey(serverKey: "promptugal", userID: "me")

    /// The process's parts.
    public let environment: AppEnvironment
    /// Where the two sites are.
    public let sites: TeamDataBases
    /// The team site: people, the command centre, `llms.txt`, meetings, agents.
    public let team: ServerBundle
    /// The news site: newsroom, news, agenda, places.
    public let news: ServerBundle
    /// The app's own store.
    public let appStore: OfflineStore
    /// The OpenRouter key rule every client carries.
    public let openRouterKey: OpenRouterKeyMiddleware

    /// The one journal: every exchange of every client, the bridge's messages, the vault's traffic.
    public var journal: Journal { environment.journal }
    /// The time source.
    public var clock: any WallClock { environment.clock }

    /// Opens PrompTugal's sites in `environment`. `openRouterKey` is read per request, so a key entered later is
    /// used and a deleted one is not; `openRouterOrigin` is OpenRouter's (tests bind a loopback origin to watch the
    /// real transport).
    ///
    /// - Throws: `PrompTugalServerError` when a site's address is not allowed by the transport policy (plain
    ///   http to anything but a loopback host), or its store cannot be opened.
    public static func open(
        sites: TeamDataBases, environment: AppEnvironment,
        openRouterOrigin: OpenRouterKeyMiddleware.BoundOrigin = .openRouter,
        openRouterKey: @escaping @Sendable () -> String? = { nil }
    ) async throws(PrompTugalServerError) -> PrompTugalServer {
        let middleware = OpenRouterKeyMiddleware(origin: openRouterOrigin, key: openRouterKey)
        func bundle(_ base: URL) async throws(PrompTugalServerError) -> ServerBundle {
            let address: ServerAddress
            do {
                address = try environment.address(base.absoluteString)
            } catch {
                throw .address(base.absoluteString, error.description)
            }
            do {
                return try await ServerBundle.open(
                    address.url, account: AccountKey(serverKey: address.serverKey, userID: publicUser),
                    profile: profile(for: sites), middlewares: [middleware], environment: environment)
            } catch {
                throw .store(error.description)
            }
        }
        let team = try await bundle(sites.team)
        let news = try await bundle(sites.news)
        let appStore: OfflineStore
        do {
            appStore = try await environment.stores.store(for: appAccount)
        } catch {
            throw .store(error.description)
        }
        return PrompTugalServer(
            environment: environment, sites: sites, team: team, news: news, appStore: appStore,
            openRouterKey: middleware)
    }

    /// The bundle of `site`.
    public func bundle(_ site: TeamEndpoint.Site) -> ServerBundle { site == .team ? team : news }

    /// A client for another server (a vault server, OpenRouter): the environment's transport, policy and journal,
    /// PrompTugal's profile, and the OpenRouter key rule.
    public func client(for base: URL) -> Client {
        environment.client(for: base, profile: team.profile, middlewares: [openRouterKey])
    }
}

/// Why PrompTugal's sites could not be opened.
public enum PrompTugalServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A site's address is not usable under the transport policy (the address, the reason).
    case address(String, String)
    /// A store could not be opened (its sentence).
    case store(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .address(let address, let reason): return "PrompTugal cannot use the address \(address): \(reason)"
        case .store(let reason): return "PrompTugal could not open its saved data: \(reason)"
        }
    }
}
