import CompanionApp
import CompanionHTTP
import CompanionSync
import Foundation

/// Mainworthy's paged lists, as the kit keeps them in the account's store: each list asks for its next page with
/// the `next_cursor` the last one gave (M-CASE-3's rule, the same for every list) and carries the project's
/// `revision`.
public enum MainworthyLists {
    /// The runs of `project`, newest first; `limit` items a page (the server's default when `nil`).
    public static func runs(_ project: String, limit: Int? = nil) -> PagedList<ListReply<RunSummary>, RunSummary> {
        paged(key: "runs:\(project)") { MainworthyAPI.runs(project, cursor: $0, limit: limit) }
    }

    /// The decisions standing in `project`, newest first; `limit` items a page.
    public static func decided(_ project: String, limit: Int? = nil) -> PagedList<ListReply<DecidedItem>, DecidedItem> {
        paged(key: "decided:\(project)") { MainworthyAPI.decided(project, cursor: $0, limit: limit) }
    }

    /// The cases of `listing` in `project`, 50 a page: kept under the listing's key among the recent lists, a
    /// search under a key of its own (never among them).
    public static func cases(_ project: String, _ listing: CaseListing) -> PagedList<ListReply<CaseRow>, CaseRow> {
        let key =
            listing.recentKey(in: project)
            ?? "\(casesPrefix(project))search/" + CachedFetcher.key(for: MainworthyAPI.cases(project, listing))
        return paged(key: key) { MainworthyAPI.cases(project, listing, cursor: $0) }
    }

    /// The open queue of `project` (one kind with `kind`), `limit` questions a page: the summary of the whole open
    /// queue first, then the questions in the server's order (`QueueEntry`).
    public static func queue(_ project: String, kind: QuestionKind?, limit: Int? = nil)
        -> PagedList<QueueReply, QueueEntry>
    {
        PagedList(
            key: "queue:\(project):\(kind?.rawValue ?? "all")",
            page: { MainworthyAPI.queue(project, kind: kind, cursor: $0, limit: limit) },
            items: QueueEntry.entries(of:),
            nextCursor: \.nextCursor, revision: { $0.revision.map(String.init) })
    }

    /// Every tag of `project`, most used first; `limit` a page.
    public static func tags(_ project: String, limit: Int? = nil) -> PagedList<ListReply<TagUse>, TagUse> {
        PagedList(
            key: "tags:\(project)", page: { MainworthyAPI.tags(project, cursor: $0, limit: limit) }, items: \.items,
            id: \.name, nextCursor: \.nextCursor, revision: { $0.revision.map(String.init) })
    }

    /// The history of case `id` in `project`, newest version first; `limit` versions a page.
    public static func history(_ project: String, _ id: String, limit: Int? = nil)
        -> PagedList<ListReply<CaseVersionEntry>, CaseVersionEntry>
    {
        PagedList(
            key: "history:\(project):\(id)",
            page: { MainworthyAPI.caseVersions(project, id, cursor: $0, limit: limit) },
            items: \.items, id: { String($0.version) }, nextCursor: \.nextCursor,
            revision: { $0.revision.map(String.init) })
    }

    /// The prefix of the keys of every stored case list of `project`.
    static func casesPrefix(_ project: String) -> String { "cases/\(project)/" }

    /// A list of `ListReply` pages.
    static func paged<Item: Identifiable & Codable & Sendable & Hashable>(
        key: String, _ page: @escaping @Sendable (String?) -> Request<ListReply<Item>>
    ) -> PagedList<ListReply<Item>, Item> where Item.ID == String {
        PagedList(
            key: key, page: page, items: \.items, nextCursor: \.nextCursor, revision: { $0.revision.map(String.init) })
    }
}
