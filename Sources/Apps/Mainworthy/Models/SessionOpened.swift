import Foundation

/// `POST /api/sessions` → 201.
public struct SessionOpened: Sendable, Hashable, Codable {
    /// Who signed in.
    public var user: Person
    /// The new session.
    public var session: SessionRecord
}
