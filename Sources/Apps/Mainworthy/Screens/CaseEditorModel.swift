import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The case editor: a title, preconditions and steps, a reason, Save, Cancel and Retry.
///
/// Rules:
/// - Steps can be added, removed and reordered; each is an action and an optional expected result
///   (M-EDIT-2). Limits are counted in UTF-16 units, and the whitespace warnings of O-16 keep Save
///   disabled while any stands (M-EDIT-3..6, `EditorWarning`).
/// - An edit sends `base_version` = the version opened, even if the case changed since (M-EDIT-7).
/// - Every change is kept as the draft, in the account's store (in memory only), under the project
///   (M-DRAFT-1..3).
///   Cancel asks first only if the draft differs from what was opened (M-DRAFT-4).
/// - Save's outcomes: adopted → the saved version is read back; as typed → it opens and the draft goes
///   (M-SAVE-1); different or unreadable → the draft stays and the editor says which (M-SAVE-3); waiting
///   → the proposal waits in the Queue and the draft goes (M-SAVE-2, O-17); overlap → the fields are
///   named, resolve in the web app, the draft stays (M-SAVE-4); a 422 or 409 → the server's sentence word
///   for word with its fields, the draft stays (M-SAVE-5).
/// - A lost reply offers Retry, which sends the original command (body and `Idempotency-Key`) even after
///   the draft was edited; later edits stay in the draft for a fresh Save (M-DRAFT-5, O-18).
@Observable @MainActor
public final class CaseEditorModel {
    /// What Cancel did.
    public enum CancelResult: Sendable, Hashable {
        /// Nothing changed: the editor closed.
        case closed
        /// The draft changed: the person is asked before it is discarded (`discard()`).
        case asksFirst
    }

    /// The draft.
    public private(set) var draft: CaseDraft
    /// Where the last Save ended.
    public private(set) var outcome: SaveOutcome?
    /// The saved version's page, once adopted and read back as typed.
    public private(set) var saved: CaseModel?
    /// A save whose reply was lost, kept for Retry.
    public private(set) var pendingSave: WriteCommand<ProposalReply>?
    /// Whether the editor was closed (saved, discarded or cancelled unchanged).
    public private(set) var isClosed = false

    let root: CasesRootModel

    init(root: CasesRootModel, draft: CaseDraft) {
        self.root = root
        self.draft = draft
    }

    /// What the draft is for.
    public var target: DraftTarget { draft.target }
    /// The document typed.
    public var document: CaseDocument { draft.document }

    /// The warnings standing now.
    public var warnings: [EditorWarning] { EditorWarning.check(draft.document, reason: draft.reason) }

    /// Whether Save can be pressed: no warning stands and no save is under way.
    public var canSave: Bool { warnings.isEmpty && !isSaving }

    /// Whether Retry is offered.
    public var canRetry: Bool { pendingSave != nil && !isSaving }

    /// The title's length in UTF-16 units.
    public var titleUnits: Int { draft.document.title.utf16.count }

    /// Whether a save is under way.
    public private(set) var isSaving = false

    /// Sets the title.
    public func setTitle(_ title: String) { change { $0.document.title = title } }

    /// Sets the preconditions.
    public func setPreconditions(_ text: String) { change { $0.document.preconditions = text } }

    /// Sets the reason.
    public func setReason(_ reason: String) { change { $0.reason = reason } }

    /// Add step: an empty step at the end.
    public func addStep(action: String = "", expected: String? = nil) {
        change { $0.document.steps.append(CaseStep(action: action, expected: expected)) }
    }

    /// Sets step `index`'s action (0-based).
    public func setAction(_ action: String, at index: Int) {
        guard draft.document.steps.indices.contains(index) else { return }
        change { $0.document.steps[index].action = action }
    }

    /// Sets step `index`'s expected result (0-based); empty is none.
    public func setExpected(_ expected: String?, at index: Int) {
        guard draft.document.steps.indices.contains(index) else { return }
        change { $0.document.steps[index].expected = expected }
    }

    /// Removes step `index`.
    public func removeStep(at index: Int) {
        guard draft.document.steps.indices.contains(index) else { return }
        change { _ = $0.document.steps.remove(at: index) }
    }

    /// Moves step `from` to position `to` (0-based, in the list without it).
    public func moveStep(from: Int, to: Int) {
        let steps = draft.document.steps
        guard steps.indices.contains(from), (0...max(0, steps.count - 1)).contains(to) else { return }
        change {
            let step = $0.document.steps.remove(at: from)
            $0.document.steps.insert(step, at: to)
        }
    }

    /// Cancel: closes at once when unchanged; asks first when the draft changed.
    public func cancel() -> CancelResult {
        if draft.isChanged { return .asksFirst }
        root.discard(draft.target)
        isClosed = true
        return .closed
    }

    /// Discards the draft (the answer to Cancel's question).
    public func discard() {
        root.discard(draft.target)
        isClosed = true
    }

    /// Save: sends the draft as a proposal.
    public func save() async {
        guard canSave else { return }
        let body = ProposalBody(operation, document: draft.document, reason: draft.reason)
        await send(root.workspace.server.command(MainworthyAPI.propose(root.project, body)), document: body.document)
    }

    /// Retry of a save whose reply was lost: the original command, whatever the draft says now.
    public func retry() async {
        guard let command = pendingSave, let document = pendingDocument, !isSaving else { return }
        await send(command, document: document)
    }

    private var operation: ProposalBody.Operation {
        switch draft.target {
        case .newCase(let folderID): return .createCase(folderID: folderID)
        case .edit(let caseID, let baseVersion): return .editCase(caseID: caseID, baseVersion: baseVersion)
        }
    }

    private func change(_ edit: (inout CaseDraft) -> Void) {
        edit(&draft)
        root.keep(draft)
    }

    /// The document of the save kept for Retry, as it was sent.
    private var pendingDocument: CaseDocument?

    private func send(_ command: WriteCommand<ProposalReply>, document: CaseDocument) async {
        isSaving = true
        defer { isSaving = false }
        do throws(MainworthyError) {
            let reply = try await root.workspace.server.perform(command)
            pendingSave = nil
            pendingDocument = nil
            if let revision = reply.revision { root.projectRevisionChanged(revision) }
            await settle(reply.proposal, sent: document)
        } catch {
            root.workspace.report(error)
            switch error {
            case .unconfirmed:
                pendingSave = command
                pendingDocument = document
                outcome = .unconfirmed(error.description)
            case .refused(let refusal):
                pendingSave = nil
                outcome = .refused(message: refusal.message, fields: refusal.fields)
            default:
                pendingSave = nil
                outcome = .failed(error.description)
            }
        }
    }

    private func settle(_ proposal: ProposalReply.Proposal, sent typed: CaseDocument) async {
        switch proposal.state {
        case "adopted":
            guard let caseID = proposal.caseID, let version = proposal.version else {
                outcome = .failed("The server adopted the proposal but did not say which version it made.")
                return
            }
            // The saved version is read back from the server, never from a copy kept before the save.
            let page = CaseModel(root: root, caseID: caseID, version: nil)
            await page.refresh(policy: .fresh)
            guard case .content(let read, _) = page.state else {
                outcome = .adoptedButUnread(caseID: caseID, version: version, problem: page.state.problem ?? "")
                return
            }
            let readVersion = read.version ?? version
            let differing = Self.differingFields(typed, read.document.normalized)
            if readVersion != version || !differing.isEmpty {
                outcome = .adoptedButDifferent(
                    caseID: caseID, version: readVersion, fields: differing.isEmpty ? ["version"] : differing)
                return
            }
            root.discard(draft.target)
            await root.caseSaved(caseID, title: read.document.title, version: readVersion)
            saved = page
            outcome = .adopted(caseID: caseID, version: version)
            if draft.document.normalized != typed {
                // Edited after the save left (O-18): the later edits stay, now on top of the saved version.
                var later = CaseDraft(target: .edit(caseID: caseID, baseVersion: readVersion), opened: read.document)
                later.document = draft.document
                later.reason = draft.reason
                draft = later
                root.keep(later)
            } else {
                isClosed = true
            }
        case "waiting":
            root.discard(draft.target)
            isClosed = true
            outcome = .waiting(questionID: proposal.questionID)
        case "overlap":
            outcome = .overlap(
                fields: proposal.overlap?.fields ?? [], with: proposal.overlap?.with, questionID: proposal.questionID)
        default:
            outcome = .failed("The server answered with a proposal state this app does not know: \(proposal.state).")
        }
    }

    static func differingFields(_ typed: CaseDocument, _ read: CaseDocument) -> [String] {
        var fields: [String] = []
        if typed.title != read.title { fields.append("title") }
        if typed.preconditions != read.preconditions { fields.append("preconditions") }
        if typed.steps != read.steps { fields.append("steps") }
        return fields
    }
}
