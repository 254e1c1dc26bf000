import Foundation

/// A failing test of the change's head, with its linked cases.
///
/// Rule (M-CHG-3, §2): an item is `{"test", "message", "cases"}`; its outcome, job and question are shown when
/// the server adds them, and a page with failing tests opens without them.
public struct FailingTest: Sendable, Hashable, Codable {
    /// The test's name.
    public var test: String
    /// `fail` or `error`, when the server says.
    public var outcome: String?
    /// The failure's message.
    public var message: String?
    /// The pipeline job, when the server says.
    public var job: String?
    /// The failure question, when the server names it.
    public var question: FailureQuestionMark?
    /// The linked cases.
    public var cases: [CaseLink]

    /// Creates a failing test.
    public init(
        test: String, outcome: String? = nil, message: String? = nil, job: String? = nil,
        question: FailureQuestionMark? = nil, cases: [CaseLink] = []
    ) {
        self.test = test
        self.outcome = outcome
        self.message = message
        self.job = job
        self.question = question
        self.cases = cases
    }

    enum CodingKeys: String, CodingKey { case test, outcome, message, job, question, cases }

    /// Decodes an item; members §2 does not show are read when they are there and have a known shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        test = try container.decode(String.self, forKey: .test)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        cases = try container.decodeIfPresent([CaseLink].self, forKey: .cases) ?? []
        outcome = (try? container.decodeIfPresent(String.self, forKey: .outcome)) ?? nil
        job = (try? container.decodeIfPresent(String.self, forKey: .job)) ?? nil
        question = (try? container.decodeIfPresent(FailureQuestionMark.self, forKey: .question)) ?? nil
    }
}

/// The question asked about a failing test, when the failing-tests part names it.
public struct FailureQuestionMark: Sendable, Hashable, Codable {
    /// The question's id.
    public var id: String
    /// `open` or `decided`.
    public var state: String?
    /// The answer standing, if any (`flaky`, `defect`, …).
    public var answer: String?
}
