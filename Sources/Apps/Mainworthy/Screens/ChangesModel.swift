import CompanionApp
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// Changes: the newest 500, by latest report, newest first, following the project's stream.
///
/// Rules: the list holds at most 500 changes (M-CHG-2, O-20). A `change` event updates the row it names, or
/// inserts it, and trims the list to 500 (M-CHG-4): a row with a new report (a later report time, or a new head
/// when the event gives no time) goes to the top, one without (a verdict after an answer) is updated where it is.
/// §2's event data is `{"id", "state", "head", "gate"}`: a row that lacks what the list shows (its ref, its report
/// time) is read again by id (`GET P/changes/{id}`), and moved to the top if that read shows a new report. A
/// `reset` event reads the list again (M-CHG-11). Reading the list starts the project's stream after the list's
/// revision, so no event between the read and the stream is lost. A change's page is its own (`change(_:)`), read
/// by id. Every event is a write of the stored list, which the screen observes (as every screen of it does).
@Observable @MainActor
public final class ChangesModel {
    /// The most changes the list holds.
    public nonisolated static let cap = 500

    /// The list as read and as the stream changed it: the stored reply of `GET P/changes`.
    public let list: ScreenFeed<ChangeListReply>
    /// How many times the list was read (diagnostics and tests).
    public private(set) var listReads = 0
    /// How many rows were read again by id after an event that lacked their fields (diagnostics and tests).
    public private(set) var rowReads = 0
    /// The project's revision the last list reply carried.
    public private(set) var revision: Int?

    /// The project.
    public let project: String
    /// The project's stream the list follows, if any.
    public let events: ProjectEvents?
    private let workspace: MainworthyWorkspace
    @ObservationIgnored private var lastWrite: Task<Void, Never>?

    /// Creates the list; with `events`, it follows the project's stream.
    public init(workspace: MainworthyWorkspace, project: String, events: ProjectEvents? = nil) {
        self.workspace = workspace
        self.project = project
        self.events = events
        self.list = workspace.feed(MainworthyAPI.changes(project))
        events?.subscribe(self) { [weak self] event in self?.follow(event) }
    }

    /// The changes shown, newest first, at most 500.
    public var state: ScreenState<[ChangeSummary]> { list.state.map { Array($0.items.prefix(Self.cap)) } }

    /// Reads the list, then makes sure the stream runs from the list's revision.
    public func refresh() async {
        listReads += 1
        await lastWrite?.value
        await list.refresh()
        guard list.failure == nil, list.state.kind == .content || list.state.kind == .empty else { return }
        revision = list.value?.revision
        events?.start(after: revision)
    }

    /// The page of change `id` (readable whether or not the change is still listed, M-CHG-5).
    public func change(_ id: String) -> ChangeModel {
        ChangeModel(workspace: workspace, project: project, id: id, events: events)
    }

    /// Handles one event of the project's stream: a write of the stored list (the screen shows it as it is
    /// stored); a row the event leaves without what the list shows is then read again by id.
    public func follow(_ event: ProjectEvent) {
        if event.isReset {
            Task { await self.refresh() }
            return
        }
        guard let change = event.change(decodedBy: workspace.server.bundle.client), state.value != nil else { return }
        write { reply in reply.items = Self.inserting(change, into: reply.items) }
        let row = state.value?.first { $0.id == change.id }.map { $0.merging(change) } ?? change
        if row.lacksListFields || change.updatedAt == nil {
            Task {
                await self.lastWrite?.value
                await self.readRow(change.id)
            }
        }
    }

    /// Reads row `id` by id and puts what it says into the stored list: at the top when it shows a later report.
    func readRow(_ id: String) async {
        rowReads += 1
        do throws(MainworthyError) {
            let fresh = try await workspace.server.latest(MainworthyAPI.change(project, id))
            write { reply in
                guard let index = reply.items.firstIndex(where: { $0.id == id }) else { return }
                let known = reply.items[index]
                reply.items[index] = known.merging(fresh)
                if let before = known.updatedAt, let after = fresh.updatedAt, after > before, index > 0 {
                    let row = reply.items.remove(at: index)
                    reply.items.insert(row, at: 0)
                }
            }
            await lastWrite?.value
        } catch {
            workspace.report(error)
        }
    }

    /// Changes the stored list after every change asked for before (events apply in the order they came).
    private func write(_ change: @escaping @Sendable (inout ChangeListReply) -> Void) {
        let previous = lastWrite
        let bundle = workspace.server.bundle
        let request = MainworthyAPI.changes(project)
        lastWrite = Task {
            await previous?.value
            do throws(SyncError) {
                try await bundle.update(request, change)
            } catch {
                bundle.journal.record(.storage, "a change event could not be stored: \(error.description)")
            }
        }
    }

    /// `list` with `change`: a row with a new report goes to the top, a row with the same report (a new verdict
    /// after an answer) is updated in place, keeping what the event does not say; the list is trimmed to 500
    /// (M-CHG-4, O-20). Without a report time in the event, a new head is a new report.
    public nonisolated static func inserting(_ change: ChangeSummary, into list: [ChangeSummary]) -> [ChangeSummary] {
        guard let index = list.firstIndex(where: { $0.id == change.id }) else {
            return Array(([change] + list).prefix(cap))
        }
        let known = list[index]
        let merged = known.merging(change)
        let newReport: Bool
        if let time = change.updatedAt {
            newReport = time != known.updatedAt
        } else {
            newReport = change.head != known.head
        }
        guard newReport else {
            var updated = list
            updated[index] = merged
            return updated
        }
        return Array(([merged] + list.filter { $0.id != change.id }).prefix(cap))
    }
}
