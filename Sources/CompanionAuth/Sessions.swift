import CompanionCore
import Foundation

/// One sign-in session of the account, as a sessions screen lists it (Mainworthy "End a session",
/// M-SESS-1): what opened it, what the client called itself, when and where it opened, and when and
/// where it was last used.
public struct SessionInfo: Sendable, Hashable, Identifiable {
    /// The server's id for the session.
    public var id: String
    /// The client's name (`Mainworthy for iPhone`, a browser's user agent).
    public var client: String?
    /// How it was opened (`password`, `passkey`), when the server says.
    public var openedBy: String?
    /// When it was opened.
    public var openedAt: Date?
    /// Where it was opened from (an IP address or a place).
    public var openedFrom: String?
    /// When it was last used.
    public var lastUsedAt: Date?
    /// Where it was last used from.
    public var lastUsedFrom: String?
    /// Whether this is this device's own session (exactly one is, M-SESS-2).
    public var isCurrent: Bool

    /// Creates a session entry.
    public init(
        id: String, client: String? = nil, openedBy: String? = nil, openedAt: Date? = nil, openedFrom: String? = nil,
        lastUsedAt: Date? = nil, lastUsedFrom: String? = nil, isCurrent: Bool
    ) {
        self.id = id
        self.client = client
        self.openedBy = openedBy
        self.openedAt = openedAt
        self.openedFrom = openedFrom
        self.lastUsedAt = lastUsedAt
        self.lastUsedFrom = lastUsedFrom
        self.isCurrent = isCurrent
    }
}

/// A server's list of the account's sessions.
public protocol SessionDirectory: Sendable {
    /// The account's sessions, this device's marked.
    func sessions() async throws(AuthError) -> [SessionInfo]
    /// Ends the session `id` on the server.
    func end(_ id: String) async throws(AuthError)
}

/// Ending sessions with the rule that ending this device's own session signs out (M-SESS-4), while
/// ending another leaves this device signed in (M-SESS-5).
public enum SessionEnding {
    /// Ends `session` through `directory`; when it is this device's, signs `credentials` out, keeping
    /// the account's data.
    public static func end(
        _ session: SessionInfo, in directory: any SessionDirectory, credentials: CredentialSession
    ) async throws(AuthError) {
        try await directory.end(session.id)
        if session.isCurrent { await credentials.signOut() }
    }
}
