import CompanionCore
import Foundation

/// One server reached at two addresses: an internal one (the home network) tried first, and the external one
/// (the public address, the server's key) when the internal one does not answer.
///
/// Rules and reasons:
/// - The client, its credential and its offline store belong to the external address (the server key): requests
///   are made for it, and this transport sends them to the internal address instead while that one answers. The
///   credential therefore goes only to the two addresses configured for the server.
/// - Whether the internal address answers is a TCP connect with a short timeout (`connectTimeout`, 1.5 s by
///   default), made before the first request and never with a request on it, so a home address that is not
///   reachable from another network costs one short wait, not a failed request.
/// - The answer is remembered: the internal address is used until a request to it finds it unreachable; the
///   external one until `recheckAfter` has passed (on the injected clock), then the internal one is tried again.
/// - Every change of address is written to the journal, with the address used and why.
/// - A request the internal address refused to connect to (nothing was sent) goes to the external one at once,
///   whatever its method; any other failure is the caller's to handle (a write is never resent here).
/// - A change of the device's network path (`networkChanged()`) forgets the answer and probes again at once: leaving
///   home moves to the external address, coming home back to the internal one.
public actor AddressFailover {
    /// Which address requests go to.
    public enum Route: String, Sendable, Hashable {
        /// The internal (home) address.
        case `internal`
        /// The external (public) address.
        case external
    }

    /// The external address: the server's own, which requests are made for.
    public nonisolated let external: URL
    /// The internal address tried first.
    public nonisolated let `internal`: URL
    private let connectTimeout: Duration
    private let recheckAfter: TimeInterval
    private let clock: any WallClock
    private let probe: any ConnectProbe
    private let journal: Journal
    private var route: Route?
    private var decidedAt = Date.distantPast
    private var probing: Task<Route, Never>?

    /// Creates the failover between `internal` and `external` (origins, each with its own mount path).
    public init(
        external: URL, internal: URL, connectTimeout: Duration = .milliseconds(1500),
        recheckAfter: Duration = .seconds(60),
        clock: any WallClock = SystemWallClock(), probe: any ConnectProbe = TCPConnectProbe(),
        journal: Journal = Journal()
    ) {
        self.external = external
        self.internal = `internal`
        self.connectTimeout = connectTimeout
        self.recheckAfter = recheckAfter.seconds
        self.clock = clock
        self.probe = probe
        self.journal = journal
    }

    /// The address the last decision picked, if any was made yet.
    public var current: Route? { route }

    /// Where the next request goes: the remembered answer, or a fresh probe of the internal address.
    public func choose() async -> Route {
        if let route, route == .internal || clock.now().timeIntervalSince(decidedAt) < recheckAfter {
            return route
        }
        if let probing { return await probing.value }
        let task = Task { await probeInternal() }
        probing = task
        let chosen = await task.value
        probing = nil
        settle(chosen, reason: chosen == .internal ? "it answered" : "it did not answer within \(connectTimeout)")
        return chosen
    }

    /// The device's network path changed: the remembered answer is forgotten and the internal address probed again
    /// at once; returns whether the address chosen now differs from the one chosen before (`false` when none was).
    public func networkChanged() async -> Bool {
        let before = route
        route = nil
        decidedAt = .distantPast
        let after = await choose()
        return before != nil && before != after
    }

    /// Notes that a request found the internal address unreachable: the external one is used from now on.
    public func internalUnreachable() {
        guard route != .external else { return }
        settle(.external, reason: "a request could not connect to it")
    }

    private func probeInternal() async -> Route {
        guard let host = `internal`.host else { return .external }
        let port = `internal`.port ?? (`internal`.scheme?.lowercased() == "http" ? 80 : 443)
        return await probe.canConnect(host: host, port: port, timeout: connectTimeout) ? .internal : .external
    }

    private func settle(_ chosen: Route, reason: String) {
        let changed = chosen != route
        route = chosen
        decidedAt = clock.now()
        guard changed else { return }
        let used = chosen == .internal ? `internal` : external
        journal.record(
            .note, "network: using the \(chosen.rawValue) address \(HTTPError.describe(used))",
            fields: [
                "server": HTTPError.describe(external), "internal": HTTPError.describe(`internal`),
                "reason": "internal address: \(reason)",
            ])
    }

    /// `url` (made for the external address) sent to the internal one: the same path below its mount path.
    public nonisolated func internalURL(for url: URL) -> URL? {
        let base = Self.trimmed(external.absoluteString)
        let text = url.absoluteString
        guard text.hasPrefix(base) else { return nil }
        let rest = text.dropFirst(base.count)
        guard rest.isEmpty || rest.hasPrefix("/") || rest.hasPrefix("?") else { return nil }
        return URL(string: Self.trimmed(`internal`.absoluteString) + rest)
    }

    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// A transport that sends a server's requests to its internal address while that one answers (`AddressFailover`).
public struct FailoverTransport: Transport {
    private let inner: any Transport
    /// The failover deciding where requests go.
    public let failover: AddressFailover

    /// Wraps `inner`.
    public init(_ inner: any Transport, failover: AddressFailover) {
        self.inner = inner
        self.failover = failover
    }

    /// Sends `request` to the internal address when it answers, else to the external one.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard let internalURL = failover.internalURL(for: request.url), await failover.choose() == .internal else {
            return try await inner.send(request)
        }
        var moved = request
        moved.url = internalURL
        do {
            return try await inner.send(moved)
        } catch {
            guard case .unreachable = error else { throw error }
            await failover.internalUnreachable()
            return try await inner.send(request)
        }
    }
}
