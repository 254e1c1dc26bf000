import Foundation

/// What a draft is for: a new case in a folder (or Unsorted), or an edit of a case from a version.
public enum DraftTarget: Sendable, Hashable, Codable {
    /// A new case; `nil` is Unsorted.
    case newCase(folderID: String?)
    /// An edit of a case, from the version opened.
    case edit(caseID: String, baseVersion: Int)

    /// The draft's subject in the account's store, within `project`: one draft per target.
    func subject(in project: String) -> String {
        switch self {
        case .newCase(let folderID): return "\(project)/new/\(folderID ?? "unsorted")"
        case .edit(let caseID, let version): return "\(project)/edit/\(caseID)@\(version)"
        }
    }
}

/// A case being written: the document as opened, what is typed now, and the reason.
public struct CaseDraft: Sendable, Hashable, Codable {
    /// What the draft is for.
    public var target: DraftTarget
    /// The document as it was opened (empty for a new case).
    public var opened: CaseDocument
    /// The document typed.
    public var document: CaseDocument
    /// The reason typed.
    public var reason: String

    /// Creates a draft of `opened`, unchanged.
    public init(target: DraftTarget, opened: CaseDocument) {
        self.target = target
        self.opened = opened
        document = opened
        reason = ""
    }

    /// Whether anything differs from what was opened (M-DRAFT-4).
    public var isChanged: Bool { document != opened || !reason.isEmpty }
}
