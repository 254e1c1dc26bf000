import Foundation

/// You, About: the app's and the server's versions, the licence, the Licences link and the copyright
/// line (M-ABOUT-1).
public struct About: Sendable, Hashable {
    /// The licence the app is under.
    public static let licence = "Apache License 2.0"
    /// The copyright line.
    public static let copyright = "Copyright 2026 the Mainworthy authors"

    /// The app's version.
    public var appVersion: String
    /// The server's version, from `GET /api/version`; `nil` until read.
    public var serverVersion: String?
    /// The page Licence on the instance.
    public var licencesURL: URL

    /// Creates About for `build`, with the server's version once read.
    public init(build: MainworthyBuild, serverVersion: String?) {
        appVersion = build.version
        self.serverVersion = serverVersion
        licencesURL = build.server.appendingPathComponent("licence")
    }
}
