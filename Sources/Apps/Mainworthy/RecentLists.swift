import Foundation

/// Who reads, where: the server, the signed-in user and the open project. Recent lists and drafts are
/// filed under it, so another user or another server never sees them (M-DRAFT-2, O-14).
public struct CaseScope: Sendable, Hashable {
    /// The server's key (origin plus mount path).
    public var server: String
    /// The user's id.
    public var user: String
    /// The project's key.
    public var project: String

    /// Creates a scope.
    public init(server: String, user: String, project: String) {
        self.server = server
        self.user = user
        self.project = project
    }
}

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

    /// Subfolders first, then the folder's own cases (M-CASE-2).
    public var rows: [CaseListRow] {
        (folder?.subfolders ?? []).map(CaseListRow.folder) + cases.map(CaseListRow.caseRow)
    }

    /// Whether the last page was read.
    public var isComplete: Bool { nextCursor == nil }

    /// This content with `page` appended: an id already listed is not listed again (M-CASE-3).
    func appending(_ page: ListReply<CaseRow>) -> CaseListContent {
        var copy = self
        var seen = Set(cases.map(\.id))
        for row in page.items where seen.insert(row.id).inserted { copy.cases.append(row) }
        copy.nextCursor = page.nextCursor
        return copy
    }
}

/// The lists left most recently, in memory only (M-LIST-1, M-LIST-2, O-14).
///
/// Rules: keyed by server, user, project and list; at most 40; leaving a 41st forgets the one left
/// longest ago; a search is never kept (M-FIND-5). Nothing here is ever written to disk.
public struct RecentLists: Sendable {
    /// How many lists are kept.
    public static let capacity = 40

    /// A kept list's key.
    public struct Key: Sendable, Hashable {
        /// Server, user and project.
        public var scope: CaseScope
        /// The list.
        public var listing: CaseListing

        /// Creates a key.
        public init(scope: CaseScope, listing: CaseListing) {
            self.scope = scope
            self.listing = listing
        }
    }

    private var order: [Key] = []
    private var entries: [Key: CaseListContent] = [:]

    /// No lists.
    public init() {}

    /// How many lists are kept.
    public var count: Int { order.count }

    /// The kept content of `key`, if it is among the last 40 left.
    public func content(for key: Key) -> CaseListContent? { entries[key] }

    /// Keeps `content` as the list most recently left; a search is not kept. Returns the key forgotten
    /// to make room, if any.
    @discardableResult
    public mutating func leave(_ key: Key, content: CaseListContent) -> Key? {
        guard !key.listing.isSearch else { return nil }
        order.removeAll { $0 == key }
        order.append(key)
        entries[key] = content
        guard order.count > Self.capacity else { return nil }
        let oldest = order.removeFirst()
        entries[oldest] = nil
        return oldest
    }

    /// Replaces a kept list's content without changing when it was left.
    mutating func update(_ key: Key, content: CaseListContent) {
        if entries[key] != nil { entries[key] = content }
    }
}
