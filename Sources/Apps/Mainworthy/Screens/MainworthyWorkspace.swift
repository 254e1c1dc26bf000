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
    /// The projects, with their capabilities.
    public private(set) var projects: ScreenState<[Project]> = .loading
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
    }

    /// The current time, from the environment's clock (screens stamp what they read with it).
    public func now() -> Date { server.now() }

    /// The open project's capabilities; none when no project is open.
    public var capabilities: Set<Capability> { current?.capabilities ?? [] }

    /// Reads the projects from the server (the copy read before when it cannot be reached) and opens `preferred`,
    /// the one open before, or the first.
    public func load(preferred: String? = nil) async {
        capabilityReads += 1
        let update = await read(MainworthyAPI.projects(), policy: .networkElseCache, showing: projects, map: \.items)
        projects = update.state
        guard let list = update.state.value else { return }
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
        server.bundle.feed(list).reportingFailures { [weak self] in self?.report(MainworthyError($0)) }
    }

    /// A feed of `request` for a screen of the open project, its failures reported here too.
    func feed<Value: Sendable & Equatable>(_ request: Request<Value>) -> ScreenFeed<Value> {
        server.bundle.feed(request).reportingFailures { [weak self] in self?.report(MainworthyError($0)) }
    }

    /// Reads `request` for a screen showing `current` through the server's bundle (the stored copy at once under
    /// `policy`, then the server's), handing every state to `show`; a failure is reported here. Returns the last
    /// update.
    @discardableResult
    func read<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        map transform: @escaping @Sendable (Response) -> Value, show: (ScreenState<Value>) -> Void = { _ in }
    ) async -> ScreenRead<Value> {
        var last = ScreenRead(state: current, failure: nil)
        for await update in server.bundle.read(
            request, policy: policy, showing: current, isEmpty: isEmpty, transform)
        {
            last = ScreenRead(state: update.state, failure: update.failure)
            show(update.state)
        }
        if let failure = last.failure { report(MainworthyError(failure)) }
        return last
    }

    /// The state of a screen showing `current` after `error` (a write or a read outside the bundle's `read`).
    func failing<Value>(_ current: ScreenState<Value>, with error: MainworthyError) -> ScreenState<Value> {
        report(error)
        switch error {
        case .notConnected(let cause), .unconfirmed(let cause):
            return server.bundle.failing(current, with: cause).state
        case .signedOut(let sentence):
            if let value = current.value {
                return .stale(value, age: current.age(at: now()) ?? 0, problem: sentence ?? error.description)
            }
            return .failed(reason: sentence ?? error.description, signInRequired: true)
        default:
            if let value = current.value {
                return .stale(value, age: current.age(at: now()) ?? 0, problem: error.description)
            }
            return .failed(reason: error.description, signInRequired: false)
        }
    }
}

/// Where a screen's read ended: the state it shows, and the failure behind it, if any.
struct ScreenRead<Value: Sendable & Equatable>: Sendable {
    /// What the screen shows.
    var state: ScreenState<Value>
    /// The network failure behind it (a stored copy shown instead of a fresh one, or the read's own failure).
    var failure: HTTPError?

    /// Whether the state is the server's answer of this read (not a stored copy or a failure).
    var isFresh: Bool {
        guard failure == nil else { return false }
        switch state {
        case .content, .empty: return true
        default: return false
        }
    }
}
