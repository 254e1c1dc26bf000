import Foundation
import Observation

/// You, About: versions, licence, Licences link, copyright (M-ABOUT-1), and "Works until" (M-AUTH-10).
@Observable @MainActor
public final class AboutScreen {
    /// What the screen shows.
    public private(set) var about: About
    /// "Works until …", or `nil` for a build without an expiry.
    public let worksUntil: String?

    private let connection: MainworthyConnection

    /// Creates the screen; the server's version is read by `refresh()`.
    public init(connection: MainworthyConnection) {
        self.connection = connection
        about = About(build: connection.build, serverVersion: nil)
        worksUntil = connection.build.worksUntil()
    }

    /// Reads the server's version (`GET /api/version`, no session needed).
    public func refresh() async {
        if let version = try? await connection.read(MainworthyAPI.version()) {
            about = About(build: connection.build, serverVersion: version.version)
        }
    }
}
