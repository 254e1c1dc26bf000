import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// `JournalPage` (what `companion journal --html` writes) loaded in a real headless Chromium: the journal of real
/// requests to the fault server renders, the filters work, markup in a message stays text, and no secret the
/// run used reaches the DOM. A screenshot goes to the test state folder.
@Suite("The journal as a page, in headless Chromium", .serialized)
struct JournalPageTests {
    static let secret = "page-Secret-Token-8c41f0"

    /// A journal of real traffic (a 200, a 404, a 401 with a bearer secret, a failed connection) plus one event
    /// of every other kind, one of them holding markup.
    static func journal() async throws -> Journal {
        let journal = Journal()
        journal.register(secret: secret)
        let client = TestClients.loopback(try TestServers.fault(), journal: journal)
        _ = try await client.send(Request<JSONValue>.get("/echo", query: ["note": "first"]))
        _ = try? await client.send(Request<JSONValue>.get("/status/404"))
        var authorized = Request<JSONValue>.get("/auth/required", query: ["token": secret])
        authorized.headers["Authorization"] = "Bearer \(secret)"
        _ = try? await client.send(authorized)
        _ = try? await client.send(Request<JSONValue>.get("/reset-before"))
        journal.record(.bridge, "page → app: ready", fields: ["op": "ready"])
        journal.record(.vault, "pulled 3 objects", fields: ["bytes": "4096"])
        journal.record(.storage, "wrote <script>alert(1)</script> to sessions", fields: ["rows": "2"])
        journal.record(.keys, "stored a credential", fields: ["password": secret])
        return journal
    }

    /// Writes the page to the state folder (or a temporary one) and returns its file URL.
    static func writePage(_ journal: Journal) throws -> URL {
        let folder = try TemporaryFolder.make(prefix: "journal-page")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("journal.html")
        try Data(JournalPage.html(journal.events, title: "journal page test").utf8).write(to: file)
        return file
    }

    /// The page's DOM with the filters of `fragment`.
    static func dom(_ page: URL, _ fragment: String = "") async throws -> String {
        let url = try #require(URL(string: page.absoluteString + (fragment.isEmpty ? "" : "#" + fragment)))
        return try await Chromium.dumpDOM(url)
    }

    /// How many entries the count says are shown, and how many `<li>` are not hidden.
    static func shown(_ dom: String) -> (count: Int?, visible: Int) {
        let count = dom.firstMatch(of: /data-shown="(\d+)"/).flatMap { Int($0.1) }
        let items = dom.matches(of: /<li [^>]*>/).map { String(dom[$0.range]) }
        return (count, items.filter { !$0.contains("hidden") }.count)
    }

    @Test("every event renders; kind, status and text filters narrow the list")
    func rendersAndFilters() async throws {
        let journal = try await Self.journal()
        let page = try Self.writePage(journal)
        let events = journal.events

        let all = try await Self.dom(page)
        #expect(Self.shown(all).count == events.count)
        #expect(Self.shown(all).visible == events.count)
        #expect(all.contains("class=\"bar\""))

        let responses = events.filter { $0.kind == .response }.count
        #expect(responses >= 2)
        #expect(Self.shown(try await Self.dom(page, "kind=response")).visible == responses)

        let notFound = events.filter { $0.fields["status"] == "404" }.count
        #expect(notFound >= 1)
        let clientErrors = events.filter {
            $0.kind != .error && $0.fields["error"] == nil && ($0.fields["status"] ?? "").hasPrefix("4")
        }
        #expect(clientErrors.count >= 2)
        #expect(Self.shown(try await Self.dom(page, "status=4xx")).visible == clientErrors.count)

        let failed = events.filter { $0.kind == .error || $0.fields["error"] != nil }.count
        #expect(failed >= 1)
        #expect(Self.shown(try await Self.dom(page, "status=failed")).visible == failed)

        let vault = try await Self.dom(page, "q=pulled%203")
        #expect(Self.shown(vault).visible == 1)
    }

    @Test("markup in a message stays text, no secret reaches the DOM, and a screenshot is saved")
    func noSecretAndNoMarkup() async throws {
        let journal = try await Self.journal()
        let page = try Self.writePage(journal)
        let dom = try await Self.dom(page)
        #expect(!dom.contains(Self.secret))
        #expect(!dom.contains("<script>alert(1)"))
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Self-contained: nothing to fetch.
        let source = try String(contentsOf: page, encoding: .utf8)
        #expect(!source.contains("<link") && !source.contains(" src=") && !source.contains("@import"))

        let shot = page.deletingLastPathComponent().appendingPathComponent("journal.png")
        try? FileManager.default.removeItem(at: shot)
        try await Chromium.screenshot(page, to: shot)
        let png = try Data(contentsOf: shot)
        #expect(png.count > 1000)
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }
}
