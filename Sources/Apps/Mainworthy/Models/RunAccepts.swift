import Foundation

/// Which results a run accepts: manual ones, and pipeline results for one commit (M-RUN-1, M-PLAN-5).
public struct RunAccepts: Sendable, Hashable, Codable {
    /// Whether manual results are accepted.
    public var manual: Bool
    /// The commit whose pipeline results it accepts, if any.
    public var commit: String?

    /// Creates the accepted results.
    public init(manual: Bool, commit: String?) {
        self.manual = manual
        self.commit = commit
    }

    /// "Manual results, and pipeline results for a1b2c3d".
    public var sentence: String {
        let manual = manual ? "Manual results" : "No manual results"
        return commit.map { "\(manual), and pipeline results for \($0)" } ?? manual
    }
}
