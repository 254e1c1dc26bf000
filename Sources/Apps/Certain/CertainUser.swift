import Foundation

/// The signed-in user, from `GET /api/auth/me` (C-AUTH-7): read with the device token alone.
///
/// `created_at` comes without a zone and with microseconds (`2026-10-20T14:18:15.780705`); the client's decoder
/// reads it as that UTC instant, to the microsecond (C-TIME-1, C-TIME-2). Only `id`, `username` and
/// `created_at` are required; the other members §2 shows are read when sent.
public struct CertainUser: Sendable, Hashable, Codable, Identifiable {
    /// The server's id (the account key's user id).
    public let id: Int
    /// The name the person signs in with.
    public let username: String
    /// The name to show, when the server sends one.
    public let displayName: String?
    /// Whether a second factor is set up.
    public let mfaEnabled: Bool?
    /// Whether the server asks for a new password.
    public let mustChangePassword: Bool?
    /// When the user was created.
    public let createdAt: Date

    /// The name a screen shows: the display name, else the user name.
    public var shownName: String { displayName.flatMap { $0.isEmpty ? nil : $0 } ?? username }

    enum CodingKeys: String, CodingKey {
        case id, username
        case displayName = "display_name"
        case mfaEnabled = "mfa_enabled"
        case mustChangePassword = "must_change_password"
        case createdAt = "created_at"
    }
}
