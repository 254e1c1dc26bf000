import Foundation

/// Input the app refuses before sending anything.
public enum InputProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The answer needs a reason.
    case reasonRequired(answer: String)
    /// The withdrawal needs a reason.
    case withdrawalReasonRequired
    /// The run needs a name.
    case nameRequired
    /// The search selection needs text.
    case searchTextRequired

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .reasonRequired(let answer): return "“\(answer)” needs a reason. Type one, then answer again."
        case .withdrawalReasonRequired: return "Withdrawing this decision needs a reason. Type one, then undo again."
        case .nameRequired: return "Give the run a name."
        case .searchTextRequired: return "Type the text to search for."
        }
    }
}
