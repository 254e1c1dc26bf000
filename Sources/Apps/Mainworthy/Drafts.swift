import Foundation

/// What a draft is for: a new case in a folder (or Unsorted), or an edit of a case from a version.
public enum DraftTarget: Sendable, Hashable {
    /// A new case; `nil` is Unsorted.
    case newCase(folderID: String?)
    /// An edit of a case, from the version opened.
    case edit(caseID: String, baseVersion: Int)
}

/// A case being written: the document as opened, what is typed now, and the reason.
public struct CaseDraft: Sendable, Hashable {
    /// What the draft is for.
    public var target: DraftTarget
    /// The document as it was opened (empty for a new case).
    public var opened: CaseText
    /// The document typed.
    public var document: CaseText
    /// The reason typed.
    public var reason: String

    /// Creates a draft of `opened`, unchanged.
    public init(target: DraftTarget, opened: CaseText) {
        self.target = target
        self.opened = opened
        document = opened
        reason = ""
    }

    /// Whether anything differs from what was opened (M-DRAFT-4).
    public var isChanged: Bool { document != opened || !reason.isEmpty }
}

/// Everything the case tab keeps in memory for the life of the process: the drafts and the recent
/// lists of every server, user and project, and the last revision known per project.
///
/// Rules: in memory only, never on disk, so a new process starts with none (M-DRAFT-3). It outlives
/// sign-out and sign-in: drafts are filed under server, user and project, so the same user signing in
/// again on the same server finds them, and another user or server does not (M-DRAFT-1, M-DRAFT-2).
@MainActor
public final class CaseMemory {
    /// The process's memory.
    public static let process = CaseMemory()

    /// The recent lists.
    public internal(set) var recentLists = RecentLists()
    private var drafts: [DraftKey: CaseDraft] = [:]
    private var revisions: [String: Int] = [:]

    struct DraftKey: Hashable {
        var scope: CaseScope
        var target: DraftTarget
    }

    /// An empty memory (tests make their own; the app uses `process`).
    public init() {}

    /// The draft for `target` under `scope`, if any.
    public func draft(_ target: DraftTarget, in scope: CaseScope) -> CaseDraft? {
        drafts[DraftKey(scope: scope, target: target)]
    }

    /// Keeps `draft` under `scope`.
    public func keep(_ draft: CaseDraft, in scope: CaseScope) {
        drafts[DraftKey(scope: scope, target: draft.target)] = draft
    }

    /// Discards the draft for `target` under `scope`.
    public func discard(_ target: DraftTarget, in scope: CaseScope) {
        drafts[DraftKey(scope: scope, target: target)] = nil
    }

    /// The drafts under `scope`.
    public func drafts(in scope: CaseScope) -> [CaseDraft] {
        drafts.filter { $0.key.scope == scope }.map(\.value)
    }

    /// The highest revision known for `scope`'s server and project.
    public func revision(of scope: CaseScope) -> Int { revisions[Self.project(scope)] ?? 0 }

    /// Raises the known revision of `scope`'s project (a stream event, a reply or the app's own write).
    public func raise(_ revision: Int, of scope: CaseScope) {
        let key = Self.project(scope)
        revisions[key] = max(revisions[key] ?? 0, revision)
    }

    private static func project(_ scope: CaseScope) -> String { "\(scope.server)\n\(scope.project)" }
}
