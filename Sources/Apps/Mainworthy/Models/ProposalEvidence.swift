import CompanionCore
import Foundation

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
