import Foundation

/// Which list of cases: All cases, a folder's own cases, a tag's, or a search with its scope.
public enum CaseListing: Sendable, Hashable {
    /// Every case of the project.
    case all
    /// A folder's own cases (not those of its subfolders, M-CASE-2).
    case folder(id: String)
    /// The cases with a tag.
    case tag(String)
    /// A search in a scope (M-FIND-1..4).
    case search(String, scope: SearchScope)

    /// The query of `GET P/cases`.
    var query: [String: String?] {
        switch self {
        case .all: return [:]
        case .folder(let id): return ["folder": id]
        case .tag(let name): return ["tag": name]
        case .search(let text, let scope): return ["q": text, "scope": scope.wireValue]
        }
    }

    /// The list's key among the recent lists of `project` (`nil` for a search, which is never kept).
    func recentKey(in project: String) -> String? {
        switch self {
        case .all: return "cases/\(project)/all"
        case .folder(let id): return "cases/\(project)/folder/\(id)"
        case .tag(let name): return "cases/\(project)/tag/\(name)"
        case .search: return nil
        }
    }

    /// Whether this is a search, which is never kept among the recent lists (M-FIND-5).
    public var isSearch: Bool {
        if case .search = self { return true }
        return false
    }
}

/// Where a search looks.
public enum SearchScope: Sendable, Hashable {
    /// A folder and its subfolders, at every depth.
    case folder(id: String)
    /// The cases with a tag.
    case tag(String)
    /// The whole project (Everywhere).
    case project

    /// `folder:<id>`, `tag:<name>` or `project`.
    public var wireValue: String {
        switch self {
        case .folder(let id): return "folder:\(id)"
        case .tag(let name): return "tag:\(name)"
        case .project: return "project"
        }
    }
}
