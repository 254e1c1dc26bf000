import CompanionCore
import CompanionStore
import CompanionVault
import Foundation

/// What the Build panel shows.
///
/// Rule (P-DEBUG-7, P-OPEN-23): app version, build number, git commit and the website's release; the release is
/// "unknown" when it cannot be read.
public struct BuildInfo: Sendable, Hashable {
    /// The marketing version, also `ptApp.version`.
    public let version: String
    /// The build number.
    public let build: String
    /// The git commit the app was built from.
    public let commit: String
    /// The website's release, when known.
    public let siteRelease: String?

    /// Creates build info.
    public init(version: String, build: String, commit: String, siteRelease: String? = nil) {
        self.version = version
        self.build = build
        self.commit = commit
        self.siteRelease = siteRelease
    }

    /// The version of this PrompTugal core, which the terminal's Build panel shows.
    public static let promptugalVersion = "1.0.0"
}

/// One row of a debug panel.
public struct DebugRow: Sendable, Hashable {
    /// The main text.
    public let title: String
    /// The secondary text.
    public let detail: String

    /// Creates a row.
    public init(_ title: String, _ detail: String) {
        self.title = title
        self.detail = detail
    }
}

/// The real sources the six debug panels read.
///
/// The journal may be the live one or a saved one (the terminal client shows the previous run's).
///
/// Rules (P-DEBUG-4..7, P-VLOG-8, P-KEY-3): Network reads the one network journal (one row per request), Bridge the
/// same journal's bridge events, Vault traffic the one vault traffic log, Storage the offline store's report and
/// the vault caches on disk, Keys the key descriptions, Build the build info. Every text passes through the
/// journal's scrubber before it is shown, so a registered key cannot appear even if a source slipped.
public struct DebugSources: Sendable {
    /// The network and bridge journal (used to scrub every row).
    public let journal: Journal
    /// The journal's events, oldest first (the live journal's, or a saved run's).
    public let events: @Sendable () -> [JournalEvent]
    /// The vault traffic log; without one the panel shows the journal's vault events.
    public let vaultLog: VaultTrafficLog?
    /// The offline stores (the app's own, and one per team-data site).
    public let stores: [OfflineStore]
    /// Where vault caches live.
    public let vaultCaches: URL?
    /// The key store.
    public let keyStore: any KeyStore
    /// Build info.
    public let build: BuildInfo
    /// The time source for ages.
    public let clock: any WallClock

    /// Creates the sources.
    public init(
        journal: Journal, events: (@Sendable () -> [JournalEvent])? = nil, vaultLog: VaultTrafficLog?,
        stores: [OfflineStore], vaultCaches: URL?, keyStore: any KeyStore, build: BuildInfo, clock: any WallClock
    ) {
        self.journal = journal
        self.events = events ?? { journal.events }
        self.vaultLog = vaultLog
        self.stores = stores
        self.vaultCaches = vaultCaches
        self.keyStore = keyStore
        self.build = build
        self.clock = clock
    }

    /// The rows of `panel`, newest first where the source is a log.
    public func rows(_ panel: DebugPanel) async -> [DebugRow] {
        let rows: [DebugRow]
        switch panel {
        case .vaultTraffic:
            if let vaultLog {
                rows = vaultLog.events.map { event in
                    var detail = "\(event.bytes) B, \(String(format: "%.1f", event.durationMs)) ms"
                    if let status = event.status { detail += ", \(status)" }
                    if !event.detail.isEmpty { detail += ", " + event.detail }
                    return DebugRow("\(event.kind.rawValue) \(event.path)", detail)
                }
            } else {
                rows = events().reversed().filter { $0.kind == .vault }.map { event in
                    let fields = event.fields
                    var detail = "\(fields["bytes"] ?? "0") B, \(fields["durationMs"] ?? "0") ms"
                    if let status = fields["status"] { detail += ", \(status)" }
                    if let more = fields["detail"] { detail += ", " + more }
                    return DebugRow(event.message, detail)
                }
            }
        case .network:
            rows = NetworkEntry.entries(in: events()).reversed().map { entry in
                DebugRow(
                    "\(entry.method) \(entry.url)",
                    "\(entry.status.map(String.init) ?? "failed"), \(entry.bytes) B"
                        + (entry.durationMs.map { ", \($0) ms" } ?? "") + (entry.failure.map { ", \($0)" } ?? ""))
            }
        case .bridge:
            rows = events().reversed().filter { $0.kind == .bridge }.map { event in
                DebugRow(
                    "\(event.fields["direction"] ?? "") \(event.fields["op"] ?? "?")",
                    "\(event.fields["origin"] ?? ""), \(event.fields["outcome"] ?? "")")
            }
        case .storage:
            rows = await storageRows()
        case .keys:
            rows = KeyDescription.all(in: keyStore).map {
                DebugRow($0.kind + ($0.vaultID.map { " \($0)" } ?? ""), $0.line)
            }
        case .build:
            rows = [
                DebugRow("Version", build.version), DebugRow("Build", build.build), DebugRow("Commit", build.commit),
                DebugRow("Site release", build.siteRelease ?? "unknown"),
            ]
        }
        return rows.map { DebugRow(journal.scrub($0.title), journal.scrub($0.detail)) }
    }

    /// Stored files and cache entries, each with its size and age (P-DEBUG-5).
    func storageRows() async -> [DebugRow] {
        let now = clock.now()
        var rows: [DebugRow] = []
        var seen: Set<String> = []
        for store in stores {
            guard let report = try? await store.report() else { continue }
            for file in report.files where seen.insert(file.name).inserted {
                let modified = store.fileURL.flatMap { url in
                    try? FileManager.default.attributesOfItem(
                        atPath: url.deletingLastPathComponent().appendingPathComponent(file.name).path)[
                            .modificationDate]
                        as? Date
                }
                rows.append(DebugRow(file.name, "\(file.bytes) B" + (modified.map { ", " + Self.age(now, $0) } ?? "")))
            }
            for entry in report.entries {
                // The store's site and the entry's request: the file's full address (P-OPEN-18).
                rows.append(
                    DebugRow(
                        "\(store.scope.serverKey) \(entry.key)",
                        "\(entry.bytes) B, \(TeamData.describe(age: entry.age)) old"))
            }
        }
        if let vaultCaches, let names = try? FileManager.default.contentsOfDirectory(atPath: vaultCaches.path) {
            for name in names.sorted() {
                let folder = vaultCaches.appendingPathComponent(name)
                let (bytes, newest) = Self.measure(folder)
                rows.append(
                    DebugRow("vault cache \(name)", "\(bytes) B" + (newest.map { ", " + Self.age(now, $0) } ?? "")))
            }
        }
        return rows
    }

    static func age(_ now: Date, _ date: Date) -> String {
        "\(TeamData.describe(age: max(0, now.timeIntervalSince(date)))) old"
    }

    static func measure(_ folder: URL) -> (Int, Date?) {
        var bytes = 0
        var newest: Date?
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else {
            return (0, nil)
        }
        for case let url as URL in walker {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else {
                continue
            }
            bytes += values.fileSize ?? 0
            if let date = values.contentModificationDate, newest.map({ date > $0 }) ?? true { newest = date }
        }
        return (bytes, newest)
    }
}
