import CompanionAuth
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
/// Rules: an address is parsed by the kit's rules (https; http only to loopback, and only in
/// development builds); a server joins recents only after it loaded (O-RECENT-3); presets are
/// offered, never written to recents, and hide matching recents (O-RECENT-5, O-MDM-12); a deep link
/// to an unknown server only asks, and makes no request until the person says Open (O-ROUTE-4).
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
    /// The managed configuration's error code, when an administrator's payload was rejected.
    public private(set) var managedConfigurationCode: Int?

    private let policy: TransportPolicy
    private let journal: Journal

    /// Creates the model. `policy` is `.httpsOnly` in release builds; `.allowingInsecureLoopback` only in
    /// development builds and tests against a local server.
    public init(
        recents: RecentServers = RecentServers(), policy: TransportPolicy = .httpsOnly, journal: Journal = Journal()
    ) {
        self.recents = recents
        self.policy = policy
        self.journal = journal
    }

    /// Recents as listed: without the presets (they are listed first, separately).
    public var listedRecents: [ServerAddress] { recents.displayed(hiding: presets) }

    /// Applies the managed app configuration from its two channels (re-read whenever the app becomes active).
    public func applyManagedConfiguration(declarative: ManagedValue?, classic: ManagedValue?) {
        let outcome = ManagedConfigurationResolver.resolve(declarative: declarative, classic: classic, journal: journal)
        presets = outcome.servers
        managedConfigurationCode = outcome.reportedError?.code
    }

    /// Connects to what the address field says.
    public func connect() async {
        do {
            let address = try ServerAddress(parsing: addressText, policy: policy)
            await connect(to: address)
        } catch {
            phase = .failed(error.description)
        }
    }

    /// Connects to `address`: mount discovery, then the manifest; the phase says what comes next.
    public func connect(to address: ServerAddress) async {
        phase = .connecting(address)
        pageLoaded = false
        do {
            let connection = try await OmnigentConnector.connect(address, policy: policy, journal: journal)
            current = connection.address
            phase = connection.needsSignIn ? .needsSignIn(connection) : .connected(connection)
        } catch {
            phase = .failed(error.description)
        }
    }

    /// Records that the server's page loaded: it joins recents (unless it is a preset), and a
    /// deep-link path held meanwhile is returned to be opened, exactly once.
    public func pageDidLoad(_ address: ServerAddress) -> String? {
        current = address
        pageLoaded = true
        recents.recordSuccessfulLoad(of: address, presets: presets)
        return deferred.pageFinishedLoading()
    }

    /// Decides what a deep link does, without touching the network.
    public func handle(link text: String) -> Result<LinkDecision, LinkError> {
        do {
            let link = try LinkParser.parse(text, grammar: .omnigent, policy: policy)
            let context = LinkContext(
                current: current, pageLoaded: pageLoaded, saved: current, recents: recents.servers)
            let decision = LinkRouter.decide(link, in: context, journal: journal)
            if case .deferUntilLoaded(let path) = decision { deferred.hold(path) }
            return .success(decision)
        } catch {
            return .failure(error)
        }
    }

    /// The person said Open to a link's consent question: the probe runs first, then the connection.
    public func consent(to request: LinkConsentRequest) async {
        let connection = request.open()
        deferred.hold(connection.path)
        await connect(to: connection.server)
    }

    /// What the page's server picker shows (O-PICK-1): presets, then recents without presets.
    public var offer: ServerOffer { ServerOffer(presets: presets, recents: recents) }

    /// Switches to a server the picker offered; anything else is refused with the app's sentence (O-PICK-4).
    public func switchServer(to text: String) async -> String? {
        guard let entry = offer.entry(matching: text, policy: policy) else {
            return "That server is no longer available. Choose another one, or set it up again."
        }
        await connect(to: entry)
        return nil
    }

    /// The web bridge for the current server's page: pinned to its origin, its picker fed from the
    /// presets and recents this model offers (O-PICK-1). `nil` before a server is current.
    public func bridge(clock: any WallClock = SystemWallClock()) -> OmnigentBridge? {
        guard let current else { return nil }
        return OmnigentBridge(pinned: current, offer: offer, clock: clock, journal: journal)
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
            deferred.hold(path)
            return nil
        }
        return .notificationActivated(path: path)
    }
}
