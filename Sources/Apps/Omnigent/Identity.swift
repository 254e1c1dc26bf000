import CompanionCore
import Foundation

/// The signed-in identity, `/v1/me`.
public struct Identity: Codable, Sendable, Hashable {
    /// The user id (`local` in single-user header mode).
    public var userID: String?
    /// Whether the user is an admin.
    public var isAdmin: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userID = "user_id"
        case isAdmin = "is_admin"
    }
}
