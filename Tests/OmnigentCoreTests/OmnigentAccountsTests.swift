import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import OmnigentCore
import Testing

/// Omnigent 0.19.1 in accounts mode: login, Bearer and `ap_session` cookie, refresh at `/oauth/token`,
/// logout and 401 afterwards.
@Suite(.serialized) struct OmnigentAccountsTests {
    let url: URL
    let user: String
    let password: String
    let journal = Journal()

    init() throws {
        url = try TestServers.url("OMNIGENT_ACCOUNTS_URL")
        user = try TestServers.value("OMNIGENT_ACCOUNTS_USER")
        let file = try TestServers.value("OMNIGENT_ACCOUNTS_PASSWORD_FILE")
        password = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @MainActor func model(store: any SecretStore) -> SignInModel {
        let journal = self.journal
        return SignInModel(policy: SignInFixture.policy, store: store, journal: journal) { address in
            OmnigentAccountsSignIn(address: address, client: SignInFixture.client(address.url, journal: journal))
        }
    }

    @MainActor func signIn(store: any SecretStore) async throws -> StoredCredential {
        let model = model(store: store)
        await model.submitAddress(url.absoluteString)
        await model.submitPassword(username: user, password: password)
        guard case .signedIn(let account) = model.state else {
            throw AuthError.invalidStep("sign-in failed: \(model.state)")
        }
        return try #require(try store.load(account))
    }

    // O-AUTH-4: a wrong password → 401 with the server's sentence, shown word for word; nothing stored.
    @Test @MainActor func wrongPasswordShowsTheServerSentence() async throws {
        let store = InMemorySecretStore()
        let model = model(store: store)
        await model.submitAddress(url.absoluteString)
        let wrong = "not-the-Passw0rd-42"
        await model.submitPassword(username: user, password: wrong)
        guard case .enteringPassword(_, .wrongCredentials(let sentence)?) = model.state else {
            Issue.record("expected a refusal, got \(model.state)")
            return
        }
        #expect(sentence == "invalid username or password")
        #expect(store.accounts().isEmpty)
        expectNoSecrets([wrong, password], journal: journal, texts: [model.state.problem?.description ?? ""])
    }

    @Test @MainActor func bearerAndWebViewCookieBothWorkAndRefreshRenewsTheToken() async throws {
        let store = InMemorySecretStore()
        let stored = try await signIn(store: store)
        guard case .bearer(_, let refresh?, _) = stored.credential else {
            Issue.record("expected a bearer with a refresh token, got \(stored.credential)")
            return
        }
        let address = try SignInFixture.address(url)
        let oauth = OAuthClient(
            address: address, client: SignInFixture.client(url, journal: journal),
            configuration: OmnigentAccountsSignIn.oauth
        )
        let session = CredentialSession(
            stored: stored, store: store, refresher: OAuthRefresher(oauth: oauth), journal: journal)
        let client = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: .omnigent)])
        #expect(try await client.send(Request<JSONValue>.get("/auth/me"))["id"]?.stringValue == user)
        // The same sign-in as the web view's cookie.
        let cookie = try #require(OmnigentAccountsSignIn.webViewCookie(for: stored))
        #expect(cookie.header.value.hasPrefix("ap_session="))
        var cookieStored = stored
        cookieStored.credential = cookie
        let cookieSession = CredentialSession(stored: cookieStored, store: InMemorySecretStore(), journal: journal)
        let cookieClient = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: cookieSession, rule: .omnigent)])
        #expect(try await cookieClient.send(Request<JSONValue>.get("/auth/me"))["id"]?.stringValue == user)
        // Refresh at /oauth/token gives a working access token.
        let renewed = try await OAuthRefresher(oauth: oauth).refresh(stored)
        try await session.use(renewed)
        #expect(renewed.credential != stored.credential)
        #expect(try await client.send(Request<JSONValue>.get("/auth/me"))["id"]?.stringValue == user)
        expectNoSecrets([password, refresh] + renewed.credential.secretValues, journal: journal)
    }

    // O-AUTH-6: logout (`POST /auth/logout`, 204) clears the local credential; the token then gets 401.
    @Test @MainActor func logoutSignsOutAndTheTokenGets401Afterwards() async throws {
        let store = InMemorySecretStore()
        let stored = try await signIn(store: store)
        let session = CredentialSession(stored: stored, store: store, journal: journal)
        let client = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: .omnigent)])
        _ = try await client.send(Request<JSONValue>.get("/auth/me"))
        #expect(await OmnigentAccountsSignIn.signOut(session: session, client: client) == nil)
        #expect(store.accounts().isEmpty)
        guard case .signedOut(stored.account, nil) = await session.status else {
            Issue.record("expected signed out, got \(await session.status)")
            return
        }
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(Request<JSONValue>.get("/v1/sessions"))
        }
        #expect(error?.statusCode == 401)
    }

    @Test("O-AUTH-6/14: signing out revokes the refresh token on 0.19.1: the refresh grant no longer renews")
    @MainActor func signOutRevokesTheRefreshGrant() async throws {
        let store = InMemorySecretStore()
        let stored = try await signIn(store: store)
        let refresh = try #require(stored.credential.refreshToken)
        let oauth = OAuthClient(
            address: try SignInFixture.address(url), client: SignInFixture.client(url, journal: journal),
            configuration: OmnigentAccountsSignIn.oauth)
        // The login's own credential, as the app keeps it: its access token names no grant, so only the refresh
        // token sent as `refresh_token` can end the grant (a bare `token` is answered 200 and revokes nothing).
        let session = CredentialSession(stored: stored, store: store, journal: journal)
        let client = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: .omnigent)])
        #expect(await OmnigentAccountsSignIn.signOut(session: session, client: client) == nil)
        let revokes = journal.events.filter { $0.kind == .request && $0.message.hasSuffix("/oauth/revoke") }
        #expect(revokes.count == 1, "one revocation request")
        // The server ended the grant: the refresh token is refused now.
        let error = await #expect(throws: AuthError.self) { _ = try await oauth.refresh(refresh) }
        guard case .refreshFailed? = error else {
            Issue.record("expected refreshFailed after the sign-out, got \(String(describing: error))")
            return
        }
        expectNoSecrets([password, refresh] + stored.credential.secretValues, journal: journal)
    }

    @Test("A login answer whose token is not JWT-shaped is refused, and nothing is issued or stored")
    @MainActor func aLoginTokenThatIsNotAJWTIsRefused() async throws {
        // The fault server's `/auth/login` answers with `aaa.bbb.ccc; Domain=evil.example`.
        let fault = try TestServers.fault()
        let signIn = OmnigentAccountsSignIn(
            address: try SignInFixture.address(fault), client: SignInFixture.client(fault, journal: journal))
        let error = await #expect(throws: AuthError.self) {
            _ = try await signIn.signIn(username: "someone", password: "a-password-1")
        }
        #expect(error?.description.contains("not in the expected form") == true, "\(String(describing: error))")
        await #expect(throws: AuthError.self) { _ = try await signIn.issueCredential() }
    }

    /// A second, non-admin account on the real server: the admin mints an invite and it is redeemed.
    static func registerMember(adminClient client: Client) async throws -> (name: String, password: String) {
        let invite = try await client.send(
            Request<JSONValue>(method: .post, path: "/auth/invite", body: json(["is_admin": false])))
        let name = "member\(UUID().uuidString.prefix(6).lowercased())"
        let password = "Member-Passw0rd-\(UUID().uuidString.prefix(8))"
        let body = json([
            "invite": try #require(invite["token"]?.stringValue), "username": name, "password": password,
        ])
        _ = try await client.send(Request<JSONValue>(method: .post, path: "/auth/register", body: body))
        return (name, password)
    }

    @Test func revocationRuleIsOnly401_OOPEN21() {
        #expect(RevocationRule.omnigent.ends(status: 401, envelope: nil))
        #expect(!RevocationRule.omnigent.ends(status: 403, envelope: nil))
        #expect(!RevocationRule.omnigent.ends(status: 410, envelope: nil))
    }

    @Test @MainActor func a403OnOneActionKeepsTheUserSignedInWithTheServersSentence_OOPEN21() async throws {
        let adminStore = InMemorySecretStore()
        let admin = try await signIn(store: adminStore)
        let adminSession = CredentialSession(stored: admin, store: adminStore, journal: journal)
        let adminClient = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: adminSession, rule: .omnigent)])
        let member = try await Self.registerMember(adminClient: adminClient)

        // The member signs in through the app's own flow and tries an admin-only write.
        let store = InMemorySecretStore()
        let model = model(store: store)
        await model.submitAddress(url.absoluteString)
        await model.submitPassword(username: member.name, password: member.password)
        guard case .signedIn(let account) = model.state else {
            Issue.record("the member's sign-in failed: \(model.state)")
            return
        }
        let stored = try #require(store.load(account))
        let session = CredentialSession(stored: stored, store: store, journal: journal)
        let client = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: .omnigent)])
        let error = await #expect(throws: HTTPError.self) {
            try await client.send(
                Request<JSONValue>(method: .post, path: "/auth/invite", body: json(["is_admin": true])))
        }
        #expect(error?.statusCode == 403)
        #expect(error?.description.contains("admin only") == true, "the server's own sentence is shown")
        // Still signed in: the credential is kept and the next call works.
        guard case .signedIn = await session.status else {
            Issue.record("a 403 signed the user out: \(await session.status)")
            return
        }
        #expect(store.load(account) != nil)
        #expect(try await client.send(Request<JSONValue>.get("/auth/me"))["id"]?.stringValue == member.name)
        expectNoSecrets([password, member.password] + stored.credential.secretValues, journal: journal)
    }

    @Test @MainActor func aServerNotInAccountsModeIsNotRecognized() async throws {
        let model = model(store: InMemorySecretStore())
        await model.submitAddress(try TestServers.fault().absoluteString)
        guard case .enteringAddress(.notRecognized?) = model.state else {
            Issue.record("expected the address step with a reason, got \(model.state)")
            return
        }
    }
}
