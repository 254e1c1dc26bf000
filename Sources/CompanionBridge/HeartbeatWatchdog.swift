import Foundation

/// Watches that the page behind a bridge is alive: readiness within 20 s of a load, then a heartbeat at
/// least every 15 s, paused while nobody can see the page.
///
/// Rules (O-WD-*, O-OPEN-11, as the real app's liveness watchdog behaves), and their reasons:
/// - After a load starts, no readiness by 20 s (elapsed ≥ 20 s, so 19.99 s still waits) → failed.
/// - After readiness, 15 s without a heartbeat (elapsed ≥ 15 s since the last heartbeat or since readiness)
///   → failed; a heartbeat every 10 s keeps the page healthy for good. A heartbeat before readiness counts for
///   nothing: only a page that said it speaks the protocol is held to its heartbeat.
/// - A ready or heartbeat message with another protocol version → failed at once (mismatch).
/// - A new load (a new document: a reload, a server switch) restarts at the readiness phase and forgets the
///   old document's readiness.
/// - Paused while the app is inactive or the page is off the pinned origin (at an identity provider, say): a
///   page nobody can see, or one that is not the server's, cannot be expected to beat. When both hold again, a
///   20 s grace starts and the readiness the page reported is kept, so a return from the identity provider or
///   from the background is not treated as a new page.
/// - A miss is a state the app shows (Reload / Server setup), not an exception; a failed page stays failed
///   until the next load. Time comes from the caller (an injected clock), so tests never wait.
///
/// Opt-in (`Readiness.optIn`): a page that never says it is ready is not watched at all, because a page that
/// does not know the protocol would otherwise be declared dead 20 s after every healthy load. Such a page opts
/// in by sending its first readiness message; from then on it is held to the heartbeat, and every later load
/// (a reload, a server switch) is held to the 20 s readiness again, since the page has shown it speaks the
/// protocol. `Readiness.required` watches every load from its start.
public struct HeartbeatWatchdog: Sendable, Hashable {
    /// Whether a load is watched before its page has ever reported readiness.
    public enum Readiness: Sendable, Hashable {
        /// Every load must report readiness within 20 s.
        case required
        /// Nothing is watched until a page sends its first readiness message.
        case optIn
    }

    /// Time allowed from a load's start to the first readiness, and the grace after a pause.
    public static let readinessTimeout: TimeInterval = 20
    /// Time allowed between heartbeats once ready: a gap this long fails.
    public static let heartbeatInterval: TimeInterval = 15

    /// Where the page stands.
    public enum State: Sendable, Hashable {
        /// No load is being watched.
        case idle
        /// A load started (or a pause before readiness ended) at this instant; readiness is due within 20 s.
        case awaitingReadiness(since: Date)
        /// Ready; the last sign of life was at this instant, and the next heartbeat is due within 15 s.
        case healthy(lastBeat: Date)
        /// Ready, back from a pause at this instant; a heartbeat is due within the 20 s grace.
        case resumed(since: Date)
        /// The app is inactive or the page is off the pinned origin: nothing is due. `ready` says whether the
        /// page had reported readiness (kept through the pause).
        case paused(ready: Bool)
        /// The page is not healthy.
        case failed(Failure)
    }

    /// Why the page is considered broken.
    public enum Failure: Sendable, Hashable {
        /// No readiness within 20 s of the load (or of the end of a pause before readiness).
        case readinessTimedOut
        /// No heartbeat within 15 s (or within the 20 s grace after a pause).
        case heartbeatMissed
        /// The page speaks another bridge version (carries what it sent).
        case versionMismatch(String)
        /// The web content process died.
        case contentProcessTerminated
    }

    /// The state at the last update (call `state(at:)` for the current one).
    public private(set) var recorded: State = .idle
    /// The bridge protocol version the page must report.
    public let expectedVersion: Int
    /// Whether loads are watched from their start or only once a page opted in.
    public let readiness: Readiness
    /// Whether a page has sent a readiness message since this watchdog was made (always `true` for
    /// `.required`).
    public private(set) var optedIn: Bool
    /// Whether the app is active (in the foreground).
    public private(set) var isActive = true
    /// Whether the page is on the pinned origin.
    public private(set) var isOnPinnedOrigin = true

    /// Creates an idle watchdog for protocol `expectedVersion`.
    public init(expectedVersion: Int = 1, readiness: Readiness = .required) {
        self.expectedVersion = expectedVersion
        self.readiness = readiness
        optedIn = readiness == .required
    }

    /// Whether deadlines run now: the app is active and the page is on the pinned origin.
    private var isRunning: Bool { isActive && isOnPinnedOrigin }

    /// A load (a new document: first load, reload or server switch) started at `now`: watch for readiness
    /// again (when the page has opted in; otherwise nothing is watched until it does).
    public mutating func loadStarted(at now: Date) {
        guard optedIn else {
            recorded = .idle
            return
        }
        recorded = isRunning ? .awaitingReadiness(since: now) : .paused(ready: false)
    }

    /// The page reported readiness with `version` at `now`.
    public mutating func ready(version: String, at now: Date) {
        settle(at: now)
        if case .failed = recorded { return }
        if !optedIn {
            guard case .idle = recorded else { return }
            optedIn = true
        } else if case .idle = recorded {
            return
        }
        guard version == String(expectedVersion) else {
            recorded = .failed(.versionMismatch(version))
            return
        }
        recorded = isRunning ? .healthy(lastBeat: now) : .paused(ready: true)
    }

    /// The page sent a heartbeat with `version` at `now`.
    public mutating func heartbeat(version: String, at now: Date) {
        settle(at: now)
        switch recorded {
        case .healthy, .resumed:
            recorded =
                version == String(expectedVersion) ? .healthy(lastBeat: now) : .failed(.versionMismatch(version))
        case .idle, .awaitingReadiness, .paused, .failed:
            // Before readiness, or while paused, a heartbeat arms nothing.
            break
        }
    }

    /// The app became active (`true`) or inactive (`false`) at `now`.
    public mutating func setActive(_ active: Bool, at now: Date) {
        guard active != isActive else { return }
        settle(at: now)
        isActive = active
        active ? resume(at: now) : pause()
    }

    /// The page arrived on (`true`) or left (`false`) the pinned origin at `now`.
    public mutating func setOnPinnedOrigin(_ onOrigin: Bool, at now: Date) {
        guard onOrigin != isOnPinnedOrigin else { return }
        settle(at: now)
        isOnPinnedOrigin = onOrigin
        onOrigin ? resume(at: now) : pause()
    }

    /// The web content process died.
    public mutating func contentProcessTerminated() { recorded = .failed(.contentProcessTerminated) }

    /// The instant the current phase fails without news from the page, `nil` when nothing is due.
    public var deadline: Date? {
        switch recorded {
        case .awaitingReadiness(let since), .resumed(let since): return since + Self.readinessTimeout
        case .healthy(let last): return last + Self.heartbeatInterval
        case .idle, .paused, .failed: return nil
        }
    }

    /// The state at `now`, with deadlines applied.
    public func state(at now: Date) -> State {
        guard let deadline, now >= deadline else { return recorded }
        if case .awaitingReadiness = recorded { return .failed(.readinessTimedOut) }
        return .failed(.heartbeatMissed)
    }

    /// Applies deadlines at `now` to the recorded state, so a late message cannot revive a failed page.
    public mutating func settle(at now: Date) { recorded = state(at: now) }

    private mutating func pause() {
        switch recorded {
        case .awaitingReadiness: recorded = .paused(ready: false)
        case .healthy, .resumed: recorded = .paused(ready: true)
        case .idle, .paused, .failed: break
        }
    }

    private mutating func resume(at now: Date) {
        guard isRunning, case .paused(let ready) = recorded else { return }
        recorded = ready ? .resumed(since: now) : .awaitingReadiness(since: now)
    }
}
