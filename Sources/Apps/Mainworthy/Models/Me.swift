import Foundation

/// `GET /api/me`: the signed-in person and this device's session.
public struct Me: Sendable, Hashable, Codable {
    /// The person.
    public var user: Person
    /// This device's session, when the server names it.
    public var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case user
        case sessionID = "session_id"
    }
}
