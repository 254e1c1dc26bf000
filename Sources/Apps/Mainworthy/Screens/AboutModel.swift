import CompanionApp
import CompanionScreen
import Foundation
import Observation

/// You, About: versions, licence, Licences link, copyright (M-ABOUT-1), and "Works until" (M-AUTH-10).
@Observable @MainActor
public final class AboutModel {
    /// The server's version, read through the account's store.
    public let version: ScreenFeed<ServerVersion>
    /// "Works until …", or `nil` for a build without an expiry.
    public let worksUntil: String?

    private let workspace: MainworthyWorkspace

    /// Creates the screen; the server's version is read by `refresh()`.
    public init(workspace: MainworthyWorkspace) {
        self.workspace = workspace
        version = workspace.feed(MainworthyAPI.version())
        worksUntil = workspace.server.build.worksUntil()
    }

    /// Reads the server's version (`GET /api/version`).
    public func refresh() async {
        await version.refresh()
    }

    /// What the screen shows: the build's versions, licence and copyright, with the server's version once read.
    public var about: About { About(build: workspace.server.build, serverVersion: version.value?.version) }
}
