import Foundation

/// What a case says: a title, preconditions and steps (M-EDIT-2). One concept wherever a case's text appears: a
/// case's page, an old version, a slot's pinned case, a proposal's document, a draft.
public struct CaseDocument: Sendable, Hashable, Codable {
    /// The title.
    public var title: String
    /// The preconditions; empty when there are none.
    public var preconditions: String
    /// The steps, in order.
    public var steps: [CaseStep]

    /// Creates a document.
    public init(title: String = "", preconditions: String = "", steps: [CaseStep] = []) {
        self.title = title
        self.preconditions = preconditions
        self.steps = steps
    }

    enum CodingKeys: String, CodingKey { case title, preconditions, steps }

    /// Decodes `{"title", "preconditions", "steps"}`; missing or `null` preconditions are none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        preconditions = try container.decodeIfPresent(String.self, forKey: .preconditions) ?? ""
        steps = try container.decode([CaseStep].self, forKey: .steps)
    }

    /// Encodes the three members.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(preconditions, forKey: .preconditions)
        try container.encode(steps, forKey: .steps)
    }

    /// The document as the server keeps it: an empty expected result is no expected result.
    public var normalized: CaseDocument {
        CaseDocument(
            title: title, preconditions: preconditions,
            steps: steps.map { CaseStep(action: $0.action, expected: ($0.expected ?? "").isEmpty ? nil : $0.expected) })
    }
}
