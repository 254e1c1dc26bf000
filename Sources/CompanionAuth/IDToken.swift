import CompanionCore
import CompanionCrypto
import Foundation

/// Why an OpenID Connect ID token was refused. Each case says what to do; none carries the token.
public enum IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not three base64url parts with JSON header and payload.
    case malformed(String)
    /// A signing algorithm other than RS256 (`none` and HMAC algorithms are never accepted).
    case unsupportedAlgorithm(String)
    /// The key set has no RSA key with the token's `kid`.
    case unknownKey(String?)
    /// The signature does not verify with the provider's key.
    case badSignature
    /// `iss` is not the provider the sign-in started with.
    case wrongIssuer(expected: String, actual: String?)
    /// `aud` does not name this client (or `azp` names another one).
    case wrongAudience(expected: String)
    /// `exp` has passed (or is missing).
    case expired
    /// `iat` lies in the future beyond the allowed skew.
    case issuedInTheFuture
    /// `nonce` is not the one this sign-in sent.
    case nonceMismatch

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .malformed(let detail):
            return
                "The sign-in provider returned an ID token that is not a signed JWT (\(detail)). Try signing in again."
        case .unsupportedAlgorithm(let alg):
            return "The sign-in provider signed its ID token with \(alg); only RS256 is accepted."
        case .unknownKey(let kid):
            return "The sign-in provider's key \(kid ?? "(no kid)") is not in its published key set. Try again later."
        case .badSignature:
            return "The ID token's signature does not verify with the sign-in provider's key. Sign in again."
        case .wrongIssuer(let expected, let actual):
            return "The ID token was issued by \(actual ?? "nobody") instead of \(expected). Sign in again."
        case .wrongAudience(let expected):
            return "The ID token was not issued for this app (\(expected)). Sign in again."
        case .expired:
            return "The ID token has expired. Sign in again (and check the device's clock)."
        case .issuedInTheFuture:
            return "The ID token is dated in the future. Check the device's clock, then sign in again."
        case .nonceMismatch:
            return "The ID token does not answer this sign-in (its nonce differs). Sign in again."
        }
    }
}

/// A provider's published signing keys (`jwks_uri`, RFC 7517), keeping the RSA keys by `kid`.
///
/// Rule: a key whose `use` is not `sig`, or whose `alg` is set to something other than RS256, is left
/// out; a key too weak for `RSAPublicKey` is left out too.
public struct JSONWebKeySet: Sendable, Hashable {
    /// The usable RSA keys, with their `kid` (nil when the key has none).
    public var keys: [(kid: String?, key: RSAPublicKey)] { entries.map { ($0.kid, $0.key) } }
    private var entries: [Entry]

    private struct Entry: Sendable, Hashable {
        var kid: String?
        var key: RSAPublicKey
    }

    /// Parses a JWKS document (`{"keys": [...]}`).
    public init(json data: Data) throws(IDTokenError) {
        guard let document = JSONValue(data: data), let list = document["keys"]?.arrayValue else {
            throw .malformed("the key set is not a JSON object with a keys array")
        }
        entries = list.compactMap { key -> Entry? in
            guard key["kty"]?.stringValue == "RSA",
                key["use"]?.stringValue.map({ $0 == "sig" }) ?? true,
                key["alg"]?.stringValue.map({ $0 == "RS256" }) ?? true,
                let n = key["n"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }),
                let e = key["e"]?.stringValue.flatMap({ Base64URL.decode(Substring($0)) }),
                let rsa = try? RSAPublicKey(modulus: n, exponent: e)
            else { return nil }
            return Entry(kid: key["kid"]?.stringValue, key: rsa)
        }
    }

    /// The key for `kid`; without a `kid`, the only key when there is exactly one.
    public func key(for kid: String?) -> RSAPublicKey? {
        if let kid { return entries.first { $0.kid == kid }?.key }
        return entries.count == 1 ? entries.first?.key : nil
    }
}

/// An ID token whose signature and claims were checked.
public struct VerifiedIDToken: Sendable, Hashable {
    /// The subject (`sub`).
    public var subject: String
    /// Every claim of the payload.
    public var claims: [String: JSONValue]
}

/// Checks an OpenID Connect ID token (OpenID Connect Core 1.0 §3.1.3.7) with the kit's crypto.
///
/// Rules, in order: the token is a compact JWS with header `alg` RS256 (never `none` or an HMAC, which
/// would let anyone who knows the client secret, or nobody, sign); its signature verifies with the key
/// of its `kid` from the provider's JWKS; `iss` equals the issuer exactly; `aud` is or contains the
/// client id, and with several audiences `azp` names the client; `exp` is in the future and `iat` not
/// beyond the allowed skew (60 s each way, for clocks that drift); `nonce` equals the one this sign-in
/// sent.
public struct IDTokenVerifier: Sendable {
    /// The expected `iss`.
    public var issuer: String
    /// This app's client id (the expected `aud`).
    public var clientID: String
    /// The provider's keys.
    public var keys: JSONWebKeySet
    /// The clock.
    public var clock: any WallClock
    /// The allowed clock skew.
    public var skew: TimeInterval

    /// Creates a verifier.
    public init(
        issuer: String, clientID: String, keys: JSONWebKeySet, clock: any WallClock = SystemWallClock(),
        skew: TimeInterval = 60
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
        self.clock = clock
        self.skew = skew
    }

    /// Verifies `token` for the sign-in that sent `nonce`.
    public func verify(_ token: String, nonce: String) throws(IDTokenError) -> VerifiedIDToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2])
        else { throw .malformed("expected three base64url parts") }
        guard let header = JSONValue(data: headerData)?.objectValue,
            let claims = JSONValue(data: payloadData)?.objectValue
        else { throw .malformed("the header or payload is not a JSON object") }
        let alg = header["alg"]?.stringValue ?? "(none)"
        guard alg == "RS256" else { throw .unsupportedAlgorithm(alg) }
        let kid = header["kid"]?.stringValue
        guard let key = keys.key(for: kid) else { throw .unknownKey(kid) }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        guard key.isValidSignature(signature, for: signed) else { throw .badSignature }

        let iss = claims["iss"]?.stringValue
        guard iss == issuer else { throw .wrongIssuer(expected: issuer, actual: iss) }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let one)?: audiences = [one]
        case .array(let many)?: audiences = many.compactMap { $0.stringValue }
        default: audiences = []
        }
        guard audiences.contains(clientID) else { throw .wrongAudience(expected: clientID) }
        if audiences.count > 1, claims["azp"]?.stringValue != clientID { throw .wrongAudience(expected: clientID) }
        let now = clock.now().timeIntervalSince1970
        guard let exp = claims["exp"]?.doubleValue, now < exp + skew else { throw .expired }
        if let iat = claims["iat"]?.doubleValue, iat > now + skew { throw .issuedInTheFuture }
        guard claims["nonce"]?.stringValue == nonce else { throw .nonceMismatch }
        guard let subject = claims["sub"]?.stringValue else { throw .malformed("no sub claim") }
        return VerifiedIDToken(subject: subject, claims: claims)
    }
}
