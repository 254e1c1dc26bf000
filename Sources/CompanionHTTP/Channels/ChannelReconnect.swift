import CompanionCore
import Foundation

/// Where a channel stands (the states of HAKit's `HAConnectionState`).
public enum ChannelState: Sendable, Hashable, CustomStringConvertible {
    /// Not connected, and why.
    case disconnected(ChannelDisconnect)
    /// Opening the connection (TCP, TLS, the upgrade).
    case connecting
    /// Connected; signing in.
    case authenticating
    /// Signed in: requests and subscriptions flow.
    case ready

    /// Whether requests can be sent now.
    public var isReady: Bool { self == .ready }

    /// The state in words.
    public var description: String {
        switch self {
        case .disconnected(let why): return "disconnected (\(why))"
        case .connecting: return "connecting"
        case .authenticating: return "authenticating"
        case .ready: return "ready"
        }
    }
}

/// Why a channel is not connected.
public enum ChannelDisconnect: Sendable, Hashable, CustomStringConvertible {
    /// Never started.
    case notStarted
    /// The app stopped it.
    case stopped
    /// It will try again after `delay` (the `attempt`-th try in a row); `lastError` is what ended the last one.
    case waitingToReconnect(lastError: ChannelError?, delay: Duration, attempt: Int)
    /// The server refused the credential: no retry until the app starts the channel again (after a new sign-in).
    case rejected(ChannelError)

    /// The reason in words.
    public var description: String {
        switch self {
        case .notStarted: return "not started"
        case .stopped: return "stopped"
        case .waitingToReconnect(let error, let delay, let attempt):
            return "retry \(attempt) in \(delay.seconds) s after: \(error?.description ?? "the connection ended")"
        case .rejected(let error): return "rejected: \(error.description)"
        }
    }
}

/// When a channel tries again, and how it finds a dead peer.
///
/// Defaults are HAKit's `HAReconnectManager`: retries after 0, 5, 10 and 10 s, then every 15 s; a ping every 60 s,
/// a connection without its pong after 30 s is taken for dead. Each delay is stretched by a random share of up to
/// `jitter` (20 %: 10 s becomes 10–12 s), so many devices that lost the same server do not all return at the same
/// instant; 0 stays 0. A connection that reached `ready` starts the sequence over.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The delays before the first retries, in order.
    public var delays: [Duration]
    /// The delay before every later retry.
    public var thereafter: Duration
    /// The most a delay is stretched, as a share of it (0 turns jitter off).
    public var jitter: Double
    /// How long a ready connection goes between pings.
    public var pingInterval: Duration
    /// How long a ping may wait for its pong.
    public var pingTimeout: Duration
    /// How long the sign-in on a new connection may take before the attempt counts as failed (closed, retried);
    /// `nil`: as long as the dialect takes.
    public var signInTimeout: Duration?

    /// Creates a policy; the defaults are HAKit's.
    public init(
        delays: [Duration] = [.zero, .seconds(5), .seconds(10), .seconds(10)], thereafter: Duration = .seconds(15),
        jitter: Double = 0.2, pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(30),
        signInTimeout: Duration? = nil
    ) {
        self.delays = delays
        self.thereafter = thereafter
        self.jitter = max(0, jitter)
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.signInTimeout = signInTimeout
    }

    /// The delay before retry number `attempt` (1 for the first), stretched by `random`'s jitter.
    public func delay(beforeRetry attempt: Int, random: any RandomSource) -> Duration {
        let base = attempt >= 1 && attempt <= delays.count ? delays[attempt - 1] : thereafter
        guard jitter > 0, base > .zero else { return base }
        return base * (1 + jitter * random.unitInterval())
    }
}
