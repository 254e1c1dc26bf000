import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import Foundation
import Observation

/// The Cases tab's root: All cases, the top folders (Unsorted among them), the six most-used tags and
/// All tags (M-CASE-1, O-19); the lists, case pages and editors of the tab come from here.
///
/// What the tab keeps lives in the account's store from the server's bundle, which Mainworthy keeps in memory
/// only (M-DRAFT-3, O-14): the kit's recent lists (the 40 lists left most recently, M-LIST-1, M-LIST-2) and the
/// kit's drafts (M-DRAFT-1, M-DRAFT-2), filed under the project. The store is the account's, so the same user
/// signing in again on the same server finds them, and another user or server does not. Writes to it go one
/// after the other, in the order the person made them.
///
/// `projectRevisionChanged(_:)` is how the live stream (or anything else that learns of a change) tells the tab
/// the project moved on (O-14).
@Observable @MainActor
public final class CasesRootModel {
    /// How many of the most used tags the root shows.
    public static let topTagCount = 6
    /// How many lists left are kept (M-LIST-2).
    public static let recentListCapacity = 40

    /// The root: the top folders and the tags, read through the account's store.
    public let browse: ScreenFeed<BrowseReply>
    /// All tags, most used first, every page read (the kit's stored list).
    public let tags: ScreenFeed<Paged<TagUse>>
    /// The project's revision as the tab knows it: the highest any reply, write or event named.
    public private(set) var revision = 0

    /// The project.
    public let project: String
    let workspace: MainworthyWorkspace
    @ObservationIgnored private var lastWrite: Task<Void, Never>?

    /// The Cases tab of `project` for the workspace's account.
    public init(workspace: MainworthyWorkspace, project: String) {
        self.workspace = workspace
        self.project = project
        browse = workspace.feed(MainworthyAPI.browse(project))
        tags = workspace.feed(MainworthyLists.tags(project))
    }

    /// The root: the top folders and the tags.
    public var state: ScreenState<BrowseReply> { browse.state }

    /// All tags, most used first, as far as read.
    public var allTags: ScreenState<[TagUse]> { tags.state.map(\.items) }

    /// The six most used tags.
    public var topTags: [TagUse] { Array((state.value?.tags ?? []).prefix(Self.topTagCount)) }

    /// The top folders, Unsorted among them.
    public var folders: [FolderRef] { state.value?.folders ?? [] }

    /// Reads the root: the stored copy at once, then the server's.
    public func refresh() async {
        await browse.refresh()
        if let revision = browse.value?.revision { projectRevisionChanged(revision) }
    }

    /// Reads every tag (All tags): the first page, then every next one.
    public func readAllTags() async {
        await tags.refresh()
        await tags.loadAll()
    }

    /// The project moved on to `revision` (a stream event, a reply, or a write): lists kept from before are read
    /// again in the background when next shown (M-LIST-1).
    public func projectRevisionChanged(_ revision: Int) {
        self.revision = max(self.revision, revision)
    }

    /// Follows the project's stream: every event's revision is passed to ``projectRevisionChanged(_:)``, so kept
    /// lists are read again after the project moved on (M-LIST-1).
    public func follow(_ events: ProjectEvents) {
        events.subscribe(self) { [weak self] event in
            guard let revision = event.revision ?? events.revision else { return }
            self?.projectRevisionChanged(revision)
        }
    }

    /// The list of `listing` (All cases, a folder, a tag): one among the 40 left most recently starts with its
    /// kept rows, so it shows at once with no spinner; any other starts loading.
    public func list(_ listing: CaseListing) async -> CaseListModel {
        let model = CaseListModel(root: self, listing: listing)
        if await isKept(listing) { await model.showKept() }
        return model
    }

    /// A case saved here: every stored list of the project that lists it shows its new title and version at once
    /// (a store write; the open lists observe it).
    func caseSaved(_ caseID: String, title: String, version: Int) async {
        await settled()
        do {
            try await workspace.server.bundle.update(
                CaseRow.self, id: caseID, inListsUnder: MainworthyLists.casesPrefix(project)
            ) { row in
                row.title = title
                row.version = version
            }
        } catch {
            workspace.server.bundle.journal.record(
                .storage, "a saved case could not be shown on its lists: \(error.description)")
        }
    }

    /// The page of case `id` (a `c_…` id) at its current version; its history reads `historyPageSize` versions a
    /// page (the server's default when `nil`).
    public func casePage(_ id: String, historyPageSize: Int? = nil) -> CaseModel {
        CaseModel(root: self, caseID: id, version: nil, historyPageSize: historyPageSize)
    }

    /// The id of the case `reference` names: a case number (`C-12`, any letter case) is looked up with the case
    /// search, since §2's `{id}` is the case's id, never its number; anything else is taken as the id.
    public func caseID(for reference: String) async throws(MainworthyError) -> String {
        guard let number = Self.caseNumber(reference) else { return reference }
        let hits = try await workspace.server.latest(MainworthyAPI.caseByNumber(project, number))
        guard let hit = hits.items.first(where: { $0.number.uppercased() == number }) else {
            throw .refused(
                ServerRefusal(status: 404, code: "not_found", message: "There is no case \(number) in this project."))
        }
        return hit.id
    }

    /// `C-12` for a case number in any letter case (`c-12`), else `nil`.
    static func caseNumber(_ reference: String) -> String? {
        let text = reference.trimmingCharacters(in: .whitespaces).uppercased()
        guard text.hasPrefix("C-"), text.count > 2, text.dropFirst(2).allSatisfy(\.isASCII),
            text.dropFirst(2).allSatisfy(\.isNumber)
        else { return nil }
        return text
    }

    /// + at the tab's top, from a tag or from All cases: a new case for Unsorted (M-EDIT-1).
    public func newCase() async -> CaseEditorModel? { await newCase(folderID: nil) }

    /// + in a folder (`nil`: Unsorted).
    func newCase(folderID: String?) async -> CaseEditorModel? {
        guard canWrite else { return nil }
        return await editor(.newCase(folderID: folderID), opened: CaseDocument())
    }

    /// An editor for `target`, from the draft kept for it or from `opened`.
    func editor(_ target: DraftTarget, opened: CaseDocument) async -> CaseEditorModel {
        CaseEditorModel(root: self, draft: await draft(target) ?? CaseDraft(target: target, opened: opened))
    }

    /// Whether + and Edit case are offered: writing cases needs `produce`.
    public var canWrite: Bool { workspace.capabilities.contains(.produce) }

    // MARK: What the tab keeps, in the account's store

    /// The drafts of this project kept in the account's store.
    public func drafts() async -> [CaseDraft] {
        await settled()
        let prefix = project + "/"
        let stored = (try? await store.read { transaction throws(StoreError) in try transaction.drafts() }) ?? []
        return stored.filter { $0.subject.hasPrefix(prefix) }.compactMap {
            try? client.decode(CaseDraft.self, from: $0.body)
        }
    }

    /// How many lists are kept among the recent lists of the account.
    public func recentListCount() async -> Int {
        await settled()
        return (try? await store.read { transaction throws(StoreError) in try transaction.recentLists() })?.count ?? 0
    }

    /// The draft kept for `target`, if any.
    func draft(_ target: DraftTarget) async -> CaseDraft? {
        await settled()
        let subject = target.subject(in: project)
        guard let stored = try? await store.draft(subject) else { return nil }
        return try? client.decode(CaseDraft.self, from: stored.body)
    }

    /// Keeps `draft` (replacing the one for its target).
    func keep(_ draft: CaseDraft) {
        let subject = draft.target.subject(in: project)
        guard let body = try? workspace.server.bundle.encoded(draft) else { return }
        write { transaction throws(StoreError) in try transaction.saveDraft(subject, body: body) }
    }

    /// Discards the draft for `target`.
    func discard(_ target: DraftTarget) {
        let subject = target.subject(in: project)
        write { transaction throws(StoreError) in try transaction.discardDraft(subject) }
    }

    /// Whether `listing` is among the lists left most recently (its rows are kept).
    func isKept(_ listing: CaseListing) async -> Bool {
        guard let key = listing.recentKey(in: project) else { return false }
        await settled()
        let state = try? await store.read { transaction throws(StoreError) in try transaction.listState(key) }
        return state?.leftAt != nil
    }

    /// Keeps `listing` (its rows are the stored list) as left just now; the 41st list left forgets the one left
    /// longest ago.
    func leave(_ listing: CaseListing) {
        guard let key = listing.recentKey(in: project) else { return }
        let capacity = Self.recentListCapacity
        write { transaction throws(StoreError) in try transaction.leaveList(key, capacity: capacity) }
    }

    private var store: OfflineStore { workspace.server.bundle.store }
    private var client: Client { workspace.server.bundle.client }

    /// Runs `body` in a store transaction after every write asked for before it.
    private func write(_ body: @escaping @Sendable (StoreTransaction) throws(StoreError) -> Void) {
        let previous = lastWrite
        let store = self.store
        let journal = workspace.server.bundle.journal
        lastWrite = Task {
            await previous?.value
            do throws(StoreError) {
                try await store.write(body)
            } catch {
                journal.record(.storage, "the Cases tab could not keep what it keeps: \(error.description)")
            }
        }
    }

    /// Waits for every write asked for so far.
    func settled() async { await lastWrite?.value }
}
