import CompanionCore
import CompanionHTTP
import Foundation

/// The app's one way onto the network: one transport (one URL session), one journal, one key rule.
///
/// Rules (P-NET-1, P-OPEN-24): every request the app core makes (team data, the vault, OpenRouter) goes through a
/// `Client` made here, so every exchange is written once to the one `journal` that the Network panel reads.
/// The kit's `Client` is bound to one base address, so there is one per site, all sharing the transport, the
/// journal, the transport policy and the OpenRouter key middleware. Nothing in the app uses `URLSession` itself.
public final class PrompTugalNetwork: Sendable {
    /// The one network log.
    public let journal: Journal
    /// Which transports are allowed (`.httpsOnly` in release builds).
    public let policy: TransportPolicy
    private let transport: any Transport
    private let openRouterKey: OpenRouterKeyMiddleware
    private let clock: any WallClock
    private let clients = Locked<[String: Client]>([:])

    /// Creates the network. `openRouterKey` is read per request; `transport` defaults to the live one with the
    /// kit's redirect rules under `policy`.
    public init(
        journal: Journal = Journal(), policy: TransportPolicy = .httpsOnly, clock: any WallClock = SystemWallClock(),
        transport: (any Transport)? = nil,
        openRouterOrigin: OpenRouterKeyMiddleware.BoundOrigin = .openRouter,
        openRouterKey: @escaping @Sendable () -> String? = { nil }
    ) {
        self.journal = journal
        self.policy = policy
        self.clock = clock
        self.transport =
            transport
            ?? URLSessionTransport(redirectPolicy: RedirectPolicy(permits: { policy.permits($0) }))
        self.openRouterKey = OpenRouterKeyMiddleware(origin: openRouterOrigin, key: openRouterKey)
    }

    /// The client for the site at `base` (made once, then shared).
    public func client(for base: URL) -> Client {
        let key = base.absoluteString
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            let client = Client(
                baseURL: base,
                configuration: Client.Configuration(
                    defaultHeaders: ["User-Agent": "PrompTugal/1.0", "Accept": "application/json, */*"],
                    timeout: .seconds(20), retryPolicy: .never, middlewares: [openRouterKey],
                    transportPolicy: policy, journal: journal, clock: clock),
                transport: transport)
            clients[key] = client
            return client
        }
    }

    /// A GET whose reply is the raw body.
    public static func get(_ path: String) -> Request<Data> {
        Request<Data>(method: .get, path: path) { data, _, _ in data }
    }
}

/// One line of the Network panel: one request the app made.
public struct NetworkEntry: Sendable, Hashable {
    /// `GET`, `POST`…
    public let method: String
    /// The URL, credentials in the query masked.
    public let url: String
    /// The status, `nil` when the request failed before a response.
    public let status: Int?
    /// Bytes received.
    public let bytes: Int
    /// Milliseconds from sending to the end of the body.
    public let durationMs: Int?
    /// The failure, when it failed.
    public let failure: String?
    /// When it was sent.
    public let date: Date

    /// One line: `GET http://… 200 9934 B 12 ms`.
    public var line: String {
        let outcome = status.map(String.init) ?? "failed"
        return "\(method) \(url) \(outcome) \(bytes) B \(durationMs.map { "\($0) ms" } ?? "")"
            .trimmingCharacters(in: .whitespaces)
    }

    /// The entries of `journal`, oldest first: one per request event, joined with the response or error event
    /// of the same exchange (P-DEBUG-4, P-NET-1).
    public static func entries(in journal: Journal) -> [NetworkEntry] { entries(in: journal.events) }

    /// The entries of journal events (oldest first), as `entries(in:)` joins them.
    public static func entries(in events: [JournalEvent]) -> [NetworkEntry] {
        var open: [String: [Int]] = [:]
        var rows: [(event: JournalEvent, outcome: JournalEvent?)] = []
        for event in events {
            switch event.kind {
            case .request:
                open[event.message, default: []].append(rows.count)
                rows.append((event, nil))
            case .response, .error:
                guard var waiting = open[event.message], !waiting.isEmpty else { continue }
                let index = waiting.removeFirst()
                open[event.message] = waiting
                rows[index].outcome = event
            default:
                continue
            }
        }
        return rows.map { row in
            let parts = row.event.message.split(separator: " ", maxSplits: 1)
            let fields = row.outcome?.fields ?? [:]
            return NetworkEntry(
                method: parts.first.map(String.init) ?? "",
                url: parts.count > 1 ? String(parts[1]) : "",
                status: fields["status"].flatMap { Int($0) },
                bytes: fields["bytesIn"].flatMap { Int($0) } ?? 0,
                durationMs: fields["totalMs"].flatMap { Int($0) },
                failure: row.outcome?.kind == .error ? (fields["error"] ?? "failed") : nil,
                date: row.event.date)
        }
    }
}
