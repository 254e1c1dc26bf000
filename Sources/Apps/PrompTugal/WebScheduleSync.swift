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
/// Rules (P-BRIDGE-8..12, P-OPEN-8, P-OPEN-9, issue 38 item 1):
/// - Only on pages whose origin is on the allow-list; any other page is never read or written. The page's URL is
///   checked before anything runs, and the script checks `location.origin` again when it runs (P-BRIDGE-11).
/// - One script call (`ScheduleSync.syncScript`) reads `localStorage['nr.schedule.v1']` in the page's world,
///   writes the app's picks into it and dispatches `nr:schedule`, so a pick the page makes meanwhile is never lost
///   and a page that only reads the key when the event fires sees the app's picks. Every member and entry the app
///   does not own is kept; a pick the page removed after the app's last write is not re-added, and the app
///   removes it too (a removal at the clock's now, so it also holds against the vault's copy).
/// - The value read goes through the store's `merge` (never a replacement); `null` is an empty document.
/// - A stored value that is not a schedule document is reported and nothing is written back until the page
///   stores a valid one, so data the website may still understand is not destroyed.
/// - The read and the write are each one `.bridge` journal entry. The app runs the sync when a page finishes
///   loading, after each local change and when it becomes active.
@MainActor
public final class WebScheduleSync {
    /// What one sync did.
    public enum Outcome: Sendable, Hashable {
        /// Merged and written back; the ids the page added, and the ids the page had removed since the app's last
        /// write (removed in the app too).
        case synced(added: [String], removedOnPage: [String] = [])
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

    /// Reads, merges and writes back on the page at `pageURL`, in one script call.
    public func sync(page pageURL: URL, scripting: any PageScripting) async -> Outcome {
        let origin = OriginAllowList.origin(of: pageURL.absoluteString) ?? "(none)"
        guard configuration.allows(pageURL) else {
            BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.sync", outcome: "rejected")
            return .notAllowed
        }
        let script = ScheduleSync.syncScript(
            picks: store.document, removals: store.state.removals, allowed: configuration.allowList.origins)
        let result: JSONValue?
        do {
            result = try await scripting.evaluate(script).flatMap { JSONValue(data: Data($0.utf8)) }
        } catch {
            BridgeJournal.record(journal, .inbound, origin: origin, op: "schedule.read", outcome: "failed")
            return .failed("The page could not be synced: \(error)")
        }
        guard let result, case .object = result else {
            BridgeJournal.record(journal, .inbound, origin: origin, op: "schedule.read", outcome: "failed")
            return .failed("The page's sync script returned no result.")
        }
        let document: ScheduleDocument
        switch ScheduleSync.interpret(result["stored"]?.stringValue) {
        case .malformed(let reason):
            BridgeJournal.record(
                journal, .inbound, origin: origin, op: "schedule.read", outcome: "malformed", detail: reason)
            return .malformed(reason)
        case .document(let value):
            do {
                document = try ScheduleDocument(json: value)
            } catch {
                BridgeJournal.record(
                    journal, .inbound, origin: origin, op: "schedule.read", outcome: "malformed",
                    detail: error.description)
                return .malformed(error.description)
            }
        }
        BridgeJournal.record(journal, .inbound, origin: origin, op: "schedule.read", outcome: "ok")
        guard result["written"] == .bool(true) else {
            BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.write", outcome: "failed")
            return .failed("The page's stored schedule was not written.")
        }
        BridgeJournal.record(journal, .outbound, origin: origin, op: "schedule.write", outcome: "ok")
        let added = store.merge(document).added
        let removedOnPage = (result["removedOnPage"]?.arrayValue ?? []).compactMap(\.stringValue)
        store.removeAsOnPage(removedOnPage)
        return .synced(added: added, removedOnPage: removedOnPage.sorted())
    }
}
