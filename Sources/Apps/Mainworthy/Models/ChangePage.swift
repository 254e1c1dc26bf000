import Foundation

/// A change's page: the change, its gate, its failing tests and the cases it touches, all read for one
/// head (M-CHG-3, M-CHG-6).
public struct ChangePage: Sendable, Hashable {
    /// The change (head and base commits, ref, state).
    public var change: ChangeSummary
    /// The gate.
    public var gate: Gate
    /// The failing tests with their linked cases.
    public var failingTests: [FailingTest]
    /// The cases the change touches.
    public var cases: [CaseLink]
    /// The heads the four parts named, in the order read (the change, gate, failing tests, cases).
    public var partHeads: [String]

    /// Creates a page.
    public init(change: ChangeSummary, gate: Gate, failingTests: [FailingTest], cases: [CaseLink], partHeads: [String])
    {
        self.change = change
        self.gate = gate
        self.failingTests = failingTests
        self.cases = cases
        self.partHeads = partHeads
    }

    /// The head every part describes.
    public var head: String { change.head }
    /// The open questions of the change (the gate's).
    public var openQuestions: [GateQuestion] { gate.questions }
}
