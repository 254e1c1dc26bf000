import CompanionVault
import Foundation

/// The copy of the schedule the website keeps in the person's vault.
///
/// Rules:
/// - The website's `window.__vault` path `agenda/picks` is the vault file `apps/agenda/picks.json` (P-SCHED-20).
/// - After a pull, the file is read, decoded as a schedule document and merged by id; a vault without it leaves
///   the schedule unchanged (P-SCHED-21).
/// - A file that is not a schedule document leaves the schedule unchanged and logs an `error` event on its path;
///   the pull itself still succeeded (P-OPEN-10).
/// - The app never writes the file while vault access is read-only (P-OPEN-16, P-SECRET-3).
public enum ScheduleMirror {
    /// The website's vault path.
    public static let webPath = "agenda/picks"
    /// The vault file.
    public static let vaultPath = filePath(forWebPath: webPath)

    /// The vault file of a `window.__vault` path: `apps/<path>.json`.
    public static func filePath(forWebPath path: String) -> String { "apps/\(path).json" }

    /// What reading the mirror did.
    public enum Outcome: Sendable, Hashable {
        /// Merged; the ids that became picked.
        case merged(added: [String], skipped: Int)
        /// The vault has no mirror file.
        case absent
        /// The file is not a schedule document (its sentence); nothing changed.
        case malformed(String)
    }

    /// Reads the mirror from a pulled vault and merges it into `store`.
    @MainActor
    public static func merge(from vault: SGitVault, into store: ScheduleStore, log: VaultTrafficLog)
        async throws(VaultError) -> Outcome
    {
        let files = try await vault.files()
        guard files.contains(where: { $0.path == vaultPath }) else { return .absent }
        let data = try await vault.read(vaultPath)
        do {
            let outcome = store.merge(try ScheduleDocument(data: data))
            return .merged(added: outcome.added, skipped: outcome.skipped)
        } catch {
            log.record(.error, path: vaultPath, bytes: data.count, detail: "not a schedule document")
            return .malformed(error.description)
        }
    }
}
