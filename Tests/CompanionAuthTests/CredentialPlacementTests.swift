import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A credential goes only to the origin that issued it, against the fault server's two origins.
@Suite struct CredentialPlacementTests {
    let journal = Journal()

    func session(for url: URL, _ credential: Credential) throws -> CredentialSession {
        let address = try SignInFixture.address(url)
        let stored = StoredCredential(
            account: AccountKey(address: address, userID: "tester"), address: address, credential: credential,
            storedAt: Date())
        return CredentialSession(stored: stored, store: InMemorySecretStore(), journal: journal)
    }

    @Test(arguments: [
        Credential.headerToken(header: "X-Certain-Token", value: "ctk_cross_origin_secret"),
        .bearer(accessToken: "bearer-cross-origin-secret", refreshToken: nil, expiresAt: nil),
        .sessionToken("allauth-cross-origin-secret"),
        .webViewCookie(name: "ap_session", value: "cookie-cross-origin-secret", expiresAt: nil),
    ])
    func aCrossOriginRedirectDoesNotCarryTheCredential(_ credential: Credential) async throws {
        let fault = try TestServers.fault()
        let control = SignInFixture.client(fault, journal: Journal())
        // No `/_reset`: other suites use the fault server at the same time; the secrets are unique.
        let client = SignInFixture.client(
            fault, journal: journal,
            middlewares: [AuthenticationMiddleware(session: try session(for: fault, credential))])
        let echoed = try await client.send(Request<JSONValue>.get("/redirect-cross-origin?code=302&path=/echo-headers"))
        let log = try await control.send(Request<JSONValue>.get("/_secondary_log")).jsonString()
        #expect(log.contains("/echo-headers"))
        for secret in credential.secretValues {
            #expect(!log.contains(secret))
            #expect(!echoed.jsonString().contains(secret))
        }
        // Same origin: the credential is attached.
        let same = try await client.send(Request<JSONValue>.get("/echo-headers"))
        #expect(same.jsonString().contains(credential.secretValues[0]))
        expectNoSecrets(credential.secretValues, journal: journal)
    }

    @Test func aClientForAnotherOriginNeverGetsTheCredential() async throws {
        let fault = try TestServers.fault()
        let other = try TestServers.faultSecondOrigin()
        let session = try session(for: fault, .headerToken(header: "X-Certain-Token", value: "ctk_other_origin_secret"))
        let client = SignInFixture.client(
            other, journal: journal, middlewares: [AuthenticationMiddleware(session: session)])
        let echoed = try await client.send(Request<JSONValue>.get("/echo-headers"))
        #expect(!echoed.jsonString().contains("ctk_other_origin_secret"))
    }

    @Test func theKitsDefaultRuleSignsOutOnlyOn401() {
        let rule = RevocationRule()
        #expect(rule.ends(status: 401, envelope: nil))
        #expect(!rule.ends(status: 403, envelope: ServerErrorEnvelope(code: "forbidden")))
        #expect(!rule.ends(status: 410, envelope: nil))
    }

    @Test func a403ThatOnlyRefusesOneActionKeepsTheSignIn() async throws {
        let rule = RevocationRule(
            statuses: [401, 403, 410], permissionCodes: ["token_cannot_mint", "capability_missing"])
        #expect(!rule.ends(status: 403, envelope: ServerErrorEnvelope(code: "token_cannot_mint")))
        #expect(!rule.ends(status: 403, envelope: ServerErrorEnvelope(code: "capability_missing")))
        #expect(rule.ends(status: 403, envelope: ServerErrorEnvelope(code: "forbidden")))
        #expect(rule.ends(status: 410, envelope: nil))
        #expect(rule.ends(status: 401, envelope: nil))
        #expect(!rule.ends(status: 404, envelope: nil))
    }

    @Test func a403FromTheServerSignsOutAndKeepsTheAccount() async throws {
        let fault = try TestServers.fault()
        let session = try session(for: fault, .bearer(accessToken: "good-token", refreshToken: nil, expiresAt: nil))
        let rule = RevocationRule(statuses: [401, 403, 410])
        let client = SignInFixture.client(
            fault, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: rule)])
        #expect(try await client.send(Request<JSONValue>.get("/auth/required"))["user"]?.stringValue == "tester")
        await #expect(throws: HTTPError.self) { try await client.send(Request<JSONValue>.get("/auth/forbidden")) }
        guard case .signedOut(let account?, .signedOut(403, _)?) = await session.status else {
            Issue.record("expected signed out after 403, got \(await session.status)")
            return
        }
        #expect(account.userID == "tester")
    }

    @Test func credentialsNeverPrintTheirValue() {
        let credentials: [Credential] = [
            .sessionCookie(name: "certain_session", value: "cookie-value-123"),
            .headerToken(header: "X-Certain-Token", value: "ctk_value_123"),
            .bearer(accessToken: "access-value-123", refreshToken: "refresh-value-123", expiresAt: nil),
            .sessionToken("session-value-123"),
            .webViewCookie(name: "ap_session", value: "web-value-123", expiresAt: nil),
        ]
        for credential in credentials {
            for secret in credential.secretValues {
                #expect(!String(describing: credential).contains(secret))
            }
        }
        var headers: HTTPHeaders = ["Cookie": "stale=1", "Authorization": "Bearer stale"]
        headers = Credential.headerToken(header: "X-Certain-Token", value: "ctk_value_123").applied(to: headers)
        #expect(headers["Cookie"] == nil && headers["Authorization"] == nil)
        #expect(headers["X-Certain-Token"] == "ctk_value_123")
    }
}
