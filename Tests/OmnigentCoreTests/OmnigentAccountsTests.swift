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

    @Test @MainActor func aServerNotInAccountsModeIsNotRecognized() async throws {
        let model = model(store: InMemorySecretStore())
        await model.submitAddress(try TestServers.fault().absoluteString)
        guard case .enteringAddress(.notRecognized?) = model.state else {
            Issue.record("expected the address step with a reason, got \(model.state)")
            return
        }
    }
}
