import CompanionApp
import CompanionHTTP
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
    public nonisolated static let movedSentence = "The change moved while it was being read. Pull down to try again."

    /// The page: the four parts, read whole through the account's store (a snapshot group), or not at all.
    public let page: ScreenFeed<ChangePage>
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
    /// The state after the head moved twice (the kit's failure rule, with the moved sentence).
    private var movedState: ScreenState<ChangePage>?

    /// The page of change `id`; with `events`, it follows the project's stream.
    public init(workspace: MainworthyWorkspace, project: String, id: String, events: ProjectEvents? = nil) {
        self.workspace = workspace
        self.project = project
        self.id = id
        page = workspace.feed(Self.parts(project, id)) { $0 }
        events?.subscribe(self) { [weak self] event in self?.follow(event) }
    }

    /// What the page shows: the last page read on one head, or, when the head kept moving, the moved sentence.
    public var state: ScreenState<ChangePage> { movedState ?? page.state }

    /// What the page offers.
    public var actions: [Action] { Action.allCases }

    /// Whether the change was merged or closed (M-CHG-10).
    public var isEnded: Bool { state.value?.change.isEnded ?? false }

    /// Reads the page: all four parts, repeated once if their heads differ (M-CHG-6..8). A read whose parts name
    /// different heads is never shown: the page keeps what it showed (M-CHG-7).
    public func refresh() async {
        readNumber += 1
        let number = readNumber
        reads += 1
        for attempt in 1...2 {
            await page.refresh(.fresh)
            guard number == readNumber else { return }
            lastReadAttempts = attempt
            guard headsDiffered else {
                moved = nil
                movedState = nil
                return
            }
        }
        moved = Self.movedSentence
        movedState = workspace.server.bundle.failing(page.state, with: ChangeMoved()).state
    }

    /// Whether the last read failed because its parts named different heads.
    private var headsDiffered: Bool {
        guard case .undecodable(let key, let detail) = page.cause else { return false }
        return key == Self.parts(project, id).name && detail.contains(ChangeMoved.detail)
    }

    /// Reads the gate again (after an answer, M-CHG-9): with the other parts, so the page stays on one head.
    public func refreshGate() async {
        await refresh()
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
        let client = workspace.server.bundle.client
        guard event.kind == "change", event.subject == id, let shown = state.value else { return }
        if let change = event.change(decodedBy: client), change.head != shown.head {
            Task { await self.refresh() }
        } else if let change = event.change(decodedBy: client), change.gate?.verdict != shown.gate.verdict {
            Task { await self.refreshGate() }
        }
    }

    /// The four parts of the page as one snapshot group: the change, its gate, its failing tests, its cases. A
    /// group whose parts name different heads does not assemble (nothing of it is shown).
    nonisolated static func parts(_ project: String, _ id: String) -> Snapshot<ChangePage> {
        let change = MainworthyAPI.change(project, id)
        let gate = MainworthyAPI.gate(project, change: id)
        let failing = MainworthyAPI.failingTests(project, change: id)
        let cases = MainworthyAPI.changeCases(project, change: id)
        return Snapshot(
            "change:\(project):\(id)", members: ["change": change, "gate": gate, "failing": failing, "cases": cases]
        ) { members throws(HTTPError) in
            let summary = try members.value(change)
            let verdict = try members.value(gate)
            let tests = try members.value(failing)
            let touched = try members.value(cases)
            let heads = [summary.head, verdict.head, tests.head, touched.head]
            guard Set(heads).count == 1 else {
                throw .undecodable(
                    HTTPError.DecodingFailure(
                        type: "ChangePage", path: "", detail: "\(ChangeMoved.detail): \(heads.joined(separator: ", "))",
                        url: change.path))
            }
            return ChangePage(
                change: summary, gate: verdict, failingTests: tests.items, cases: touched.items, partHeads: heads)
        }
    }
}

/// The head of a change moved during a read and again during its repeat (M-CHG-7).
struct ChangeMoved: Error, CustomStringConvertible {
    /// What a read whose parts name different heads says.
    static let detail = "the parts name different heads"

    var description: String { ChangeModel.movedSentence }
}
