import Foundation

/// Watches that the page behind a bridge is alive: readiness within 20 s of a load, then a heartbeat at
/// least every 15 s.
///
/// Rules (O-WD-*, O-OPEN-11): after a load starts, no `nativeWebReady` by 20 s (elapsed ≥ 20 s) → failed;
/// after readiness, a gap of more than 15 s since the last heartbeat (or since readiness) → failed; a
/// ready or heartbeat message with another protocol version → failed (mismatch); a new load restarts at the
/// readiness phase. A miss is a state the app shows (Reload / Server setup), not an exception. Time comes
/// from the caller (an injected clock), so tests never wait.
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

    /// Time allowed from a load's start to the first readiness.
    public static let readinessTimeout: TimeInterval = 20
    /// Longest gap allowed between heartbeats once ready.
    public static let heartbeatInterval: TimeInterval = 15

    /// Where the page stands.
    public enum State: Sendable, Hashable {
        /// No load is being watched.
        case idle
        /// A load started at this instant; readiness is due within 20 s.
        case awaitingReadiness(since: Date)
        /// Ready; the last sign of life was at this instant.
        case healthy(lastBeat: Date)
        /// The page is not healthy.
        case failed(Failure)
    }

    /// Why the page is considered broken.
    public enum Failure: Sendable, Hashable {
        /// No readiness within 20 s of the load.
        case readinessTimedOut
        /// More than 15 s without a heartbeat.
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

    /// Creates an idle watchdog for protocol `expectedVersion`.
    public init(expectedVersion: Int = 1, readiness: Readiness = .required) {
        self.expectedVersion = expectedVersion
        self.readiness = readiness
        optedIn = readiness == .required
    }

    /// A load (first load, reload or server switch) started at `now`: watch for readiness again (when the
    /// page has opted in; otherwise nothing is watched until it does).
    public mutating func loadStarted(at now: Date) { recorded = optedIn ? .awaitingReadiness(since: now) : .idle }

    /// The page reported readiness with `version` at `now`.
    public mutating func ready(version: String, at now: Date) {
        settle(at: now)
        if !optedIn, case .idle = recorded {
            optedIn = true
            recorded = version == String(expectedVersion) ? .healthy(lastBeat: now) : .failed(.versionMismatch(version))
            return
        }
        guard case .awaitingReadiness = recorded else {
            if case .healthy = recorded { beat(version: version, at: now) }
            return
        }
        recorded = version == String(expectedVersion) ? .healthy(lastBeat: now) : .failed(.versionMismatch(version))
    }

    /// The page sent a heartbeat with `version` at `now`.
    public mutating func heartbeat(version: String, at now: Date) {
        settle(at: now)
        beat(version: version, at: now)
    }

    /// The web content process died.
    public mutating func contentProcessTerminated() { recorded = .failed(.contentProcessTerminated) }

    /// The state at `now`, with deadlines applied.
    public func state(at now: Date) -> State {
        switch recorded {
        case .awaitingReadiness(let since) where now.timeIntervalSince(since) >= Self.readinessTimeout:
            return .failed(.readinessTimedOut)
        case .healthy(let last) where now.timeIntervalSince(last) > Self.heartbeatInterval:
            return .failed(.heartbeatMissed)
        default:
            return recorded
        }
    }

    /// Applies deadlines at `now` to the recorded state, so a late message cannot revive a failed page.
    public mutating func settle(at now: Date) { recorded = state(at: now) }

    private mutating func beat(version: String, at now: Date) {
        guard case .healthy = recorded else { return }
        recorded = version == String(expectedVersion) ? .healthy(lastBeat: now) : .failed(.versionMismatch(version))
    }
}
