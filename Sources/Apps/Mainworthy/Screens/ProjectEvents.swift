import CompanionCore
import CompanionHTTP
import Foundation
import Observation

/// The live stream of one project (`GET P/events`), shared by the screens of the open project.
///
/// Rules (M-CHG-4, M-CHG-11, O-12): one stream per open project; it starts after a revision a list
/// reply carried, so nothing between the read and the stream is missed; a dropped stream reconnects
/// with backoff and `Last-Event-ID`; a stream silent for longer than the idle timeout (45 s; the
/// server pings every 15 s) counts as dropped; a `reset` event tells every subscriber to read its lists
/// again. `revision` is the highest revision seen, from events or from replies the screens note, so a
/// screen can refresh what depends on it once it rises (O-14).
///
/// Use: `let events = ProjectEvents(workspace: w, project: "shop")`, hand it to the screens (a screen
/// calls `start(after:)` with its list's revision, and `subscribe(_:_:)`), `stop()` when the project
/// closes.
@Observable @MainActor
public final class ProjectEvents {
    /// Where the stream stands.
    public enum Status: Sendable, Hashable {
        /// Not started, or stopped.
        case idle
        /// Connected or reconnecting.
        case running
        /// It ended for good: the sentence says why (a refusal, too many failed connections).
        case failed(String)
    }

    /// Where the stream stands.
    public private(set) var status: Status = .idle
    /// The highest revision of the project seen.
    public private(set) var revision: Int?
    /// The id of the last event received (sent back as `Last-Event-ID` after a drop).
    public private(set) var lastEventID: String?
    /// How many events arrived (diagnostics and tests).
    public private(set) var received = 0
    /// How many `reset` events arrived.
    public private(set) var resets = 0

    /// The project.
    public let project: String
    private let workspace: MainworthyWorkspace
    private let configuration: EventSourceConfiguration
    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored private var generation = 0
    @ObservationIgnored private var subscribers: [(owner: Weak, handler: @MainActor (ProjectEvent) -> Void)] = []

    /// A stream of `project`; `configuration` sets the backoff and the idle timeout (45 s by default).
    public init(
        workspace: MainworthyWorkspace, project: String,
        configuration: EventSourceConfiguration = EventSourceConfiguration()
    ) {
        self.workspace = workspace
        self.project = project
        self.configuration = configuration
    }

    /// Starts the stream after `revision` (the revision of a list just read), unless it runs already.
    public func start(after revision: Int?) {
        if let revision { note(revision: revision) }
        guard task == nil else { return }
        var settings = configuration
        settings.lastEventID = lastEventID ?? self.revision.map(String.init)
        status = .running
        generation += 1
        let run = generation
        let stream = workspace.server.bundle.client.events(MainworthyAPI.events(project), configuration: settings)
        task = Task { [weak self] in
            do {
                for try await event in stream {
                    guard let self, self.generation == run else { return }
                    self.deliver(ProjectEvent(event))
                }
                self?.ended(run, nil)
            } catch {
                self?.ended(run, error)
            }
        }
    }

    /// Stops the stream; `start(after:)` resumes it from the last event received.
    public func stop() {
        generation += 1
        task?.cancel()
        task = nil
        if status == .running { status = .idle }
    }

    /// Notes a revision a reply carried; the revision only rises.
    public func note(revision value: Int) {
        if value > (revision ?? Int.min) { revision = value }
    }

    /// Calls `handler` with every event while `owner` lives (held weakly).
    public func subscribe(_ owner: AnyObject, _ handler: @escaping @MainActor (ProjectEvent) -> Void) {
        subscribers.append((Weak(owner), handler))
    }

    /// Hands `event` to the subscribers, as if the stream sent it (the stream itself uses this).
    public func deliver(_ event: ProjectEvent) {
        received += 1
        if let id = event.id { lastEventID = id }
        if event.isReset { resets += 1 }
        if let value = event.revision { note(revision: value) }
        subscribers.removeAll { $0.owner.object == nil }
        for subscriber in subscribers { subscriber.handler(event) }
    }

    private func ended(_ run: Int, _ error: (any Error)?) {
        guard run == generation else { return }
        task = nil
        guard let error else {
            status = .idle
            return
        }
        if error is CancellationError { return }
        if let http = error as? HTTPError, case .cancelled = http { return }
        let failure = (error as? HTTPError).map { MainworthyError($0) } ?? .other("\(error)")
        workspace.report(failure)
        status = .failed(failure.description)
    }

    /// A weak reference to a subscriber's owner.
    private struct Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }
}
