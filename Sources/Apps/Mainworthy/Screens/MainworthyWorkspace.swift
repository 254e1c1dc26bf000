import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation
import Observation

/// The signed-in app: the projects, the one that is open, and the screens of the open project.
///
/// Rules: one project is open at a time and its name is shown. Opening another stops the old project's live
/// stream and makes every screen new for it (queue, runs, Decided, changes, cases and the stream), so nothing of
/// the old project stays on screen (M-PROJ-1). Capabilities come from the server per project and are replaced
/// by a switch (M-CAP-1); a `capability_missing` refusal on any screen reads them again (M-NET-4). A 401
/// anywhere signs out, keeping the account and its drafts (M-AUTH-8).
///
/// The screens of the open project hold the workspace (they report failures to it); `close()` lets go of them
/// when the app leaves the workspace, so neither outlives the other.
@Observable @MainActor
public final class MainworthyWorkspace {
    /// The projects, with their capabilities: the server's, else the copy read before when it cannot be reached.
    public let projectList: ScreenFeed<[Project]>
    /// The open project.
    public private(set) var current: Project?
    /// The open project's queue.
    public private(set) var queue: QueueModel?
    /// The open project's runs.
    public private(set) var runs: RunsModel?
    /// The open project's Decided list.
    public private(set) var decided: DecidedModel?
    /// The open project's changes.
    public private(set) var changes: ChangesModel?
    /// The open project's Cases tab.
    public private(set) var cases: CasesRootModel?
    /// The open project's live stream, shared by its screens.
    public private(set) var events: ProjectEvents?
    /// Whether the session ended and the person must sign in again.
    public private(set) var signedOut = false
    /// How many times the capabilities were read (diagnostics and tests).
    public private(set) var capabilityReads = 0

    /// The server.
    public let server: MainworthyServer

    /// Creates the workspace on `server`.
    public init(server: MainworthyServer) {
        self.server = server
        projectList = server.bundle.feed(MainworthyAPI.projects(), policy: .networkElseCache) { $0.items }
        projectList.reportingFailures { [weak self] in self?.report(MainworthyError($0)) }
    }

    /// The projects, with their capabilities.
    public var projects: ScreenState<[Project]> { projectList.state }

    /// The current time, from the environment's clock (screens stamp what they read with it).
    public func now() -> Date { server.now() }

    /// The open project's capabilities; none when no project is open.
    public var capabilities: Set<Capability> { current?.capabilities ?? [] }

    /// Reads the projects from the server (the copy read before when it cannot be reached) and opens `preferred`,
    /// the one open before, or the first.
    public func load(preferred: String? = nil) async {
        capabilityReads += 1
        await projectList.refresh()
        guard let list = projectList.value else { return }
        let key = preferred ?? current?.key
        let choice = list.first { $0.key == key } ?? list.first
        if let choice, choice.key != current?.key {
            open(choice)
        } else if let choice {
            current = choice  // the same project, its capabilities replaced
        }
    }

    /// Opens `project`: the old project's stream stops, and every screen is made new for it.
    public func open(_ project: Project) {
        events?.stop()
        current = project
        let stream = ProjectEvents(workspace: self, project: project.key)
        events = stream
        queue = QueueModel(workspace: self, project: project.key)
        runs = RunsModel(workspace: self, project: project.key)
        decided = DecidedModel(workspace: self, project: project.key)
        changes = ChangesModel(workspace: self, project: project.key, events: stream)
        let root = CasesRootModel(workspace: self, project: project.key)
        root.follow(stream)
        cases = root
    }

    /// What every screen does with a failure: a 401 signs out, a missing capability reads the capabilities
    /// again.
    public func report(_ error: MainworthyError) {
        switch error {
        case .signedOut:
            signedOut = true
        case .refused(let refusal) where refusal.code == "capability_missing":
            Task { await self.load() }
        default:
            break
        }
    }

    /// Lets go of the open project's screens and stops its stream.
    public func close() {
        events?.stop()
        events = nil
        queue = nil
        runs = nil
        decided = nil
        changes = nil
        cases = nil
    }

    /// Signs out here (the stored session goes; the drafts and the account stay).
    public func signOut() async {
        await server.signOut()
        signedOut = true
    }

    // MARK: Reading for the screens

    /// A feed of `list` for a screen of the open project: kept in the account's store and observing it; a
    /// failure is reported here too.
    func feed<Page: Sendable, Item>(_ list: PagedList<Page, Item>) -> ScreenFeed<Paged<Item>> {
        reporting(server.bundle.feed(list))
    }

    /// A feed of `list` showing `transform` of the stored list, its failures reported here too.
    func feed<Page: Sendable, Item, Value: Sendable & Equatable>(
        _ list: PagedList<Page, Item>, isEmpty: @escaping @Sendable (Value) -> Bool,
        _ transform: @escaping @Sendable (Paged<Item>) -> Value
    ) -> ScreenFeed<Value> {
        reporting(server.bundle.feed(list, isEmpty: isEmpty, transform))
    }

    /// A feed of `request` for a screen of the open project, its failures reported here too.
    func feed<Value: Sendable & Equatable>(_ request: Request<Value>, policy: FetchPolicy = .staleWhileRevalidate)
        -> ScreenFeed<Value>
    {
        reporting(server.bundle.feed(request, policy: policy))
    }

    /// A feed of what a screen shows of `request`'s reply, its failures reported here too.
    func feed<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate,
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> ScreenFeed<Value> {
        reporting(server.bundle.feed(request, policy: policy, transform))
    }

    /// A feed of `snapshot` (read all or nothing), its failures reported here too.
    func feed<Response: Sendable, Value: Sendable & Equatable>(
        _ snapshot: Snapshot<Response>, _ transform: @escaping @Sendable (Response) -> Value
    ) -> ScreenFeed<Value> {
        reporting(server.bundle.feed(snapshot, transform))
    }

    private func reporting<Value>(_ feed: ScreenFeed<Value>) -> ScreenFeed<Value> {
        let client = server.bundle.client
        return feed.reportingFailures { [weak self] in self?.report(MainworthyError($0, client: client)) }
    }
}

extension ScreenFeed {
    /// Whether the state is the server's answer of the last read (not a stored copy or a failure).
    var isFresh: Bool {
        guard failure == nil, cause == nil else { return false }
        return state.kind == .content || state.kind == .empty
    }
}
