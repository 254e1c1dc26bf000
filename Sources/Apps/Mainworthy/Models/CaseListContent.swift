import Foundation

/// One row of a case list: a subfolder (listed first) or a case.
public enum CaseListRow: Sendable, Hashable {
    /// A subfolder of the folder shown.
    case folder(FolderRef)
    /// A case.
    case caseRow(CaseRow)
}

/// What a case list holds: for a folder its page (path and subfolders), the cases read so far, the
/// next page's cursor and the project's revision when it was read.
public struct CaseListContent: Sendable, Hashable {
    /// The folder, for a folder's list.
    public var folder: FolderPage?
    /// The cases read so far, no id twice.
    public var cases: [CaseRow]
    /// The cursor of the next page; `nil` at the end.
    public var nextCursor: String?
    /// The project's revision when the first page was read.
    public var revision: Int

    /// Creates the content.
    public init(folder: FolderPage? = nil, cases: [CaseRow] = [], nextCursor: String? = nil, revision: Int = 0) {
        self.folder = folder
        self.cases = cases
        self.nextCursor = nextCursor
        self.revision = revision
    }

    /// Subfolders first, then the folder's own cases (M-CASE-2).
    public var rows: [CaseListRow] {
        (folder?.subfolders ?? []).map(CaseListRow.folder) + cases.map(CaseListRow.caseRow)
    }

    /// Whether the last page was read.
    public var isComplete: Bool { nextCursor == nil }

    /// This content with `page` appended: an id already listed is not listed again (M-CASE-3).
    public func appending(_ page: ListReply<CaseRow>) -> CaseListContent {
        var copy = self
        var seen = Set(cases.map(\.id))
        for row in page.items where seen.insert(row.id).inserted { copy.cases.append(row) }
        copy.nextCursor = page.nextCursor
        return copy
    }
}
