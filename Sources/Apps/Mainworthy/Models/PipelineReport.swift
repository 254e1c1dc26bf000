import Foundation

/// A pipeline report's body.
public struct PipelineReport: Sendable, Hashable, Codable {
    /// One test's result.
    public struct Result: Sendable, Hashable, Codable {
        /// The test's name.
        public var test: String
        /// `pass`, `fail`, `error`, `skip` or `blocked`.
        public var outcome: String
        /// The failure's message.
        public var message: String?
        /// Linked case numbers (`C-12`).
        public var cases: [String]

        /// Creates a result.
        public init(test: String, outcome: String, message: String? = nil, cases: [String] = []) {
            self.test = test
            self.outcome = outcome
            self.message = message
            self.cases = cases
        }
    }

    /// The commit tested.
    public var commit: String
    /// The base commit.
    public var base: String?
    /// The branch, if any.
    public var branch: String?
    /// The pull request, if any.
    public var pullRequest: Int?
    /// The job's name.
    public var job: String
    /// The results.
    public var results: [Result]
    /// Case numbers the change touches.
    public var touches: [String]
    /// `open`, `merged` or `closed`; `nil` keeps the change's state.
    public var state: String?

    /// Creates a report.
    public init(
        commit: String, base: String? = nil, branch: String? = nil, pullRequest: Int? = nil, job: String = "e2e",
        results: [Result] = [], touches: [String] = [], state: String? = nil
    ) {
        self.state = state
        self.commit = commit
        self.base = base
        self.branch = branch
        self.pullRequest = pullRequest
        self.job = job
        self.results = results
        self.touches = touches
    }

    enum CodingKeys: String, CodingKey {
        case commit, base, branch, job, results, touches, state
        case pullRequest = "pull_request"
    }
}

/// `POST P/reports` → 202: the change made or updated, or `nil` for a report naming neither a branch nor
/// a pull request (M-CHG-1).
public struct ReportReply: Sendable, Hashable, Codable {
    /// The change's id.
    public var change: String?
}
