import CompanionCrypto
import Foundation

/// A PKCE pair (RFC 7636): a random verifier kept by the app, and its S256 challenge sent in the
/// authorization request.
///
/// Rule: only S256 (never `plain`), and the verifier comes from `SecureRandom` (32 bytes, 43 base64url
/// characters), so an intercepted authorization code is useless without the app's verifier.
public struct PKCE: Sendable, Hashable {
    /// The method name sent as `code_challenge_method`.
    public static let method = "S256"
    /// The verifier, sent only with the code exchange.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    public let challenge: String

    /// Creates the pair for a given verifier (RFC 7636 Appendix B's vector is a test of this).
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(Hash.sha256(Data(verifier.utf8)))
    }

    /// A new pair from secure randomness.
    public static func generate() throws(AuthError) -> PKCE {
        PKCE(verifier: try Base64URL.random(bytes: 32))
    }
}

/// Base64url without padding (RFC 4648 §5), as OAuth and JWTs use it.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base.count % 4 != 0 { base += "=" }
        return Data(base64Encoded: base)
    }

    static func random(bytes: Int) throws(AuthError) -> String {
        do {
            return encode(try SecureRandom.bytes(bytes))
        } catch {
            throw .unexpectedReply("no secure randomness available")
        }
    }
}
