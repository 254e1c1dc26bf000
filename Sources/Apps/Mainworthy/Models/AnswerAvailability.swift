import Foundation

/// Whether a question's answers can be pressed on its page, and if not, why.
///
/// Rules, in order: answers are listed but greyed for a `link` or `overlap` question (M-WEB-1), for a
/// proposal with any edit other than `create_case`/`edit_case` (M-WEB-2) or with more than 20 edits
/// (M-WEB-3); without the `decide` capability (M-CAP-4); and for a create/edit proposal until every edit
/// has loaded and the view has reported showing the last one (M-WEB-4).
public struct AnswerAvailability: Sendable, Hashable {
    /// Why the answers are off.
    public enum Blocker: Sendable, Hashable {
        /// Answered in the web app.
        case web(WebHandoff)
        /// The project does not grant `decide`.
        case missingCapability
        /// Not every edit has loaded yet (`loaded` of `total`).
        case editsLoading(loaded: Int, total: Int)
        /// Every edit loaded, but the last has not been on screen.
        case lastEditNotShown
    }

    /// The most edits the app shows step by step.
    public static let maxShownEdits = 20

    /// `nil` when the answers can be pressed.
    public var blocker: Blocker?
    /// The web app's page for the question, when the app sends the person there.
    public var webLink: WebLink?

    /// Whether the answers can be pressed.
    public var isEnabled: Bool { blocker == nil }

    /// Evaluates the rules for `question` in a project granting `capabilities`; `lastEditShown` is what
    /// the view reported.
    public static func evaluate(
        _ question: Question, capabilities: Set<Capability>, lastEditShown: Bool
    ) -> AnswerAvailability {
        if let handoff = handoff(for: question) {
            return AnswerAvailability(
                blocker: .web(handoff), webLink: question.webURL.map { WebLink(url: $0, reason: handoff) })
        }
        guard capabilities.contains(.decide) else { return AnswerAvailability(blocker: .missingCapability) }
        if question.kind == .proposal, let proposal = question.evidence.proposal {
            if proposal.edits.count < proposal.editCount {
                return AnswerAvailability(
                    blocker: .editsLoading(loaded: proposal.edits.count, total: proposal.editCount))
            }
            if !lastEditShown { return AnswerAvailability(blocker: .lastEditNotShown) }
        }
        return AnswerAvailability(blocker: nil)
    }

    /// Why `question` is answered in the web app, or `nil` when the app can answer it.
    public static func handoff(for question: Question) -> WebHandoff? {
        let known: Set<QuestionKind> = [.failure, .proposal, .review, .signOff]
        guard known.contains(question.kind) else { return .kind(question.kind) }
        guard question.kind == .proposal else { return nil }
        guard let proposal = question.evidence.proposal else { return .kind(question.kind) }
        if let other = proposal.edits.first(where: { !ProposalEdit.shownOperations.contains($0.op) }) {
            return .unsupportedEdit(other.op)
        }
        if proposal.editCount > maxShownEdits { return .tooManyEdits(proposal.editCount) }
        return nil
    }
}
