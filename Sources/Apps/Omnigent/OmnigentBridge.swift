import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation

/// What the shell must do after an Omnigent bridge message, as plain data (the glue performs it).
public enum OmnigentEffect: Sendable, Hashable {
    /// Override the app's appearance.
    case setColorScheme(OmnigentColorScheme)
    /// Set the app badge to this count (already clamped at ≥ 0).
    case setBadgeCount(Int)
    /// Post a local notification.
    case postNotification(OmnigentNotification)
    /// Show the native Chat/Terminal bar in this state.
    case setViewMode(OmnigentViewMode)
    /// Evaluate this app → page call.
    case emit(OmnigentEmit)
    /// Switch to this offered server (its stored address, with its mount).
    case switchServer(ServerAddress)
    /// Tell the person something (such as "That server is no longer available…"); nothing else happens.
    case showMessage(String)
    /// Show the native server setup screen; the current server stays until the person connects.
    case openServerSetup
    /// Hide (`true`) or show the native server switcher while the page shows its own sidebar.
    case setServerSwitcherHidden(Bool)
    /// Let the web view's document scroll (`true`) or hold it still while the page manages the keyboard.
    case setDocumentScrollEnabled(Bool)
    /// Sign out of the current server: forget its credential and show sign-in (the page was told `true`).
    case signOutOfServer
}

/// `setColorScheme` values.
public enum OmnigentColorScheme: String, Sendable, Hashable {
    /// Light appearance.
    case light
    /// Dark appearance.
    case dark
    /// Follow the system.
    case system
}

/// A notification the page asked for, after the `notify` rules.
public struct OmnigentNotification: Sendable, Hashable {
    /// The title, never empty.
    public let title: String
    /// The body, possibly empty.
    public let body: String
    /// The path to open when tapped: only a path starting with a single `/` and holding no `\`.
    public let navigatePath: String?
}

/// The native Chat/Terminal bar state from `setViewMode`.
public struct OmnigentViewMode: Sendable, Hashable {
    /// `chat` or `terminal` (anything else the page sends reads as `chat`).
    public let mode: String
    /// Whether the terminal can be chosen.
    public let terminalEnabled: Bool
    /// Whether the terminal is starting.
    public let terminalStartingUp: Bool
    /// Whether the bar is visible (hidden unless the page says `true`).
    public let visible: Bool
}

/// Omnigent's native bridge on the app side: origin pinning, the methods, the picker and the watchdog.
///
/// Rules (O-BRIDGE-*, O-PICK-*, O-WD-*): a message is handled only from the main frame with both the frame's
/// origin and the page URL equal to the pinned origin; the rest are dropped with no effect. Unknown methods
/// and arguments that cannot be read are ignored and journaled (O-OPEN-12); where the real app reads a value
/// leniently, so does this bridge (`setViewMode` with another mode is chat, `setBadgeCount` with a non-number
/// is 0). Every message, accepted or dropped, and every emit become one `.bridge` journal event. Time comes
/// from the injected `WallClock`.
///
/// The watchdog (O-WD-*) follows the page: a new document of the pinned server restarts it at the readiness
/// phase; while the app is inactive or the page is off the pinned origin (at an identity provider) it pauses,
/// and a 20 s grace follows, keeping the readiness the page reported (a return from the identity provider is
/// not a new page).
public struct OmnigentBridge: Sendable {
    /// The server whose page may use the bridge; only a consented, connected server is ever pinned.
    public private(set) var pinned: ServerAddress
    /// What the picker offers and `switchServer` may choose from.
    public var offer: ServerOffer
    /// The liveness watchdog: a page is watched only once it opted in by sending `nativeWebReady`, because
    /// Omnigent's own web UI never sends it (nor heartbeats) and must not be declared dead while healthy.
    public private(set) var watchdog = HeartbeatWatchdog(
        expectedVersion: OmnigentBootstrap.version, readiness: .optIn)
    /// Whether the last main-frame navigation was on the pinned origin (a new one there is a new document).
    private var mainFrameOnPinnedOrigin = false
    private let policy: TransportPolicy
    private let clock: any WallClock
    private let journal: Journal

    /// Creates the bridge for a page of `pinned`. `policy` reads the addresses the page names (a development
    /// build's picker can switch to a LAN `http://` server it offered).
    public init(
        pinned: ServerAddress, offer: ServerOffer, policy: TransportPolicy = .httpsOnly, clock: any WallClock,
        journal: Journal
    ) {
        self.pinned = pinned
        self.offer = offer
        self.policy = policy
        self.clock = clock
        self.journal = journal
    }

    /// A load of `server` started (first load, reload or switch): pin it and restart the watchdog (O-WD-3).
    public mutating func loadStarted(of server: ServerAddress) {
        pinned = server
        watchdog.loadStarted(at: clock.now())
    }

    /// A main-frame navigation to `url` started. On the pinned origin after a page of it, it is a new document:
    /// the watchdog restarts at the readiness phase. Off the pinned origin (an identity provider's sign-in) the
    /// watchdog pauses; back on it, the 20 s grace starts and the page's readiness is kept.
    public mutating func mainFrameNavigationStarted(to url: URL?) {
        let onPinned = url.map { pinned.sameOrigin(as: $0) } ?? false
        if onPinned, mainFrameOnPinnedOrigin { watchdog.loadStarted(at: clock.now()) }
        mainFrameOnPinnedOrigin = onPinned
        watchdog.setOnPinnedOrigin(onPinned, at: clock.now())
    }

    /// The app went to the background (or lost focus): the watchdog pauses.
    public mutating func appWillResignActive() { watchdog.setActive(false, at: clock.now()) }

    /// The app became active again with the web view on `pageURL`: the watchdog resumes with its 20 s grace
    /// when the page is on the pinned origin.
    public mutating func appBecameActive(pageURL: URL?) {
        watchdog.setOnPinnedOrigin(pageURL.map { pinned.sameOrigin(as: $0) } ?? false, at: clock.now())
        watchdog.setActive(true, at: clock.now())
    }

    /// The web content process died (O-BRIDGE-11).
    public mutating func contentProcessTerminated() { watchdog.contentProcessTerminated() }

    /// The watchdog's state now.
    public var health: HeartbeatWatchdog.State { watchdog.state(at: clock.now()) }

    /// The sentence for a failed state, as the shell's recovery screen shows it (the real app's words).
    public static func failureMessage(_ failure: HeartbeatWatchdog.Failure) -> String {
        switch failure {
        case .contentProcessTerminated: return "The server UI process stopped unexpectedly."
        case .readinessTimedOut, .heartbeatMissed: return "The server UI stopped responding."
        case .versionMismatch: return "The server UI is incompatible with this app version."
        }
    }

    /// What the page is told when it asks to switch to a server the picker does not offer (O-PICK-4).
    public static let unavailableServer = "That server is no longer available. Choose a server to reconnect."

    /// Handles one message body; returns the effects to perform (empty when dropped or ignored).
    public mutating func receive(_ body: JSONValue, from source: BridgeSource) -> [OmnigentEffect] {
        let origin = OriginAllowList.origin(of: source.frameOrigin) ?? String(source.frameOrigin.prefix(80))
        if let rejection = OriginAllowList([pinned]).check(source) {
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: body["method"]?.stringValue,
                outcome: "rejected", detail: rejection.description)
            return []
        }
        let request: BridgeRequest
        do {
            request = try BridgeEnvelopeCodec.decode(body, dialect: .method)
        } catch {
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: nil, outcome: "rejected",
                detail: error.description)
            return []
        }
        let handled = handle(request)
        var effects = handled ?? []
        // A call the page awaits (it sent a request id) always gets an answer: `false` when ignored.
        if request.op != "getServerPicker", let requestId = Self.requestId(request.args) {
            effects.append(.emit(.reply(requestId: requestId, value: .bool(handled != nil))))
        }
        BridgeJournal.record(
            journal, .inbound, origin: origin, op: request.op, outcome: handled == nil ? "ignored" : "accepted")
        for effect in effects {
            if case .emit(let emit) = effect {
                BridgeJournal.record(journal, .outbound, origin: origin, op: emit.name, outcome: "emitted")
            }
        }
        return effects
    }

    /// The request id a page call carries when it awaits an answer.
    private static func requestId(_ args: JSONValue) -> String? {
        guard let text = args["requestId"]?.stringValue, !text.isEmpty, text.count <= 128 else { return nil }
        return text
    }

    /// An app → page emit not caused by a message (a notification tap, a drag): journaled, returned as script.
    public func emit(_ emit: OmnigentEmit) -> String {
        BridgeJournal.record(journal, .outbound, origin: pinned.origin, op: emit.name, outcome: "emitted")
        return emit.script
    }

    /// The effects of an accepted request; `nil` when it is ignored (unknown method or bad arguments).
    private mutating func handle(_ request: BridgeRequest) -> [OmnigentEffect]? {
        let args = request.args
        switch request.op {
        case "nativeWebReady", "nativeHeartbeat":
            guard let version = Self.versionText(args["version"]) else { return nil }
            if request.op == "nativeWebReady" {
                watchdog.ready(version: version, at: clock.now())
            } else {
                watchdog.heartbeat(version: version, at: clock.now())
            }
            return []
        case "setColorScheme":
            guard let scheme = args["scheme"]?.stringValue.flatMap(OmnigentColorScheme.init(rawValue:)) else {
                return nil
            }
            return [.setColorScheme(scheme)]
        case "setBadgeCount":
            // A count that is not a finite number sets 0, as the real app does.
            let count = args["count"]?.doubleValue.flatMap { $0.isFinite ? $0 : nil } ?? 0
            let floored = count.rounded(.down)
            return [.setBadgeCount(floored <= 0 ? 0 : Int(min(floored, Double(Int32.max))))]
        case "notify":
            guard let title = args["title"]?.stringValue, !title.isEmpty else { return nil }
            let path = args["navigatePath"]?.stringValue.flatMap { Self.isNavigablePath($0) ? $0 : nil }
            return [
                .postNotification(
                    OmnigentNotification(title: title, body: args["body"]?.stringValue ?? "", navigatePath: path))
            ]
        case "setViewMode":
            // Another mode is chat, and the bar is hidden unless the page says it is visible (the real app).
            let mode = args["mode"]?.stringValue == "terminal" ? "terminal" : "chat"
            return [
                .setViewMode(
                    OmnigentViewMode(
                        mode: mode, terminalEnabled: args["terminalEnabled"]?.boolValue ?? false,
                        terminalStartingUp: args["terminalStartingUp"]?.boolValue ?? false,
                        visible: args["visible"]?.boolValue ?? false))
            ]
        case "getServerPicker":
            guard let requestId = args["requestId"]?.stringValue, requestId.count <= 128 else { return nil }
            return [.emit(.serverPicker(requestId: requestId, info: pickerInfo))]
        case "switchServer":
            guard let url = args["url"]?.stringValue else { return nil }
            guard let entry = offer.entry(matching: url, policy: policy) else {
                return [.showMessage(Self.unavailableServer)]
            }
            return [.switchServer(entry)]
        case "openServerSetup":
            return [.openServerSetup]
        case "setServerSwitcherHidden":
            guard let hidden = args["hidden"]?.boolValue else { return nil }
            return [.setServerSwitcherHidden(hidden)]
        case "setDocumentScrollEnabled":
            guard let enabled = args["enabled"]?.boolValue else { return nil }
            return [.setDocumentScrollEnabled(enabled)]
        case "signOutOfServer":
            return [.signOutOfServer]
        default:
            return nil
        }
    }

    /// `{currentOrigin, currentServerUrl, managedServers, recentServers}`; recents exclude presets (O-PICK-1).
    /// The web UI also reads `currentServer` (the same URL) and `canSignOut` (whether to offer "Sign out of").
    public var pickerInfo: JSONValue {
        .object([
            "canSignOut": .bool(true),
            "currentOrigin": .string(pinned.origin),
            "currentServer": .string(pinned.description),
            "currentServerUrl": .string(pinned.description),
            "managedServers": .array(offer.presets.map { .string($0.description) }),
            "recentServers": .array(offer.recents.map { .string($0.description) }),
        ])
    }

    /// O-BRIDGE-7, O-OPEN-13: a path must start with one `/` (not `//`, which names another host) and hold
    /// no `\` (which browsers read as `/`) and no control character.
    static func isNavigablePath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.hasPrefix("//") && !path.contains("\\")
            && !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    }

    private static func versionText(_ value: JSONValue?) -> String? {
        switch value {
        case .integer(let number): return String(number)
        case .number(let number) where number.isFinite:
            return number == number.rounded() && abs(number) < 1e15
                ? String(Int64(number)) : String(number)
        case .string(let text): return String(text.prefix(16))
        default: return nil
        }
    }
}

extension OmnigentEmit {
    /// The emit function's name after `__omnigentNativeEmit`.
    public var name: String {
        switch self {
        case .notificationActivated: return "NotificationActivated"
        case .openPath: return "OpenPath"
        case .viewModeChanged: return "ViewModeChanged"
        case .insets: return "Insets"
        case .serverPicker: return "ServerPicker"
        case .sidebarDrag: return "SidebarDrag"
        case .keyboardViewport: return "KeyboardViewport"
        case .reply: return "Reply"
        }
    }
}
