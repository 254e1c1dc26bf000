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
    public var document: CaseText
    /// The reason, or `nil`.
    public var reason: String?

    /// Creates a body.
    public init(_ operation: Operation, document: CaseText, reason: String?) {
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

/// `POST P/proposals` → 201.
public struct ProposalReply: Sendable, Hashable, Codable {
    /// Where an overlapping edit collided.
    public struct Overlap: Sendable, Hashable, Codable {
        /// The fields both edits change.
        public var fields: [String]
        /// The other proposal, when the server names one.
        public var with: String?
    }

    /// The proposal.
    public struct Proposal: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// `adopted`, `waiting` or `overlap`.
        public var state: String
        /// The case, once there is one.
        public var caseID: String?
        /// The case's number, when adopted.
        public var number: String?
        /// The version made, when adopted.
        public var version: Int?
        /// The question in the Queue, when waiting or overlapping.
        public var questionID: String?
        /// The overlap, when overlapping.
        public var overlap: Overlap?

        enum CodingKeys: String, CodingKey {
            case id, state, number, version, overlap
            case caseID = "case_id"
            case questionID = "question_id"
        }
    }

    /// The proposal.
    public var proposal: Proposal
    /// The project's revision after it.
    public var revision: Int?
}

/// Where a Save ended, as the editor says it (M-SAVE-1..5, M-DRAFT-5).
public enum SaveOutcome: Sendable, Hashable {
    /// Adopted, read back as typed: the saved version opens and the draft is gone.
    case adopted(caseID: String, version: Int)
    /// Adopted, but the saved version differs from what was typed: the draft is kept.
    case adoptedButDifferent(caseID: String, version: Int, fields: [String])
    /// Adopted, but the saved version could not be read: the draft is kept.
    case adoptedButUnread(caseID: String, version: Int, problem: String)
    /// The proposal waits in the Queue: the draft is gone (O-17).
    case waiting(questionID: String?)
    /// Another edit changes the same fields: resolve it in the web app; the draft is kept.
    case overlap(fields: [String], with: String?, questionID: String?)
    /// The server refused (422, 409): its sentence word for word and the fields it named; the draft is
    /// kept.
    case refused(message: String, fields: [String: String])
    /// The reply was lost: it may or may not be saved; Retry sends the same command.
    case unconfirmed(String)
    /// Nothing was sent, or another failure: the draft is kept.
    case failed(String)

    /// Whether the draft stays.
    public var keepsDraft: Bool {
        switch self {
        case .adopted, .waiting: return false
        default: return true
        }
    }

    /// The sentence the editor shows.
    public var sentence: String {
        switch self {
        case .adopted(_, let version):
            return "Saved as version \(version)."
        case .adoptedButDifferent(_, let version, let fields):
            return
                "Saved as version \(version), but the saved case differs from what you typed (\(Self.list(fields))). Your draft is kept."
        case .adoptedButUnread(_, let version, let problem):
            return "Saved as version \(version), but it could not be read back: \(problem) Your draft is kept."
        case .waiting:
            return "Your proposal waits in the Queue for acceptance."
        case .overlap(let fields, let other, _):
            let by = other.map { " (proposal \($0))" } ?? ""
            return
                "Another edit\(by) also changes the \(Self.list(fields)). Resolve the proposal in the web app. Your draft is kept."
        case .refused(let message, let fields):
            if fields.isEmpty { return message }
            let named = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            return "\(message) (\(named))"
        case .unconfirmed(let sentence), .failed(let sentence):
            return sentence
        }
    }

    static func list(_ fields: [String]) -> String {
        switch fields.count {
        case 0: return "same fields"
        case 1: return fields[0]
        default: return fields.dropLast().joined(separator: ", ") + " and " + (fields.last ?? "")
        }
    }
}
