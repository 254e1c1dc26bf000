import CompanionScreen
import Foundation
import Observation

/// You, About: versions, licence, Licences link, copyright (M-ABOUT-1), and "Works until" (M-AUTH-10).
@Observable @MainActor
public final class AboutModel {
    /// What the screen shows.
    public private(set) var about: About
    /// "Works until …", or `nil` for a build without an expiry.
    public let worksUntil: String?

    private let workspace: MainworthyWorkspace

    /// Creates the screen; the server's version is read by `refresh()`.
    public init(workspace: MainworthyWorkspace) {
        self.workspace = workspace
        about = About(build: workspace.server.build, serverVersion: nil)
        worksUntil = workspace.server.build.worksUntil()
    }

    /// Reads the server's version (`GET /api/version`).
    public func refresh() async {
        let read = await workspace.read(
            MainworthyAPI.version(), showing: ScreenState<ServerVersion>.loading, map: { $0 })
        if let version = read.state.value {
            about = About(build: workspace.server.build, serverVersion: version.version)
        }
    }
}
