import CompanionApp
import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionLinks
import Foundation
import Observation

/// Where server setup stands.
public enum SetupPhase: Sendable, Equatable {
    /// Waiting for an address.
    case idle
    /// Probing the address (workspace mount, then manifest).
    case connecting(ServerAddress)
    /// Found an Omnigent server that needs sign-in in this mode before the API answers.
    case needsSignIn(ServerConnection)
    /// Connected; the API answers without (further) sign-in.
    case connected(ServerConnection)
    /// Why connecting failed, in a sentence.
    case failed(String)
}

/// The server setup screen: the address a person types, managed presets listed first, recent
/// servers, deep links, and the server picker the web page asks for.
///
/// Rules: an address is parsed by the kit's rules under the environment's transport policy (https; http
/// only to loopback, and only in development builds); a server joins recents only after it loaded
/// (O-RECENT-3); presets are offered, never written to recents, and hide matching recents (O-RECENT-5,
/// O-MDM-12), and they do not make a server known to a link (O-OPEN-4); a deep link to an unknown server only
/// asks, and makes no request until the person says Open (O-ROUTE-4). The server being connected to is
/// current from the moment the connect starts, as the real app switches its one window at once, so a link
/// that arrives during a server switch is held for that server's load, or sends the app to the server it
/// names (O-ROUTE-2).
@Observable @MainActor
public final class ServerSetupModel {
    /// The address field.
    public var addressText = ""
    /// Where setup stands.
    public private(set) var phase: SetupPhase = .idle
    /// Servers an administrator preset, in order.
    public private(set) var presets: [ServerAddress] = []
    /// Recently loaded servers (at most 5, newest first).
    public private(set) var recents: RecentServers
    /// The server the app is on, if any.
    public private(set) var current: ServerAddress?
    /// Whether the current server's page finished loading (deep links wait for it).
    public private(set) var pageLoaded = false
    /// A deep-link path held until the page finishes loading.
    public private(set) var deferred = DeferredLinkPath()
    /// The server saved from the last run: the one a cold start opens, and a known server for links.
    public private(set) var saved: ServerAddress?
    /// The origin the held path belongs to: it is opened only on that server's page (O-ROUTE-6).
    private var heldOrigin: String?
    /// The managed configuration's error code, when an administrator's payload was rejected.
    public private(set) var managedConfigurationCode: Int?
    /// Whether the saved server is one an administrator preset (O-OPEN-10): it stays saved only while the
    /// managed configuration still offers it.
    public private(set) var savedIsPreset = false
    /// Whether the workspace-root bounce was spent on the page being loaded (one per page load).
    private var bouncedThisLoad = false

    private let environment: AppEnvironment
    private var policy: TransportPolicy { environment.transportPolicy }
    private var journal: Journal { environment.journal }

    /// Creates the model on the process's environment: its transport policy is `.httpsOnly` in release
    /// builds, `.development` or `.allowingInsecureLoopback` only in development builds and tests.
    ///
    /// `saved` is the server saved from the last run (O-ROUTE-2): it is `current` from the start, before any
    /// manifest answers, so a cold-start deep link to it is held for its first load instead of asking for
    /// consent or loading a second time.
    ///
    /// `savedIsPreset` says the saved server was a managed preset when it was saved: it is then opened only while
    /// the managed configuration applied at start still offers it (O-OPEN-10).
    public init(
        recents: RecentServers = RecentServers(), saved: ServerAddress? = nil, savedIsPreset: Bool = false,
        environment: AppEnvironment
    ) {
        self.recents = recents
        self.saved = saved
        self.savedIsPreset = saved != nil && savedIsPreset
        self.current = saved
        self.environment = environment
    }

    /// Recents as listed: without the presets (they are listed first, separately).
    public var listedRecents: [ServerAddress] { recents.displayed(hiding: presets) }

    /// Applies the managed app configuration from its two channels (re-read whenever the app becomes active).
    public func applyManagedConfiguration(declarative: ManagedValue?, classic: ManagedValue?) {
        let outcome = ManagedConfigurationResolver.resolve(declarative: declarative, classic: classic, journal: journal)
        presets = outcome.servers
        managedConfigurationCode = outcome.reportedError?.code
        withdrawSavedPresetIfGone()
    }

    /// A saved preset the configuration no longer offers is forgotten (O-OPEN-10): the next cold start opens the
    /// setup screen, not a server the administrator withdrew; a page of it not yet loaded is not opened either.
    private func withdrawSavedPresetIfGone() {
        guard savedIsPreset, let withdrawn = saved, !presets.contains(where: { $0.serverKey == withdrawn.serverKey })
        else {
            return
        }
        journal.record(.link, "saved preset withdrawn; setup opens", fields: ["origin": withdrawn.origin])
        saved = nil
        savedIsPreset = false
        if current == withdrawn, !pageLoaded {
            current = nil
            dropHeldPath()
        }
    }

    /// The app became active: the managed configuration is read again from `source` and applied (O-MDM-15).
    /// Nothing connects and no request is made (O-MDM-12); recents are untouched (O-MDM-14).
    public func appDidBecomeActive(reading source: any ManagedConfigurationSource) {
        let (declarative, classic) = source.read()
        applyManagedConfiguration(declarative: declarative, classic: classic)
    }

    /// Connects to what the address field says. A typed conversation URL (`…/c/<id>`) connects to the server
    /// in front of it and opens the conversation once the page loads; the `/c/<id>` path is never stored as
    /// part of the server (O-RECENT-4).
    public func connect() async {
        do {
            let typed = try ServerAddress(parsing: addressText, policy: policy)
            let (address, path) = try Self.splitConversation(typed, policy: policy)
            if let path { hold(path, for: address) }
            await connect(to: address)
        } catch {
            phase = .failed(error.description)
        }
    }

    /// `https://h/omnigent/c/conv_abc?o=1` → (`https://h/omnigent?o=1`, `/c/conv_abc`); any other address is
    /// returned as it is, with no path.
    static func splitConversation(_ address: ServerAddress, policy: TransportPolicy) throws(ServerAddressError) -> (
        ServerAddress, String?
    ) {
        let segments = address.path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2, segments[segments.count - 2] == "c" else { return (address, nil) }
        let id = String(segments[segments.count - 1])
        let prefix = segments.dropLast(2).map { "/" + $0 }.joined()
        let server = try ServerAddress(
            parsing: address.origin + prefix + (address.query.map { "?" + $0 } ?? ""), policy: policy)
        return (server, "/c/" + id)
    }

    /// Holds `path` for the first load of `server`'s page.
    private func hold(_ path: String, for server: ServerAddress) {
        deferred.hold(path)
        heldOrigin = server.origin
    }

    /// Drops a held path (O-ROUTE-6): it belongs to a connect that failed or to another server.
    private func dropHeldPath() {
        if deferred.pending != nil {
            journal.record(.link, "held deep-link path dropped", fields: ["origin": heldOrigin ?? "?"])
        }
        deferred = DeferredLinkPath()
        heldOrigin = nil
    }

    /// Connects to `address`: mount discovery, then the manifest; the phase says what comes next.
    ///
    /// A held deep-link path survives only a connect to its own server that succeeds (O-ROUTE-6): connecting
    /// anywhere else, or a failed connect, drops it, so it never opens on whichever server loads next. The
    /// server is current from the start (its page is what the one window loads now); a failed connect leaves
    /// no server current, as the shell is back on the setup screen.
    public func connect(to address: ServerAddress) async {
        if heldOrigin != nil, heldOrigin != address.origin { dropHeldPath() }
        phase = .connecting(address)
        current = address
        pageLoaded = false
        bouncedThisLoad = false
        do {
            let connection = try await OmnigentConnector.connect(address, environment: environment)
            guard phase == .connecting(address) else { return }
            current = connection.address
            phase = connection.needsSignIn ? .needsSignIn(connection) : .connected(connection)
        } catch {
            guard phase == .connecting(address) else { return }
            dropHeldPath()
            current = nil
            // A cancelled connect says nothing, as the real app returns silently: setup waits again.
            phase = error == .cancelled || Task.isCancelled ? .idle : .failed(error.description)
        }
    }

    /// Records that the server's page loaded: it joins recents (unless it is a preset), and a
    /// deep-link path held meanwhile is returned to be opened, exactly once.
    public func pageDidLoad(_ address: ServerAddress) -> String? {
        current = address
        saved = address
        savedIsPreset = presets.contains { $0.serverKey == address.serverKey }
        pageLoaded = true
        bouncedThisLoad = false
        recents.recordSuccessfulLoad(of: address, presets: presets)
        if heldOrigin != nil, heldOrigin != address.origin { dropHeldPath() }
        heldOrigin = nil
        return deferred.pageFinishedLoading()
    }

    /// Where a navigation of the page goes instead (O-MOUNT-6): a Databricks workspace's bare root bounces to the
    /// mount (`WorkspaceDiscovery.bounce`), once per page load, as the real app budgets it, so a workspace that
    /// keeps sending the page to its root cannot loop; `nil` lets the navigation proceed unchanged.
    public func navigation(to url: URL) -> URL? {
        guard let target = WorkspaceDiscovery.bounce(navigationTo: url) else { return nil }
        guard !bouncedThisLoad else {
            journal.record(.link, "workspace-root bounce already spent on this load", fields: ["host": url.host ?? "?"])
            return nil
        }
        bouncedThisLoad = true
        return target
    }

    /// Records that the server's page failed to load (O-RECENT-3): the server does not join recents and is
    /// not saved; a deep-link path held for it is dropped (O-ROUTE-6); the phase says why.
    public func pageDidFailToLoad(_ address: ServerAddress, reason: String) {
        pageLoaded = false
        dropHeldPath()
        journal.record(.link, "page failed to load; recents unchanged", fields: ["origin": address.origin])
        phase = .failed(reason)
    }

    /// The person said Cancel to a link's consent question (O-ROUTE-5, O-RECENT-3): nothing is asked of
    /// the network, and the current server, its page, recents and the saved server stay as they are.
    public func cancelConsent(to request: LinkConsentRequest) {
        journal.record(.link, "link consent cancelled", fields: ["host": request.link.server.origin])
    }

    /// Decides what a deep link does, without touching the network.
    public func handle(link text: String) -> Result<LinkDecision, LinkError> {
        do {
            let link = try LinkParser.parse(text, grammar: .omnigent, policy: policy)
            let context = LinkContext(
                current: current, pageLoaded: pageLoaded, saved: saved ?? current, recents: recents.servers)
            let decision = LinkRouter.decide(link, in: context, journal: journal)
            if case .deferUntilLoaded(let path) = decision, let current { hold(path, for: current) }
            return .success(decision)
        } catch {
            return .failure(error)
        }
    }

    /// The person said Open to a link's consent question: the probe runs first, then the connection.
    public func consent(to request: LinkConsentRequest) async {
        let connection = request.open()
        hold(connection.path, for: connection.server)
        await connect(to: connection.server)
    }

    /// What the page's server picker shows (O-PICK-1): presets, then recents without presets.
    public var offer: ServerOffer { ServerOffer(presets: presets, recents: recents) }

    /// Switches to a server the picker offered; anything else is refused with the app's sentence (O-PICK-4).
    public func switchServer(to text: String) async -> String? {
        guard let entry = offer.entry(matching: text, policy: policy) else { return OmnigentBridge.unavailableServer }
        await connect(to: entry)
        return nil
    }

    /// The web bridge for the current server's page: pinned to its origin, its picker fed from the
    /// presets and recents this model offers (O-PICK-1) and reading addresses under this model's policy, its
    /// watchdog on the environment's clock. `nil` before a server is current.
    public func bridge() -> OmnigentBridge? {
        guard let current else { return nil }
        return OmnigentBridge(
            pinned: current, offer: offer, policy: policy, clock: environment.clock, journal: journal)
    }

    /// Carries out what the page asked through the bridge that belongs to the setup screen: a switch
    /// to an offered server, or the setup screen itself. Returns a sentence to show, if any.
    public func perform(_ effect: OmnigentEffect) async -> String? {
        switch effect {
        case .switchServer(let server):
            await connect(to: server)
            return nil
        case .showMessage(let sentence):
            return sentence
        case .openServerSetup:
            phase = .idle
            return nil
        default:
            return nil
        }
    }

    /// The emit for a tapped notification: its path goes back to the page (`NotificationActivated`),
    /// held until the page has loaded (O-NOTIF-4, O-ROUTE-2). `nil` for a notification without a path.
    public func notificationTapped(path: String?) -> OmnigentEmit? {
        guard let path else { return nil }
        guard pageLoaded else {
            if let current { hold(path, for: current) } else { deferred.hold(path) }
            return nil
        }
        return .notificationActivated(path: path)
    }
}
