import Foundation

/// The body of `POST P/proposals`: a new case or an edit of one.
///
/// Rules: a new case without a folder goes to Unsorted (`folder_id: null`, M-EDIT-1); an edit names the
/// version it was opened at as `base_version`, even when the case changed since (M-EDIT-7); an empty
/// reason is `null` (M-EDIT-4).
public struct ProposalBody: Sendable, Hashable, Encodable {
    /// What is proposed.
    public enum Operation: Sendable, Hashable {
        /// A new case in a folder, or in Unsorted with `nil`.
        case createCase(folderID: String?)
        /// An edit of a case, from the version opened.
        case editCase(caseID: String, baseVersion: Int)
    }

    /// What is proposed.
    public var operation: Operation
    /// The document typed, with empty expected results as `null`.
    public var document: CaseDocument
    /// The reason, or `nil`.
    public var reason: String?

    /// Creates a body.
    public init(_ operation: Operation, document: CaseDocument, reason: String?) {
        self.operation = operation
        self.document = document.normalized
        self.reason = (reason ?? "").isEmpty ? nil : reason
    }

    enum CodingKeys: String, CodingKey {
        case op, document, reason
        case folderID = "folder_id"
        case caseID = "case_id"
        case baseVersion = "base_version"
    }

    /// Encodes the operation's members, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch operation {
        case .createCase(let folderID):
            try container.encode("create_case", forKey: .op)
            try container.encode(folderID, forKey: .folderID)
        case .editCase(let caseID, let baseVersion):
            try container.encode("edit_case", forKey: .op)
            try container.encode(caseID, forKey: .caseID)
            try container.encode(baseVersion, forKey: .baseVersion)
        }
        try container.encode(document, forKey: .document)
        try container.encode(reason, forKey: .reason)
    }
}
