import CompanionScreen
import Foundation
import Observation

/// Changes: the newest 500, by latest report, newest first, following the project's stream.
///
/// Rules: the list holds at most 500 changes (M-CHG-2, O-20); a `change` event with a new report puts
/// its row at the top (updated, or inserted) and trims the list to 500, one with no new report updates
/// the row where it is (M-CHG-4); a `reset` event reads the list again
/// (M-CHG-11). Reading the list starts the project's stream after the list's revision, so no event
/// between the read and the stream is lost. A change's page is its own (`change(_:)`), read by id.
@Observable @MainActor
public final class ChangesScreen {
    /// The most changes the list holds.
    public static let cap = 500

    /// The list.
    public private(set) var state: ScreenState<[ChangeSummary]> = .loading
    /// How many times the list was read (diagnostics and tests).
    public private(set) var listReads = 0
    /// The project's revision the last list reply carried.
    public private(set) var revision: Int?

    /// The project.
    public let project: String
    /// The project's stream the list follows, if any.
    public let events: ProjectEvents?
    private let workspace: MainworthyWorkspace

    /// Creates the list; with `events`, it follows the project's stream.
    public init(workspace: MainworthyWorkspace, project: String, events: ProjectEvents? = nil) {
        self.workspace = workspace
        self.project = project
        self.events = events
        events?.subscribe(self) { [weak self] event in self?.follow(event) }
    }

    /// Reads the list, then makes sure the stream runs from the list's revision.
    public func refresh() async {
        listReads += 1
        do throws(MainworthyError) {
            let reply = try await workspace.connection.read(MainworthyAPI.changes(project))
            state = .content(Array(reply.items.prefix(Self.cap)), fetchedAt: workspace.now())
            revision = reply.revision
            events?.start(after: reply.revision)
        } catch {
            workspace.report(error)
            state = state.failing(with: error)
        }
    }

    /// The page of change `id` (readable whether or not the change is still listed, M-CHG-5).
    public func change(_ id: String) -> ChangeScreen {
        ChangeScreen(workspace: workspace, project: project, id: id, events: events)
    }

    /// Handles one event of the project's stream.
    public func follow(_ event: ProjectEvent) {
        if event.isReset {
            Task { await self.refresh() }
            return
        }
        guard let change = event.change, let list = state.value else { return }
        state = .content(Self.inserting(change, into: list), fetchedAt: workspace.now())
    }

    /// `list` with `change`: a row with a new report goes to the top, a row with the same report (a new
    /// verdict after an answer) is updated in place; the list is trimmed to 500 (M-CHG-4, O-20).
    public static func inserting(_ change: ChangeSummary, into list: [ChangeSummary]) -> [ChangeSummary] {
        if let index = list.firstIndex(where: { $0.id == change.id }), list[index].updatedAt == change.updatedAt {
            var updated = list
            updated[index] = change
            return updated
        }
        return Array(([change] + list.filter { $0.id != change.id }).prefix(cap))
    }
}
