import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// A change's page: head and base, the gate's verdict and reason, the failing tests with their linked
/// cases, the cases it touches and its open questions, all read for one head.
///
/// Rules:
/// - Every part names the head it describes; parts naming different heads make the whole read repeat
///   once (M-CHG-6). If the head moves again, the page says the change moved while it was being read and
///   keeps the previous page; without one, only that sentence is shown. A page never mixes two heads
///   (M-CHG-7). A pull afterwards is a new read with its own single repeat (M-CHG-8).
/// - An answer from this page follows the queue's rules (its `QuestionModel`); once confirmed, the gate
///   is read again (M-CHG-9).
/// - A merged or closed change is marked ended and shows the last verdict of its last head; the page has
///   no action that ends a change or runs tests again (M-CHG-10).
/// - The page follows the project's stream: an event that gives this change a new head reads the page
///   again, as does a `reset` (M-CHG-4, M-CHG-11). It is read by id, so it stays readable after the
///   change leaves the list (M-CHG-5).
@Observable @MainActor
public final class ChangeModel {
    /// What the page offers. Nothing ends a change or runs its tests again (M-CHG-10).
    public enum Action: String, Sendable, CaseIterable {
        /// Pull to read the page again.
        case refresh
        /// Open one of the change's questions to answer it.
        case openQuestion
    }

    /// The sentence shown when the head moved during a read and again during its repeat (M-CHG-7).
    public static let movedSentence = "The change moved while it was being read. Pull down to try again."

    /// The page.
    public private(set) var state: ScreenState<ChangePage> = .loading
    /// Set when the last read gave up because the head kept moving; the previous page (if any) stays.
    public private(set) var moved: String?
    /// How many part-sets were read in the last read (1, or 2 after a repeat).
    public private(set) var lastReadAttempts = 0
    /// How many reads (pulls, event re-reads) were made.
    public private(set) var reads = 0
    /// The question opened from the page, if any.
    public private(set) var question: QuestionModel?

    /// The project.
    public let project: String
    /// The change's id.
    public let id: String
    private let workspace: MainworthyWorkspace
    @ObservationIgnored private var readNumber = 0

    /// The page of change `id`; with `events`, it follows the project's stream.
    public init(workspace: MainworthyWorkspace, project: String, id: String, events: ProjectEvents? = nil) {
        self.workspace = workspace
        self.project = project
        self.id = id
        events?.subscribe(self) { [weak self] event in self?.follow(event) }
    }

    /// What the page offers.
    public var actions: [Action] { Action.allCases }

    /// Whether the change was merged or closed (M-CHG-10).
    public var isEnded: Bool { state.value?.change.isEnded ?? false }

    /// Reads the page: all four parts, repeated once if their heads differ (M-CHG-6..8).
    public func refresh() async {
        readNumber += 1
        let number = readNumber
        reads += 1
        let server = workspace.server
        let (project, id) = (self.project, self.id)
        do {
            let outcome = try await ConsistentRead.read(
                previous: state.value, versions: \.partHeads,
                read: { try await Self.readParts(server, project: project, id: id) })
            guard number == readNumber else { return }
            switch outcome {
            case .consistent(let page, _, let attempts):
                lastReadAttempts = attempts
                moved = nil
                state = .content(page, fetchedAt: workspace.now())
            case .moved(let previous, _):
                lastReadAttempts = 2
                moved = Self.movedSentence
                if previous == nil { state = .failed(reason: Self.movedSentence, signInRequired: false) }
            }
        } catch {
            guard number == readNumber else { return }
            let failure = error as? MainworthyError ?? .other("\(error)")
            state = workspace.failing(state, with: failure)
        }
    }

    /// Reads the gate again (after an answer, M-CHG-9). A gate naming another head reads the whole page.
    public func refreshGate() async {
        guard let page = state.value else { return await refresh() }
        do throws(MainworthyError) {
            let gate = try await workspace.server.read(MainworthyAPI.gate(project, change: id))
            guard gate.head == page.head else { return await refresh() }
            guard var current = state.value, current.head == gate.head else { return }
            current.gate = gate
            state = .content(current, fetchedAt: workspace.now())
        } catch {
            state = workspace.failing(state, with: error)
        }
    }

    /// Opens one of the change's questions; a confirmed answer reads the gate again (M-CHG-9).
    @discardableResult
    public func openQuestion(_ questionID: String) async -> QuestionModel {
        let screen = QuestionModel(workspace: workspace, project: project, id: questionID) { [weak self] _, _ in
            guard let self else { return }
            Task { await self.refreshGate() }
        }
        question = screen
        await screen.refresh()
        return screen
    }

    /// Handles one event of the project's stream.
    public func follow(_ event: ProjectEvent) {
        if event.isReset {
            Task { await self.refresh() }
            return
        }
        guard event.kind == "change", event.subject == id, let shown = state.value else { return }
        if let change = event.change, change.head != shown.head {
            Task { await self.refresh() }
        } else if let change = event.change, change.gate?.verdict != shown.gate.verdict {
            Task { await self.refreshGate() }
        }
    }

    /// The four parts, one after the other: the change, its gate, its failing tests, its cases.
    nonisolated static func readParts(_ server: MainworthyServer, project: String, id: String)
        async throws(MainworthyError) -> ChangePage
    {
        let change = try await server.read(MainworthyAPI.change(project, id))
        let gate = try await server.read(MainworthyAPI.gate(project, change: id))
        let failing = try await server.read(MainworthyAPI.failingTests(project, change: id))
        let cases = try await server.read(MainworthyAPI.changeCases(project, change: id))
        return ChangePage(
            change: change, gate: gate, failingTests: failing.items, cases: cases.items,
            partHeads: [change.head, gate.head, failing.head, cases.head])
    }
}
