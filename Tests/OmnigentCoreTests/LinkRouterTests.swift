import CompanionCore
import Foundation
import Testing

@testable import CompanionLinks
@testable import OmnigentCore

/// Deep-link handling (O-ROUTE-*), decided as values.
struct LinkRouterTests {
    static func address(_ text: String) throws -> ServerAddress {
        try ServerAddress(parsing: text, policy: .allowingInsecureLoopback)
    }

    static func link(_ text: String) throws -> DeepLink {
        try LinkParser.parse(text, grammar: .omnigent, policy: .allowingInsecureLoopback)
    }

    @Test("O-ROUTE-1: the current server with its page loaded navigates in place")
    func inPlace() throws {
        let context = LinkContext(current: try Self.address("https://h.example.com/omnigent"), pageLoaded: true)
        let decision = LinkRouter.decide(try Self.link("omnigent://h.example.com/c/x"), in: context)
        #expect(decision == .navigateInPlace(path: "/c/x"))
    }

    @Test("O-ROUTE-2: the current server while loading defers; the path is emitted once on load")
    func deferred() throws {
        let context = LinkContext(current: try Self.address("https://h.example.com"), pageLoaded: false)
        let decision = LinkRouter.decide(try Self.link("omnigent://h.example.com/c/x"), in: context)
        #expect(decision == .deferUntilLoaded(path: "/c/x"))
        var holder = DeferredLinkPath()
        holder.hold("/c/x")
        holder.hold("/c/y")  // O-OPEN-6: the last one wins.
        #expect(holder.pageFinishedLoading() == "/c/y")
        #expect(holder.pageFinishedLoading() == nil)
    }

    struct KnownRow: Sendable, CustomTestStringConvertible {
        let saved: String?
        let recents: [String]
        let link: String
        let server: String
        let loadURL: String
        var testDescription: String { "\(link) with saved \(saved ?? "-")" }
    }

    static let known: [KnownRow] = [
        // O-ROUTE-3: the saved server keeps its mount; trailing slash trimmed.
        KnownRow(
            saved: "https://w.cloud.databricks.com/omnigent/", recents: [],
            link: "omnigent://w.cloud.databricks.com/c/x", server: "https://w.cloud.databricks.com/omnigent",
            loadURL: "https://w.cloud.databricks.com/omnigent/c/x"),
        // A recent whose origin matches.
        KnownRow(
            saved: "https://other.example.com", recents: ["https://a.example.com:8443/m"],
            link: "omnigent://a.example.com:8443/c/x", server: "https://a.example.com:8443/m",
            loadURL: "https://a.example.com:8443/m/c/x"),
        // O-OPEN-5: saved before recents, then the newest recent.
        KnownRow(
            saved: "https://a.example.com/saved", recents: ["https://a.example.com/recent"],
            link: "omnigent://a.example.com/c/x", server: "https://a.example.com/saved",
            loadURL: "https://a.example.com/saved/c/x"),
        KnownRow(
            saved: nil, recents: ["https://a.example.com/new", "https://a.example.com/old"],
            link: "omnigent://a.example.com/c/x", server: "https://a.example.com/new",
            loadURL: "https://a.example.com/new/c/x"),
        // The workspace query stays at the end of the load URL.
        KnownRow(
            saved: "https://w.example.com/omnigent?o=42", recents: [],
            link: "omnigent://w.example.com/c/x", server: "https://w.example.com/omnigent?o=42",
            loadURL: "https://w.example.com/omnigent/c/x?o=42"),
        // Loopback over http, as a development build would.
        KnownRow(
            saved: nil, recents: ["http://localhost:8000"], link: "omnigent://localhost:8000/c/x",
            server: "http://localhost:8000", loadURL: "http://localhost:8000/c/x"),
    ]

    @Test("O-ROUTE-3, O-OPEN-5: known servers switch without a prompt and keep their mount", arguments: known)
    func knownServer(_ row: KnownRow) throws {
        let context = LinkContext(
            current: try Self.address("https://current.example.com"), pageLoaded: true,
            saved: try row.saved.map(Self.address), recents: try row.recents.map(Self.address))
        let decision = LinkRouter.decide(try Self.link(row.link), in: context)
        guard case .switchToKnownServer(let server, let url) = decision else {
            Issue.record("expected a switch, got \(decision)")
            return
        }
        #expect(server.description == row.server)
        #expect(url.absoluteString == row.loadURL)
    }

    @Test("O-ROUTE-4/5/6, O-OPEN-22: an unknown server asks consent, naming host:port as the link does")
    func unknownServer() throws {
        let journal = Journal(clock: ManualWallClock())
        let context = LinkContext(
            current: try Self.address("https://current.example.com"), pageLoaded: true,
            saved: try Self.address("https://saved.example.com"),
            recents: [try Self.address("https://a.example.com:8443")])
        // Same host, different port: a different origin, so unknown.
        let decision = LinkRouter.decide(
            try Self.link("omnigent://A.Example.com:9443/c/x"), in: context, journal: journal)
        guard case .askConsent(let request) = decision else {
            Issue.record("expected consent, got \(decision)")
            return
        }
        #expect(request.title == "Open this Omnigent link?")
        #expect(request.message.contains("a.example.com:9443"))
        #expect(request.message.hasSuffix("Only open links from a server you trust."))
        #expect([request.cancelTitle, request.openTitle] == ["Cancel", "Open"])
        let connection = request.open()
        #expect(connection.probeWorkspaceFirst)
        #expect(connection.server.description == "https://a.example.com:9443")
        let mounted = try Self.address("https://a.example.com:9443/omnigent")
        #expect(connection.loadURL(on: mounted).absoluteString == "https://a.example.com:9443/omnigent/c/x")
        #expect(journal.events.map(\.kind) == [.link])
        #expect(journal.events.first?.fields["decision"] == "ask-consent")
    }

    @Test("O-ROUTE-4: with no current server, no saved server and no recents, every link asks consent")
    func coldStartUnknown() throws {
        let decision = LinkRouter.decide(try Self.link("omnigent://localhost:8000/c/x"), in: LinkContext())
        #expect(decision.summary == "ask-consent")
    }
}
