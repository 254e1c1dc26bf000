import CompanionCore
import Foundation

/// The form a server's session or access token must have before the kit stores it or sends it anywhere.
///
/// Rule: a token that is not of its form is refused, never stored, never made into a cookie or a header: a
/// reply that smuggles `; Domain=evil.example` into a token would otherwise become a cookie attribute, and an
/// empty token an empty session.
public enum TokenShape: Sendable, Hashable {
    /// Any non-empty token of visible ASCII characters (no space, no control character, no `;` or `,`,
    /// which would end a cookie value).
    case opaque
    /// A JWS compact serialization (RFC 7515 §7.1), as a JWT is sent: exactly three non-empty parts of
    /// base64url characters (`A–Z a–z 0–9 - _`), joined by dots.
    case jwt

    /// Whether `token` has this form.
    public func accepts(_ token: String) -> Bool {
        switch self {
        case .opaque:
            return !token.isEmpty && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x3B && $0 != 0x2C }
        case .jwt:
            let parts = token.utf8.split(separator: 0x2E, omittingEmptySubsequences: false)
            return parts.count == 3 && parts.allSatisfy { part in !part.isEmpty && part.allSatisfy(Self.isBase64URL) }
        }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F: return true
        default: return false
        }
    }
}
