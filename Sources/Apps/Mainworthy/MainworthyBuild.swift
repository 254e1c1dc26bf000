import Foundation

/// What the app was built with: where its server is, and how long the build opens.
///
/// Rules: there is no address step; the server is a build setting, `https://mainworthy.com`, and tests
/// or the terminal client pass another (M-AUTH-1, O-6). A build signed for a limited time shows
/// "Works until" with its expiry day; a build without one shows nothing (M-AUTH-10).
public struct MainworthyBuild: Sendable, Hashable {
    /// The server every request goes to.
    public static let productionServer = "https://mainworthy.com"
    /// What the app calls itself when it opens a session (M-AUTH-2, M-AUTH-3).
    public static let clientName = "Mainworthy for iPhone"

    /// The server's base URL.
    public var server: URL
    /// The app's version.
    public var version: String
    /// The day the build stops opening, if it has one.
    public var expiry: Date?

    /// Creates a build description; `server` defaults to the production server.
    public init(server: URL? = nil, version: String, expiry: Date? = nil) {
        self.server = server ?? URL(string: Self.productionServer) ?? URL(fileURLWithPath: "/")
        self.version = version
        self.expiry = expiry
    }

    /// "Works until 7 Dec 2026" under You, or `nil` for a build without an expiry.
    public func worksUntil(timeZone: TimeZone = .current) -> String? {
        guard let expiry else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.day, .month, .year], from: expiry)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = parts.day, let month = parts.month, let year = parts.year, (1...12).contains(month) else {
            return nil
        }
        return "Works until \(day) \(months[month - 1]) \(year)"
    }
}
