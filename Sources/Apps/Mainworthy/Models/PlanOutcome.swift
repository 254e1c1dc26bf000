import Foundation

/// Where planning a run ended.
public enum PlanOutcome: Sendable, Hashable {
    /// The run was planned and read: open it.
    case planned(runID: String, slotCount: Int)
    /// The run was planned (201) but could not be read: Read run again reads it without planning another
    /// (M-PLAN-2).
    case plannedButUnread(runID: String, slotCount: Int, problem: String)
    /// Nothing was planned, or it is not known: the sentence says which.
    case failed(String)

    /// "Planned 14 slots." for a planned run.
    public var sentence: String {
        switch self {
        case .planned(_, let count), .plannedButUnread(_, let count, _):
            return "Planned \(count) \(count == 1 ? "slot" : "slots")."
        case .failed(let sentence):
            return sentence
        }
    }
}
