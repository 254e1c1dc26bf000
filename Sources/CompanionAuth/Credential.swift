import CompanionCore
import CompanionHTTP
import Foundation

/// What a request carries to prove who sends it, one case per kind the four apps use.
///
/// Rules:
/// - A credential is a value that never prints itself: `description` names its kind only, so it can't
///   reach a log, the journal or an error by accident.
/// - It applies to a request by setting exactly one header, replacing any other credential header, so a
///   request never carries two (Certain C-TOK-3: once the token is in use, no `Cookie`).
/// - No case holds a password (C-TOK-4, M-AUTH-2).
public enum Credential: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A session cookie captured during sign-in (Certain's `certain_session`, Mainworthy's `mw_session`).
    /// For Certain it is discarded once a device token replaces it.
    case sessionCookie(name: String, value: String)
    /// A token in a header whose name the server chooses (`X-Certain-Token`).
    case headerToken(header: String, value: String)
    /// An OAuth-style bearer access token, with the refresh token that renews it and when it expires.
    case bearer(accessToken: String, refreshToken: String?, expiresAt: Date?)
    /// django-allauth's app-client session token, sent as `X-Session-Token`.
    case sessionToken(String)
    /// A cookie the app hands to a web view (Omnigent's `ap_session`), also usable as a `Cookie` header.
    case webViewCookie(name: String, value: String, expiresAt: Date?)

    /// The header allauth's app client reads.
    public static let sessionTokenHeader = "X-Session-Token"

    /// The header names any credential may occupy; all are removed before one is applied.
    static let credentialHeaders = ["Authorization", "Cookie", sessionTokenHeader]

    /// The kind, for logs and messages; never the value.
    public var description: String {
        switch self {
        case .sessionCookie(let name, _): return "session cookie \(name)"
        case .headerToken(let header, _): return "token in \(header)"
        case .bearer(_, let refresh, _): return refresh == nil ? "bearer token" : "bearer token with refresh"
        case .sessionToken: return "session token"
        case .webViewCookie(let name, _, _): return "web view cookie \(name)"
        }
    }

    /// The header name and value this credential sends.
    public var header: (name: String, value: String) {
        switch self {
        case .sessionCookie(let name, let value), .webViewCookie(let name, let value, _):
            return ("Cookie", "\(name)=\(value)")
        case .headerToken(let header, let value):
            return (header, value)
        case .bearer(let access, _, _):
            return ("Authorization", "Bearer \(access)")
        case .sessionToken(let value):
            return (Self.sessionTokenHeader, value)
        }
    }

    /// The secret values inside (to register with a journal or scan output for).
    public var secretValues: [String] {
        switch self {
        case .sessionCookie(_, let value), .headerToken(_, let value), .sessionToken(let value),
            .webViewCookie(_, let value, _):
            return [value]
        case .bearer(let access, let refresh, _):
            return [access] + (refresh.map { [$0] } ?? [])
        }
    }

    /// The refresh token, when this credential can be renewed.
    public var refreshToken: String? {
        if case .bearer(_, let refresh, _) = self { return refresh }
        return nil
    }

    /// `headers` with every credential header removed and this one set.
    public func applied(to headers: HTTPHeaders) -> HTTPHeaders {
        var result = headers
        let own = header.name.lowercased()
        let names = Set(Self.credentialHeaders.map { $0.lowercased() } + [own])
        result.removeAll { names.contains($0.lowercased()) }
        result[header.name] = header.value
        return result
    }
}

/// A credential as it is stored: which account and server it belongs to, and the server's id for it.
///
/// Rule: a credential goes only to the origin that issued it; `address` is that origin (and mount).
public struct StoredCredential: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The account it signs in.
    public var account: AccountKey
    /// The server that issued it; requests to any other origin never carry it.
    public var address: ServerAddress
    /// The credential.
    public var credential: Credential
    /// The server's id for it (Certain's token id, a session id), used to revoke it or mark this device.
    public var serverID: String?
    /// When it was stored.
    public var storedAt: Date

    /// Creates a stored credential.
    public init(
        account: AccountKey, address: ServerAddress, credential: Credential, serverID: String? = nil,
        storedAt: Date
    ) {
        self.account = account
        self.address = address
        self.credential = credential
        self.serverID = serverID
        self.storedAt = storedAt
    }

    /// Whether a request to `url` may carry this credential: only the issuing origin.
    public func belongs(to url: URL) -> Bool { address.sameOrigin(as: url) }

    /// Kind and account; never the value.
    public var description: String { "\(credential) for \(account)" }
}
