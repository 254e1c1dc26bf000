import Foundation

/// What failed and where.
public struct FailureEvidence: Sendable, Hashable, Codable {
    /// The test's name.
    public var test: String
    /// The failure message.
    public var message: String?
    /// The pipeline job.
    public var job: String?
    /// The commit tested.
    public var commit: String?
    /// The file and line.
    public var location: String?

    /// Creates failure evidence.
    public init(
        test: String, message: String? = nil, job: String? = nil, commit: String? = nil, location: String? = nil
    ) {
        self.test = test
        self.message = message
        self.job = job
        self.commit = commit
        self.location = location
    }
}
