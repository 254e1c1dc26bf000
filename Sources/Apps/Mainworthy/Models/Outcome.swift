import Foundation

/// The outcome of a result. A person records `pass`, `fail`, `blocked` or `skip` (M-RUN-6); `error`
/// comes only from a pipeline's report, on a run that accepts its commit (M-PLAN-5).
public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// The case passed.
    case pass
    /// The case failed, at the marked step if any.
    case fail
    /// The case could not be run.
    case blocked
    /// The case was skipped.
    case skip
    /// The test errored in a pipeline; never recorded by hand.
    case error

    /// The outcomes a person can record, in the order the buttons show them.
    public static let manual: [Outcome] = [.pass, .fail, .blocked, .skip]
}
