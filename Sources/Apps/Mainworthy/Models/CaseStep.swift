import Foundation

/// One step of a case.
public struct CaseStep: Sendable, Hashable, Codable {
    /// What to do.
    public var action: String
    /// What should happen, if written.
    public var expected: String?

    /// Creates a step.
    public init(action: String, expected: String? = nil) {
        self.action = action
        self.expected = expected
    }
}
