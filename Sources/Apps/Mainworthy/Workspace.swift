import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import Foundation
import Observation

/// The signed-in app: the projects, the one that is open, and what the screens share.
///
/// Rules: one project is open at a time and its name is shown; opening another makes new screens for
/// it, so nothing of the old project stays on screen (M-PROJ-1). Capabilities come from the server per
/// project and are replaced by a switch (M-CAP-1); a `capability_missing` refusal reads them again
/// (M-NET-4). A 401 anywhere signs out, keeping the account (M-AUTH-8).
///
/// The screens of the open project hold the workspace (they report failures to it); `close()` lets go
/// of them when the app leaves the workspace, so neither outlives the other.
@Observable @MainActor
public final class MainworthyWorkspace {
    /// The projects, with their capabilities.
    public private(set) var projects: ScreenState<[Project]> = .loading
    /// The open project.
    public private(set) var current: Project?
    /// The open project's queue.
    public private(set) var queue: QueueScreen?
    /// The open project's runs.
    public private(set) var runs: RunsScreen?
    /// The open project's Decided list.
    public private(set) var decided: DecidedScreen?
    /// Whether the session ended and the person must sign in again.
    public private(set) var signedOut = false
    /// How many times the capabilities were read (diagnostics and tests).
    public private(set) var capabilityReads = 0

    /// The connection.
    public let connection: MainworthyConnection
    private let clock: any WallClock

    /// Creates the workspace on `connection`.
    public init(connection: MainworthyConnection, clock: any WallClock = SystemWallClock()) {
        self.connection = connection
        self.clock = clock
    }

    /// The current time, from the workspace's clock (screens stamp what they read with it).
    public func now() -> Date { clock.now() }

    /// The open project's capabilities; none when no project is open.
    public var capabilities: Set<Capability> { current?.capabilities ?? [] }

    /// Reads the projects and opens `preferred`, the one open before, or the first.
    public func load(preferred: String? = nil) async {
        capabilityReads += 1
        do throws(MainworthyError) {
            let list = try await connection.read(MainworthyAPI.projects()).items
            projects = .content(list, fetchedAt: clock.now())
            let key = preferred ?? current?.key
            let choice = list.first { $0.key == key } ?? list.first
            if let choice, choice.key != current?.key {
                open(choice)
            } else if let choice {
                current = choice  // same project, capabilities replaced
            }
        } catch {
            report(error)
            projects = projects.failing(with: error)
        }
    }

    /// Opens `project`: new screens, nothing of the old project kept.
    public func open(_ project: Project) {
        current = project
        queue = QueueScreen(workspace: self, project: project.key)
        runs = RunsScreen(workspace: self, project: project.key)
        decided = DecidedScreen(workspace: self, project: project.key)
    }

    /// What every screen does with a failure: a 401 signs out, a missing capability reads the
    /// capabilities again.
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

    /// Lets go of the open project's screens.
    public func close() {
        queue = nil
        runs = nil
        decided = nil
    }

    /// Signs out here (the stored session goes; drafts and the account stay).
    public func signOut() async {
        await connection.signOut()
        signedOut = true
    }
}

extension ScreenState {
    /// The state after `error`, keeping the last value.
    func failing(with error: MainworthyError) -> ScreenState {
        switch error {
        case .notConnected(let cause), .unconfirmed(let cause): return failing(with: cause)
        case .signedOut(let sentence):
            return .failed(reason: sentence ?? error.description, signInRequired: true)
        default:
            if let value { return .stale(value, age: 0, problem: error.description) }
            return .failed(reason: error.description, signInRequired: false)
        }
    }
}
