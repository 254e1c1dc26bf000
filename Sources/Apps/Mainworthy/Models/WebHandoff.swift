import Foundation

/// Why a question is answered in the web app instead of here.
public enum WebHandoff: Sendable, Hashable {
    /// Linking a test to a case, or resolving an overlapping edit (M-WEB-1), or a kind this app does not know.
    case kind(QuestionKind)
    /// A proposal with an edit other than writing or changing a case: restore, move, tag, archive, a
    /// folder, the policy (M-WEB-2).
    case unsupportedEdit(String)
    /// A proposal with more edits than the app shows (M-WEB-3).
    case tooManyEdits(Int)

    /// The sentence shown beside the button that opens the web app.
    public var sentence: String {
        switch self {
        case .kind(let kind) where kind == .link:
            return "Linking a test to a case is done in the web app."
        case .kind(let kind) where kind == .overlap:
            return "Resolving overlapping edits is done in the web app."
        case .kind:
            return "This question is answered in the web app."
        case .unsupportedEdit(let op):
            let what = op.replacingOccurrences(of: "_", with: " ")
            return "This proposal does more than write or change a case (\(what)); answer it in the web app."
        case .tooManyEdits(let count):
            return
                "This proposal has \(count) edits, more than the app shows (\(AnswerAvailability.maxShownEdits)); answer it in the web app."
        }
    }
}

/// A link into the web app, as a value: where it goes and why the app sends the person there.
public struct WebLink: Sendable, Hashable {
    /// The question's (or case's) page in the web app.
    public var url: URL
    /// Why.
    public var reason: WebHandoff

    /// Creates a link.
    public init(url: URL, reason: WebHandoff) {
        self.url = url
        self.reason = reason
    }
}
