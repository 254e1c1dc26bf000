import Foundation

/// What a change is made from: its branch, its pull request, or both.
public struct ChangeRef: Sendable, Hashable, Codable {
    /// The branch, if the pipeline named one.
    public var branch: String?
    /// The pull request's number, if the pipeline named one.
    public var pullRequest: Int?

    /// Creates a reference.
    public init(branch: String? = nil, pullRequest: Int? = nil) {
        self.branch = branch
        self.pullRequest = pullRequest
    }

    /// "feat/cart #412", "feat/cart" or "#412".
    public var label: String {
        [branch, pullRequest.map { "#\($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    enum CodingKeys: String, CodingKey {
        case branch
        case pullRequest = "pull_request"
    }
}
