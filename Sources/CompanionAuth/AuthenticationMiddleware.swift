import CompanionCore
import CompanionHTTP
import Foundation

/// Which refusals of a stored credential mean it is gone (revoked, ended, expired).
///
/// Rule: 401, 403 and 410 sign out, except a 403 whose error code says the credential is fine but may
/// not do this one thing (a device token may not mint, a capability is missing, a password change is
/// due), because signing out there would lose a working sign-in.
public struct RevocationRule: Sendable, Hashable {
    /// Statuses that end the sign-in.
    public var statuses: Set<Int>
    /// Error codes of a 403 that do not end it.
    public var permissionCodes: Set<String>

    /// Creates a rule.
    public init(
        statuses: Set<Int> = [401, 403, 410],
        permissionCodes: Set<String> = [
            "token_cannot_mint", "cookie_required", "capability_missing", "password_change_required",
            "mfa_setup_required",
        ]
    ) {
        self.statuses = statuses
        self.permissionCodes = permissionCodes
    }

    /// Whether `status` with `envelope` ends the sign-in.
    public func ends(status: Int, envelope: ServerErrorEnvelope?) -> Bool {
        guard statuses.contains(status) else { return false }
        if status == 403, let code = envelope?.code, permissionCodes.contains(code) { return false }
        return true
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
        guard let stored = await session.credential, stored.belongs(to: request.url) else {
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
