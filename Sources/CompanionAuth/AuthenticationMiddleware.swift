import CompanionCore
import CompanionHTTP
import Foundation

/// Which refusals of a stored credential mean it is gone (revoked, ended, expired).
///
/// Rule: by default only 401 signs out, because that is what every server means by "this credential no
/// longer works". A server that also answers 403 or 410 for a gone credential says so in its own rule, in one
/// of two ways: it lists the error codes of a 403 that mean the credential is fine but may not do this one
/// thing (`permissionCodes`: signing out there would lose a working sign-in), or it names the only codes of a
/// status that end the sign-in (`endingCodes`: then a refusal without the server's own JSON envelope, such as
/// a reverse proxy's HTML 403 page, never signs out). Each app core or adapter ships the rule for its server.
public struct RevocationRule: Sendable, Hashable {
    /// Statuses that end the sign-in.
    public var statuses: Set<Int>
    /// Error codes of a 403 that do not end it.
    public var permissionCodes: Set<String>
    /// For a status listed here, only an error envelope with one of these codes ends the sign-in.
    public var endingCodes: [Int: Set<String>]
    /// Statuses of `endingCodes` that also end the sign-in when the server's JSON error body carries no code at
    /// all but this member as a sentence (`detail` for `{"detail": "…"}`); another body, or a page that is not
    /// JSON (a proxy's), never does.
    public var codelessEnds: [Int: String]

    /// Creates a rule: `statuses` end the sign-in, except a 403 carrying one of `permissionCodes`, and except a
    /// status of `endingCodes` whose envelope carries none of its codes (unless it carries no code and its
    /// status is in `codelessEnds`).
    public init(
        statuses: Set<Int> = [401], permissionCodes: Set<String> = [], endingCodes: [Int: Set<String>] = [:],
        codelessEnds: [Int: String] = [:]
    ) {
        self.statuses = statuses
        self.permissionCodes = permissionCodes
        self.endingCodes = endingCodes
        self.codelessEnds = codelessEnds
    }

    /// Whether `status` with `envelope` ends the sign-in.
    public func ends(status: Int, envelope: ServerErrorEnvelope?) -> Bool {
        guard statuses.contains(status) else { return false }
        if let codes = endingCodes[status] {
            guard let code = envelope?.code else {
                guard let member = codelessEnds[status] else { return false }
                return envelope?.details?[member]?.stringValue != nil
            }
            return codes.contains(code)
        }
        if status == 403, let code = envelope?.code, permissionCodes.contains(code) { return false }
        return true
    }

    /// Whether `error` is a refusal that ends the sign-in.
    public func ends(_ error: HTTPError) -> Bool {
        guard let status = error.statusCode else { return false }
        return ends(status: status, envelope: error.envelope)
    }
}

/// Attaches the session's credential to requests for the origin that issued it, and nowhere else.
///
/// Rules: a request to another origin passes through untouched (the credential never leaves its
/// origin; a cross-origin redirect is stripped by `RedirectPolicy`); a 401 on a refreshable
/// credential triggers the session's single-flight refresh and one retry; a refusal by the
/// `RevocationRule` signs the session out and the response is returned as it came, so the caller sees
/// the server's own error.
public struct AuthenticationMiddleware: Middleware {
    /// The session whose credential is attached.
    public let session: CredentialSession
    /// Which refusals sign out.
    public let rule: RevocationRule

    /// Creates the middleware.
    public init(session: CredentialSession, rule: RevocationRule = RevocationRule()) {
        self.session = session
        self.rule = rule
    }

    /// Attaches, sends, and handles a refusal.
    public func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        guard let stored = await session.usable(), stored.belongs(to: request.url) else {
            return try await next(request)
        }
        var authed = request
        authed.headers = stored.credential.applied(to: request.headers)
        let (response, body) = try await next(authed)
        guard rule.statuses.contains(response.status) else { return (response, body) }
        let data = try await body.collect(upTo: 1024 * 1024, url: request.url)
        let envelope = ServerErrorEnvelope.parse(data, mediaType: response.mediaType)
        if response.status == 401, stored.credential.refreshToken != nil {
            guard let renewed = await session.refreshed(after: stored) else { return (response, HTTPBody(data)) }
            var retry = request
            retry.headers = renewed.credential.applied(to: request.headers)
            let (again, againBody) = try await next(retry)
            guard rule.statuses.contains(again.status) else { return (again, againBody) }
            let againData = try await againBody.collect(upTo: 1024 * 1024, url: request.url)
            let againEnvelope = ServerErrorEnvelope.parse(againData, mediaType: again.mediaType)
            if rule.ends(status: again.status, envelope: againEnvelope) {
                await session.revoked(renewed, status: again.status, serverSentence: againEnvelope?.summary)
            }
            return (again, HTTPBody(againData))
        }
        if rule.ends(status: response.status, envelope: envelope) {
            await session.revoked(stored, status: response.status, serverSentence: envelope?.summary)
        }
        return (response, HTTPBody(data))
    }
}
