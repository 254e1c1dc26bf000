import CompanionCore
import Foundation

/// What a question's page shows as evidence, by kind (M-QUEUE-7): what failed and where, what an edit
/// changes, what a review found. The parts of other kinds stay available as JSON.
public struct Evidence: Sendable, Hashable, Codable {
    /// A failing test: test, message, job, commit and location.
    public var failure: FailureEvidence?
    /// A proposal's edits.
    public var proposal: ProposalEvidence?
    /// A review's finding.
    public var review: ReviewEvidence?
    /// Every member as sent, for kinds without a typed part (link, overlap, sign-off).
    public var raw: JSONValue?

    /// Creates evidence.
    public init(
        failure: FailureEvidence? = nil, proposal: ProposalEvidence? = nil, review: ReviewEvidence? = nil,
        raw: JSONValue? = nil
    ) {
        self.failure = failure
        self.proposal = proposal
        self.review = review
        self.raw = raw
    }

    enum CodingKeys: String, CodingKey {
        case failure, proposal, review
    }

    /// Decodes the typed parts and keeps the whole object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        failure = try container.decodeIfPresent(FailureEvidence.self, forKey: .failure)
        proposal = try container.decodeIfPresent(ProposalEvidence.self, forKey: .proposal)
        review = try container.decodeIfPresent(ReviewEvidence.self, forKey: .review)
        raw = try JSONValue(from: decoder)
    }

    /// Encodes the object as it came.
    public func encode(to encoder: any Encoder) throws {
        if let raw {
            try raw.encode(to: encoder)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(failure, forKey: .failure)
        try container.encodeIfPresent(proposal, forKey: .proposal)
        try container.encodeIfPresent(review, forKey: .review)
    }
}

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

/// What a review found.
public struct ReviewEvidence: Sendable, Hashable, Codable {
    /// The finding, in the reviewer's words.
    public var finding: String
    /// The reviewer.
    public var by: Person?

    /// Creates review evidence.
    public init(finding: String, by: Person? = nil) {
        self.finding = finding
        self.by = by
    }
}

/// A proposal's edits as loaded so far, and how many it has in all.
public struct ProposalEvidence: Sendable, Hashable, Codable {
    /// How many edits the proposal has.
    public var editCount: Int
    /// The edits loaded so far.
    public var edits: [ProposalEdit]

    /// Creates proposal evidence.
    public init(editCount: Int, edits: [ProposalEdit]) {
        self.editCount = editCount
        self.edits = edits
    }

    enum CodingKeys: String, CodingKey {
        case edits
        case editCount = "edit_count"
    }
}

/// One edit of a proposal.
public struct ProposalEdit: Sendable, Hashable, Codable {
    /// `create_case`, `edit_case`, `restore_version`, `move`, `tag`, `archive`, `make_folder` or `change_policy`.
    public var op: String
    /// The case edited, such as `C-12`.
    public var caseNumber: String?
    /// The version the edit starts from.
    public var baseVersion: Int?
    /// A new case's document.
    public var document: JSONValue?
    /// An edit's changes, field by field, as `[old, new]`.
    public var changes: JSONValue?

    /// The two operations the app can show step by step (M-WEB-2).
    public static let shownOperations: Set<String> = ["create_case", "edit_case"]

    /// Creates an edit.
    public init(
        op: String, caseNumber: String? = nil, baseVersion: Int? = nil, document: JSONValue? = nil,
        changes: JSONValue? = nil
    ) {
        self.op = op
        self.caseNumber = caseNumber
        self.baseVersion = baseVersion
        self.document = document
        self.changes = changes
    }

    enum CodingKeys: String, CodingKey {
        case op, document, changes
        case caseNumber = "case"
        case baseVersion = "base_version"
    }
}
