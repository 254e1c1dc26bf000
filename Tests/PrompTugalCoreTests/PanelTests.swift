import CompanionCore
import CompanionStore
import CompanionTestSupport
import CompanionVault
import Foundation
import Testing

@testable import PrompTugalCore

/// The debug panels fed by their real sources.
@MainActor
struct PanelTests {
    @Test("P-DEBUG-5: the Storage panel lists each stored file and cache entry with its size and age")
    func storage() async throws {
        let rig = try await Rig.make()
        let desks = TeamEndpoint.newsroom[0]
        #expect(await rig.team.json(desks).kind == .content)
        let caches = rig.folder.url.appendingPathComponent("vaults/demovault01/objects", isDirectory: true)
        try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
        try Data(count: 512).write(to: caches.appendingPathComponent("obj-cas-imm-aaaaaaaaaaaa"))
        rig.clock.advance(by: 180)
        let sources = DebugSources(
            journal: Journal(), vaultLog: nil, stores: [rig.server.appStore, rig.server.news.store],
            vaultCaches: rig.folder.url.appendingPathComponent("vaults"), keyStore: InMemoryKeyStore(),
            build: BuildInfo(version: "1", build: "1", commit: "c"), clock: rig.clock)
        let rows = await sources.rows(.storage)
        let saved = try #require(try await rig.server.news.store.resource("GET " + desks.path))
        let entry = try #require(rows.first { $0.title == (try StandIn.url()).absoluteString + " GET " + desks.path })
        #expect(entry.detail == "\(saved.body.count) B, 3 min old")
        let database = try #require(rows.first { $0.title.hasSuffix(".sqlite") })
        #expect(database.detail.contains(" B, ") && database.detail.hasSuffix(" old"))
        let vault = try #require(rows.first { $0.title == "vault cache demovault01" })
        #expect(vault.detail.hasPrefix("512 B, "))
    }

    @Test("P-DEBUG-7, P-OPEN-23: the Build panel shows version, build, commit and site release (unknown when unread)")
    func build() async {
        func rows(_ release: String?) async -> [DebugRow] {
            await DebugSources(
                journal: Journal(), vaultLog: nil, stores: [], vaultCaches: nil, keyStore: InMemoryKeyStore(),
                build: BuildInfo(version: "1.4.0", build: "212", commit: "1dfd9ca", siteRelease: release),
                clock: ManualWallClock()
            ).rows(.build)
        }
        #expect(
            await rows("2026.11.10-3") == [
                DebugRow("Version", "1.4.0"), DebugRow("Build", "212"), DebugRow("Commit", "1dfd9ca"),
                DebugRow("Site release", "2026.11.10-3"),
            ])
        #expect(await rows(nil).last == DebugRow("Site release", "unknown"))
    }

    @Test("P-DEBUG-4, P-BRIDGE-13, P-VLOG-8: Network, Bridge and Vault traffic read the one journal and the one log")
    func logsFeedPanels() async {
        let journal = Journal()
        journal.record(.request, "GET https://promptugal.news/api/v1/places.json", fields: ["bytesOut": "0"])
        journal.record(
            .response, "GET https://promptugal.news/api/v1/places.json",
            fields: ["status": "200", "bytesIn": "9934", "totalMs": "12"])
        journal.record(
            .bridge, "page→app schedule.get (ok)",
            fields: [
                "direction": "page→app", "op": "schedule.get", "origin": "https://promptugal.news", "outcome": "ok",
            ])
        let log = VaultTrafficLog()
        log.record(.request, path: "bare/refs/ref-pid-muw-3a5d094fc10e", bytes: 69, status: 200, detail: "GET")
        let sources = DebugSources(
            journal: journal, vaultLog: log, stores: [], vaultCaches: nil, keyStore: InMemoryKeyStore(),
            build: BuildInfo(version: "1", build: "1", commit: "c"), clock: ManualWallClock())
        #expect(
            await sources.rows(.network) == [
                DebugRow("GET https://promptugal.news/api/v1/places.json", "200, 9934 B, 12 ms")
            ])
        #expect(await sources.rows(.bridge) == [DebugRow("page→app schedule.get", "https://promptugal.news, ok")])
        #expect(await sources.rows(.vaultTraffic).first?.title == "request bare/refs/ref-pid-muw-3a5d094fc10e")
    }
}
