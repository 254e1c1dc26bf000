import Foundation

/// The body of a plan: `POST …/runs` (M-PLAN-1).
public struct PlanBody: Sendable, Hashable, Encodable {
    /// The run's name.
    public var name: String
    /// The cases.
    public var selection: PlanSelection
    /// The commit whose pipeline results the run accepts, if any.
    public var acceptsCommit: String?

    /// Creates a body.
    public init(name: String, selection: PlanSelection, acceptsCommit: String?) {
        self.name = name
        self.selection = selection
        self.acceptsCommit = acceptsCommit
    }

    enum CodingKeys: String, CodingKey {
        case name, selection
        case acceptsCommit = "accepts_commit"
    }

    /// Encodes every member, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(selection, forKey: .selection)
        try container.encode(acceptsCommit, forKey: .acceptsCommit)
    }

    /// The body for what was typed, or why nothing may be sent.
    public static func make(name: String, selection: PlanSelection, commit: String) -> Result<PlanBody, InputProblem> {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return .failure(.nameRequired) }
        if case .search(let text) = selection, text.trimmingCharacters(in: .whitespaces).isEmpty {
            return .failure(.searchTextRequired)
        }
        let commit = commit.trimmingCharacters(in: .whitespacesAndNewlines)
        return .success(PlanBody(name: name, selection: selection, acceptsCommit: commit.isEmpty ? nil : commit))
    }
}
