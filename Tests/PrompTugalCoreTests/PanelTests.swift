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
        let folder = try Scratch.folder("panel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualWallClock(Date())
        let store = try Scratch.store(in: folder, clock: clock)
        try await store.put(
            CachedResource(
                key: "team:https://promptugal.news/api/v1/places.json", body: Data(count: 9_934), fetchedAt: clock.now()
            ))
        let caches = folder.appendingPathComponent("vaults/demovault01/objects", isDirectory: true)
        try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
        try Data(count: 512).write(to: caches.appendingPathComponent("obj-cas-imm-aaaaaaaaaaaa"))
        clock.advance(by: 180)
        let sources = DebugSources(
            journal: Journal(), vaultLog: nil, store: store, vaultCaches: folder.appendingPathComponent("vaults"),
            keyStore: InMemoryKeyStore(), build: BuildInfo(version: "1", build: "1", commit: "c"), clock: clock)
        let rows = await sources.rows(.storage)
        let entry = try #require(rows.first { $0.title == "team:https://promptugal.news/api/v1/places.json" })
        #expect(entry.detail == "9934 B, 3 min old")
        let database = try #require(rows.first { $0.title.hasSuffix(".sqlite") })
        #expect(database.detail.contains(" B, ") && database.detail.hasSuffix(" old"))
        let vault = try #require(rows.first { $0.title == "vault cache demovault01" })
        #expect(vault.detail.hasPrefix("512 B, "))
    }

    @Test("P-DEBUG-7, P-OPEN-23: the Build panel shows version, build, commit and site release (unknown when unread)")
    func build() async {
        func rows(_ release: String?) async -> [DebugRow] {
            await DebugSources(
                journal: Journal(), vaultLog: nil, store: nil, vaultCaches: nil, keyStore: InMemoryKeyStore(),
                build: BuildInfo(version: "1.4.0", build: "212", commit: "1dfd9ca", siteRelease: release)
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
            journal: journal, vaultLog: log, store: nil, vaultCaches: nil, keyStore: InMemoryKeyStore(),
            build: BuildInfo(version: "1", build: "1", commit: "c"))
        #expect(
            await sources.rows(.network) == [
                DebugRow("GET https://promptugal.news/api/v1/places.json", "200, 9934 B, 12 ms")
            ])
        #expect(await sources.rows(.bridge) == [DebugRow("page→app schedule.get", "https://promptugal.news, ok")])
        #expect(await sources.rows(.vaultTraffic).first?.title == "request bare/refs/ref-pid-muw-3a5d094fc10e")
    }
}
