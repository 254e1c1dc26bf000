import CompanionBridge
import CompanionCore
import Foundation

/// Runs a script in a web page's own world and returns its result as text (`evaluateJavaScript` on device).
public protocol PageScripting: Sendable {
    /// The script's result: a string, or `nil` for `null`/`undefined`.
    func evaluate(_ script: String) async throws -> String?
}

/// The interim schedule sync with the website through its `localStorage`, until the website calls the bridge.
///
/// Rules (P-BRIDGE-8..12, P-OPEN-8, P-OPEN-9):
/// - Only on pages whose origin is on the allow-list; any other page is never read or written. The page's URL is
///   checked before anything runs, and each script checks `location.origin` again when it runs (P-BRIDGE-11).
/// - Read `localStorage['nr.schedule.v1']` in the page's world; `null` is an empty document; the value goes through
///   the store's `merge` (never a replacement).
/// - Then write the store's document back as JSON text and dispatch `nr:schedule`, so a page that only reads the
///   key and listens for the event sees the app's picks. The app runs it when a page finishes loading, after each
///   local change and when it becomes active.
/// - A stored value that is not a schedule document is reported and nothing is written back until the page
///   stores a valid one, so data the website may still understand is not destroyed.
/// - Each read and write is one `.bridge` journal entry.
@MainActor
public final class WebScheduleSync {
    /// What one sync did.
    public enum Outcome: Sendable, Hashable {
        /// Merged and written back; the ids the page added.
        case synced(added: [String])
        /// The page is not on the allow-list; nothing ran.
        case notAllowed
        /// The stored value is not a schedule document; nothing was written.
        case malformed(String)
        /// The page could not run the script.
        case failed(String)
    }

    private let store: ScheduleStore
    private let configuration: PrompTugalBridgeConfiguration
    private let journal: Journal

    /// Syncs `store` with pages allowed by `configuration`, journaling to `journal`.
    public init(store: ScheduleStore, configuration: PrompTugalBridgeConfiguration, journal: Journal) {
        self.store = store
        self.configuration = configuration
        self.journal = journal
    }

    /// Reads, merges and writes back on the page at `pageURL`.
    public func sync(page pageURL: URL, scripting: any PageScripting) async -> Outcome {
        let origin = OriginAllowList.origin(of: pageURL.absoluteString) ?? "(none)"
        guard configuration.allows(pageURL) else {
            BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.sync", outcome: "rejected")
            return .notAllowed
        }
        let stored: String?
        do {
            stored = try await scripting.evaluate(ScheduleSync.readScript(allowed: configuration.allowList.origins))
        } catch {
            BridgeJournal.record(journal, .inbound, origin: origin, op: "schedule.read", outcome: "failed")
            return .failed("The page could not be read: \(error)")
        }
        var added: [String] = []
        switch ScheduleSync.interpret(stored) {
        case .malformed(let reason):
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: "schedule.read", outcome: "malformed", detail: reason)
            return .malformed(reason)
        case .document(let value):
            do {
                added = store.merge(try ScheduleDocument(json: value)).added
            } catch {
                BridgeJournal.record(
                    journal, .inbound, origin: origin, op: "schedule.read", outcome: "malformed",
                    detail: error.description)
                return .malformed(error.description)
            }
            BridgeJournal.record(journal, .inbound, origin: origin, op: "schedule.read", outcome: "ok")
        }
        do {
            _ = try await scripting.evaluate(
                ScheduleSync.writeScript(document: store.document.json, allowed: configuration.allowList.origins))
        } catch {
            BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.write", outcome: "failed")
            return .failed("The page could not be written: \(error)")
        }
        BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.write", outcome: "ok")
        return .synced(added: added)
    }
}
