import CompanionCore
import Foundation

/// What the app knows when a link arrives: the server on screen, whether its page finished loading, the
/// saved server and the recent servers (newest first).
///
/// Managed presets are deliberately not part of it (O-OPEN-4): only a server the person connected to
/// before skips the consent prompt.
public struct LinkContext: Sendable, Hashable {
    /// The server whose page the web view shows or is loading, if any.
    public var current: ServerAddress?
    /// Whether the current page finished loading, so the page can route in place now.
    public var pageLoaded: Bool
    /// The saved (default) server, if any.
    public var saved: ServerAddress?
    /// Recent servers, newest first.
    public var recents: [ServerAddress]

    /// Creates a context.
    public init(
        current: ServerAddress? = nil, pageLoaded: Bool = false, saved: ServerAddress? = nil,
        recents: [ServerAddress] = []
    ) {
        self.current = current
        self.pageLoaded = pageLoaded
        self.saved = saved
        self.recents = recents
    }
}

/// How to handle a parsed link, decided as a value so it is tested without a web view.
public enum LinkDecision: Sendable, Hashable {
    /// The link's origin is the current server and its page is loaded: route to `path` in place
    /// (`OpenPath`), with no reload.
    case navigateInPlace(path: String)
    /// The link's origin is the current server but its page is still loading: hold `path` and emit it once
    /// when the load finishes (`DeferredLinkPath`).
    case deferUntilLoaded(path: String)
    /// A known server (the saved one, or a recent with the link's origin): switch to that stored address,
    /// which keeps its mount, and load `loadURL`. No prompt.
    case switchToKnownServer(server: ServerAddress, loadURL: URL)
    /// An unknown server: ask first. Nothing touches the network before the person answers.
    case askConsent(LinkConsentRequest)
}

/// The question asked before following a link to a server never connected to.
///
/// Rule: pinning a new origin grants it the bridge, notifications, the badge and the microphone, so a
/// clicked link must not silently connect to a server an attacker chose; until `open()` is called no
/// request of any kind (probe, manifest, page load) is made.
public struct LinkConsentRequest: Sendable, Hashable {
    /// The link being asked about.
    public let link: DeepLink
    /// The alert title.
    public var title: String { "Open this \(link.appName) link?" }
    /// The alert text, naming `host[:port]` exactly as the link does, lowercased (O-OPEN-22).
    public var message: String {
        "This link will connect \(link.appName) to \(link.hostDisplay). Only open links from a server you trust."
    }
    /// The button that declines; it changes nothing.
    public var cancelTitle: String { "Cancel" }
    /// The button that consents.
    public var openTitle: String { "Open" }

    /// The person chose Open: connect to the link's server, running the workspace probe first (the first
    /// network request this link causes), then load the link's path under the server found.
    public func open() -> LinkConnection {
        LinkConnection(server: link.server, path: link.path, probeWorkspaceFirst: true)
    }
}

/// A consented connection: what to probe, then what to load.
public struct LinkConnection: Sendable, Hashable {
    /// The server as the link named it (no mount yet).
    public let server: ServerAddress
    /// The page path to open after connecting.
    public let path: String
    /// Whether the workspace mount probe runs before the page load.
    public let probeWorkspaceFirst: Bool

    /// The URL to load once the probe settled on `resolved` (the link's server, or it with its mount).
    public func loadURL(on resolved: ServerAddress) -> URL { LinkRouter.loadURL(server: resolved, path: path) }
}

/// Decides what a link does, by the rules of Omnigent's shell (single window).
///
/// 1. The link's origin is the current server's → navigate in place, or defer while the page loads.
/// 2. The saved server, or else the newest recent, has the link's origin → switch to that stored address
///    without a prompt (O-OPEN-5: saved first, then newest recent).
/// 3. Otherwise → ask consent.
///
/// The page path never becomes part of a server: decisions carry the server and the path separately.
public enum LinkRouter {
    /// The decision for `link` in `context`; recorded in `journal` (kind `.link`) when one is given.
    public static func decide(_ link: DeepLink, in context: LinkContext, journal: Journal? = nil) -> LinkDecision {
        let decision: LinkDecision
        let origin = link.server.origin
        if let current = context.current, current.origin == origin {
            decision = context.pageLoaded ? .navigateInPlace(path: link.path) : .deferUntilLoaded(path: link.path)
        } else if let known = ([context.saved].compactMap { $0 } + context.recents).first(where: { $0.origin == origin }
        ) {
            decision = .switchToKnownServer(server: known, loadURL: loadURL(server: known, path: link.path))
        } else {
            decision = .askConsent(LinkConsentRequest(link: link))
        }
        journal?.record(.link, "deep link to \(origin)", fields: ["decision": decision.summary, "path": link.path])
        return decision
    }

    /// The page URL for `path` on `server`: the server's URL without a trailing slash, then the path, so the
    /// mount (`/omnigent`) is kept; the server's query (`?o=<org>`) stays at the end, where a URL needs it.
    public static func loadURL(server: ServerAddress, path: String) -> URL {
        let text = server.origin + server.path + path + (server.query.map { "?" + $0 } ?? "")
        return URL(string: text) ?? server.url
    }
}

extension LinkDecision {
    /// A short name of the decision, for the journal and the terminal client.
    public var summary: String {
        switch self {
        case .navigateInPlace: return "navigate-in-place"
        case .deferUntilLoaded: return "defer-until-loaded"
        case .switchToKnownServer: return "switch-known-server"
        case .askConsent: return "ask-consent"
        }
    }
}

/// The path held while the current page loads, emitted exactly once when it finishes.
///
/// Rule: a cold-start link to the saved server is never lost and never causes a reload; if several links
/// arrive while loading, the last one wins (O-OPEN-6).
public struct DeferredLinkPath: Sendable, Hashable {
    /// The path waiting for the load to finish, if any.
    public private(set) var pending: String?

    /// Creates an empty holder.
    public init() {}

    /// Holds `path`, replacing any earlier one.
    public mutating func hold(_ path: String) { pending = path }

    /// The page finished loading: the held path to emit (`OpenPath`), at most once.
    public mutating func pageFinishedLoading() -> String? {
        defer { pending = nil }
        return pending
    }
}
