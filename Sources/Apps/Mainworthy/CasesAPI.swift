import CompanionHTTP
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

extension MainworthyAPI {
    /// `GET P/browse`.
    public static func browse(_ project: String) -> Request<BrowseReply> { .get("\(base(project))/browse") }

    /// `GET P/tags`, most used first.
    public static func tags(_ project: String, cursor: String? = nil) -> Request<ListReply<TagUse>> {
        .get("\(base(project))/tags", query: ["cursor": cursor])
    }

    /// `GET P/folders/{id}`.
    public static func folder(_ project: String, _ id: String) -> Request<FolderPage> {
        .get("\(base(project))/folders/\(escape(id))")
    }

    /// `GET P/cases` for `listing`, from `cursor`.
    public static func cases(_ project: String, _ listing: CaseListing, cursor: String? = nil, limit: Int? = nil)
        -> Request<ListReply<CaseRow>>
    {
        var query = listing.query
        query["cursor"] = cursor
        query["limit"] = limit.map(String.init)
        return .get("\(base(project))/cases", query: query)
    }

    /// `GET P/cases/{id}`: the current version (`id` is `c_12` or `C-12`).
    public static func caseDocument(_ project: String, _ id: String) -> Request<CasePage> {
        .get("\(base(project))/cases/\(escape(id))")
    }

    /// `GET P/cases/{id}/versions`, newest first.
    public static func caseVersions(_ project: String, _ id: String) -> Request<ListReply<CaseVersionEntry>> {
        .get("\(base(project))/cases/\(escape(id))/versions")
    }

    /// `GET P/cases/{id}/versions/{v}`.
    public static func caseVersion(_ project: String, _ id: String, version: Int) -> Request<CasePage> {
        .get("\(base(project))/cases/\(escape(id))/versions/\(version)")
    }

    /// `POST P/proposals`.
    public static func propose(_ project: String, _ body: ProposalBody) -> Request<ProposalReply> {
        .post("\(base(project))/proposals", body: body)
    }
}
