import CompanionCore
import CompanionTestSupport
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// Destinations, the layout decision, the debug badge and the product's copy.
struct ShellTests {
    static func destination(_ id: String, _ section: Destination.Section, _ kind: Destination.Kind = .native)
        -> Destination
    {
        Destination(id: id, title: id.capitalized, symbol: "circle", section: section, kind: kind, view: .init("V"))
    }

    @Test("P-SHELL-1: a destination has id, title, symbol, section, kind and view")
    func fields() throws {
        let url = try #require(URL(string: "https://promptugal.news/agenda"))
        let destination = Destination(
            id: "agenda", title: "Agenda", symbol: "calendar", section: .event, kind: .web(url),
            view: .init("WebPageView"))
        #expect(destination.id == "agenda" && destination.title == "Agenda" && destination.symbol == "calendar")
        #expect(
            destination.section == .event && destination.kind == .web(url) && destination.view.name == "WebPageView")
        let kinds: [Destination.Kind] = [.native, .web(url), .hybrid]
        #expect(kinds.map(\.badge) == ["native", "web", "hybrid"])
    }

    @Test("P-SHELL-2: a second destination with the same id is refused")
    func uniqueIDs() throws {
        var registry = DestinationRegistry()
        try registry.register(Self.destination("news", .news))
        #expect(throws: DestinationError.duplicateID("news")) {
            try registry.register(Self.destination("news", .team))
        }
        #expect(registry.destinations.count == 1)
        let standard = DestinationRegistry.promptugal()
        #expect(Set(standard.destinations.map(\.id)).count == standard.destinations.count)
        #expect(standard.destinations.count == 10)
    }

    @Test("P-SHELL-3: regular width is a sidebar by section; every destination once")
    func regular() {
        let registry = DestinationRegistry.promptugal()
        let layout = ShellLayout.decide(registry, width: .regular)
        guard case .sidebar(let groups) = layout else {
            Issue.record("expected a sidebar")
            return
        }
        #expect(groups.map(\.section) == Destination.Section.allCases)
        #expect(groups.allSatisfy { group in group.destinations.allSatisfy { $0.section == group.section } })
        #expect(layout.reachable.map(\.id).sorted() == registry.destinations.map(\.id).sorted())
        #expect(layout.tabCount == 0)
    }

    @Test("P-SHELL-3, P-OPEN-21: compact width is at most 5 tabs; the first 4 in section order plus More")
    func compact() throws {
        let registry = DestinationRegistry.promptugal()
        let layout = ShellLayout.decide(registry, width: .compact)
        guard case .tabs(let tabs, let more) = layout else {
            Issue.record("expected tabs")
            return
        }
        #expect(tabs.map(\.id) == ["today", "schedule", "agenda", "places"])
        #expect(more.map(\.id) == ["news", "newsroom", "team", "agents", "vault", "settings"])
        #expect(layout.tabCount == 5)
        let reachable = layout.reachable.map(\.id)
        #expect(reachable.count == Set(reachable).count)
        #expect(Set(reachable) == Set(registry.destinations.map(\.id)))

        let small = try DestinationRegistry([
            Self.destination("b", .news), Self.destination("a", .today), Self.destination("c", .settings),
        ])
        #expect(ShellLayout.decide(small, width: .compact) == .tabs(small.inSectionOrder, more: []))
        #expect(small.inSectionOrder.map(\.id) == ["a", "b", "c"])
    }

    @Test("P-SHELL-4: the badge reads native, web or hybrid in debug mode, nothing otherwise")
    func badge() throws {
        let registry = DestinationRegistry.promptugal()
        let agenda = try #require(registry["agenda"])
        let schedule = try #require(registry["schedule"])
        let today = try #require(registry["today"])
        #expect([agenda, schedule, today].map { $0.badge(debugMode: true) } == ["web", "hybrid", "native"])
        #expect(registry.destinations.allSatisfy { $0.badge(debugMode: false) == nil })
    }

    /// A data source's names a person must never read in the app's copy.
    static let sourceNames = ["sgit", "web-summit", "web summit", "sgraph", "send.sgraph", "127.0.0.1", "localhost"]

    static func namesASource(_ text: String) -> Bool {
        let lower = text.lowercased()
        return sourceNames.contains { lower.contains($0) }
    }

    @Test("P-TEAM-8: titles, notes, vault and feed errors say PrompTugal or nothing of a source, never its name")
    func productCopy() throws {
        let titles = DestinationRegistry.promptugal().destinations.map(\.title)
        #expect(titles.contains { $0.contains("PrompTugal") })
        for title in titles { #expect(!Self.namesASource(title), "\(title)") }

        // The notes a screen shows for a kind llms.txt does not list.
        let discovery = TeamDiscovery(
            llmsTxt: "", address: try #require(URL(string: "https://team.example/llms.txt")),
            site: try #require(URL(string: "https://team.example")))
        let sentences = TeamFeedKind.allCases.compactMap { discovery.note(for: $0) }
        #expect(sentences.count == 5 && sentences.allSatisfy { $0.contains("PrompTugal") })

        // Every vault failure, as the app words it.
        let problems: [VaultError.KeyProblem] = [
            .empty, .missingVaultID, .invalidVaultID, .wrongHexLength(count: 63), .notHex, .emptyPassphrase,
            .derivationFailed,
        ]
        let failures: [VaultError] =
            problems.map { .malformedKey($0) } + [
                .vaultNotFound(vaultID: "abcd1234"), .branchNotFound(name: "x"), .pathNotFound(path: "a"), .notPulled,
                .transport(path: "p", reason: "r"), .httpStatus(path: "p", status: 500),
                .refused(path: "p", status: 400, message: "Invalid vault id"), .objectMissing(id: "obj-cas-imm-0"),
                .contentAddressMismatch(id: "obj-cas-imm-0"), .decryptionFailed(path: "p"), .truncated(path: "p"),
                .decompressionFailed(path: "p"), .malformedObject(path: "p", reason: "r"),
                .unsupportedSchema(path: "p", schema: "s"), .invalidIdentifier("x"), .integrity(path: "p", reason: "r"),
                .malformedPack(name: "p", reason: "r"), .cache(reason: "r"),
            ]
        let vaultSentences = failures.map(VaultSession.sentence(for:))
        let feedSentences = [FeedError.notXML(line: 1), .notAFeed(root: "html"), .notText].map(\.description)
        let dataSentences = [
            TeamDataError.notJSON("me"), .notText("llms.txt"), .notAnObject("me"), .missingList("agenda"),
        ]
        .map(\.description)
        for sentence in sentences + vaultSentences + feedSentences + dataSentences {
            #expect(!Self.namesASource(sentence), "\(sentence)")
        }
    }

    @Test("P-SHELL-3: compact width without a More tab when every destination fits in the tabs")
    func compactWithoutMore() throws {
        let small = try DestinationRegistry([
            Self.destination("b", .news), Self.destination("a", .today), Self.destination("c", .settings),
        ])
        #expect(ShellLayout.decide(small, width: .compact).tabCount == 3)
        // P-OPEN-21 at its limit: five destinations are five tabs; a sixth makes four tabs and More.
        let ids = ["a", "b", "c", "d", "e", "f"]
        let five = try DestinationRegistry(ids.prefix(5).map { Self.destination($0, .event) })
        #expect(ShellLayout.decide(five, width: .compact) == .tabs(five.inSectionOrder, more: []))
        let six = try DestinationRegistry(ids.map { Self.destination($0, .event) })
        let sixLayout = ShellLayout.decide(six, width: .compact)
        #expect(sixLayout.tabCount == 5 && sixLayout.reachable.map(\.id) == ids)
        #expect(sixLayout == .tabs(Array(six.inSectionOrder.prefix(4)), more: Array(six.inSectionOrder.suffix(2))))
    }

    @Test("P-VAULT-6: a refused key says what is wrong with it, each problem in its own words")
    func keyProblemSentences() {
        for pasted in ["sgit_private_vault_:demovault01", " :demovault01"] {
            #expect(throws: VaultError.malformedKey(.emptyPassphrase), "\(pasted)") {
                try VaultKey(importing: pasted)
            }
        }
        #expect(
            VaultSession.sentence(for: VaultError.malformedKey(.emptyPassphrase))
                == "This is not a usable vault key: the passphrase before the vault id is empty. Copy the whole key "
                + "again from where it was shared.")
        let problems: [VaultError.KeyProblem] = [
            .empty, .missingVaultID, .invalidVaultID, .wrongHexLength(count: 63), .notHex, .emptyPassphrase,
            .derivationFailed,
        ]
        let sentences = problems.map { VaultSession.sentence(for: VaultError.malformedKey($0)) }
        #expect(Set(sentences).count == problems.count && !sentences.contains { $0.contains("key:  Copy") })
    }

    @Test(
        "P-TEAM-8: a failure that is not the vault reader's is shown in its own sentence (a session's, a store's), never as nothing"
    )
    func otherFailuresKeepTheirSentence() {
        #expect(
            VaultSession.sentence(for: VaultSessionError.noKey("demovault01"))
                == "No key is stored for vault demovault01: import its read key first.")
        #expect(
            VaultSession.sentence(for: VaultSessionError.notOpen("demovault01"))
                == "Vault demovault01 is not open: open it or import its key first.")
    }
}

/// Debug mode and its panels.
@MainActor
struct DebugModeTests {
    @Test("P-DEBUG-1: the terminal's flag file keeps on and off across launches, 0600 in a 0700 folder")
    func theFlagFilePersists() throws {
        let temporary = try TemporaryFolder(prefix: "pt-debug")
        let url = temporary.url.appendingPathComponent("state").appendingPathComponent("debug")
        #expect(FileDebugFlag(url: url).load() == nil)  // first launch: no file
        #expect(!DebugMode(storage: FileDebugFlag(url: url), clock: ManualWallClock()).isOn)
        DebugMode(storage: FileDebugFlag(url: url), clock: ManualWallClock()).set(true)
        #expect(FileDebugFlag(url: url).load() == true)
        #expect(DebugMode(storage: FileDebugFlag(url: url), clock: ManualWallClock()).isOn)
        let fileMode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        let folderMode =
            try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)[.posixPermissions]
            as? Int
        #expect(fileMode == 0o600 && folderMode == 0o700)
        FileDebugFlag(url: url).save(false)
        #expect(FileDebugFlag(url: url).load() == false)
        try Data("maybe\n".utf8).write(to: url)
        #expect(FileDebugFlag(url: url).load() == nil)
    }

    @Test("P-DEBUG-1, P-OPEN-22: off on first launch; the Settings switch turns it on and off; it persists")
    func firstLaunch() {
        let flag = InMemoryDebugFlag()
        let mode = DebugMode(storage: flag, clock: ManualWallClock())
        #expect(!mode.isOn && mode.panels.isEmpty)
        mode.set(true)
        #expect(mode.isOn)
        #expect(DebugMode(storage: flag, clock: ManualWallClock()).isOn)
        mode.set(false)
        #expect(!DebugMode(storage: flag, clock: ManualWallClock()).isOn)
    }

    @Test("P-DEBUG-2, P-OPEN-22: three taps within 1 s turn it on; one or two, or three spread out, do nothing")
    func taps() {
        let clock = ManualWallClock()
        let mode = DebugMode(storage: InMemoryDebugFlag(), clock: clock)
        mode.tapVersion()
        clock.advance(by: 0.4)
        mode.tapVersion()
        #expect(!mode.isOn)
        clock.advance(by: 0.7)  // 1.1 s after the first tap: it no longer counts
        mode.tapVersion()
        #expect(!mode.isOn)
        clock.advance(by: 0.3)
        mode.tapVersion()  // the last three taps span 1.0 s: the first of them is outside the window
        #expect(!mode.isOn)
        clock.advance(by: 0.2)
        mode.tapVersion()  // taps at 1.1, 1.4, 1.6 s: within 1 s
        #expect(mode.isOn)
        mode.tapVersion()
        mode.tapVersion()
        mode.tapVersion()
        #expect(mode.isOn)  // taps only turn it on
    }

    @Test("P-DEBUG-3: on → exactly six panels, in order; off → none")
    func panels() {
        let mode = DebugMode(storage: InMemoryDebugFlag(), clock: ManualWallClock())
        #expect(mode.panels.isEmpty)
        mode.set(true)
        #expect(mode.panels.map(\.title) == ["Vault traffic", "Network", "Bridge", "Storage", "Keys", "Build"])
    }
}
