import AllauthAdapter
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The generic flow against a real django-allauth headless (app client, `X-Session-Token`): password,
/// TOTP and recovery codes, sessions list and end, password change with token rotation. Each test signs
/// up its own user; serialized because SQLite behind runserver serialises writes anyway.
@Suite(.serialized) struct AllauthTests {
    let url: URL
    let journal = Journal()
    let prefix = AllauthSignIn.prefix

    init() throws { url = try TestServers.url("ALLAUTH_URL") }

    /// A fresh user; returns name, password and the signup's session token.
    func signUp(totp: Bool = false) async throws -> (
        name: String, password: String, secret: String?, recovery: [String]
    ) {
        let name = "u" + UUID().uuidString.prefix(12).lowercased()
        let password = "pw-" + UUID().uuidString
        let client = SignInFixture.client(url, journal: journal)
        let signup = try await client.send(
            Request<JSONValue>.post(prefix + "/auth/signup", body: ["username": name, "password": password]))
        let token = try #require(signup["meta"]?["session_token"]?.stringValue)
        guard totp else { return (name, password, nil, []) }
        let headers: HTTPHeaders = ["X-Session-Token": token]
        let setup = try await anyStatus(client, .get, prefix + "/account/authenticators/totp", headers: headers)
        let secret = try #require(setup["meta"]?["secret"]?.stringValue)
        var activate = Request<JSONValue>.post(
            prefix + "/account/authenticators/totp", body: ["code": try totpCode(secret)])
        activate.headers["X-Session-Token"] = token
        do {
            _ = try await client.send(activate)
        } catch {
            var reauth = Request<JSONValue>.post(prefix + "/auth/reauthenticate", body: ["password": password])
            reauth.headers["X-Session-Token"] = token
            _ = try await client.send(reauth)
            _ = try await client.send(activate)
        }
        let codes = try await client.send(
            Request<JSONValue>(path: prefix + "/account/authenticators/recovery-codes", headers: headers))
        let recovery = (codes["data"]?["unused_codes"]?.arrayValue ?? []).compactMap(\.stringValue)
        return (name, password, secret, recovery)
    }

    /// The JSON body of a reply of any status (allauth puts data in its 401 and 404 replies).
    func anyStatus(_ client: Client, _ method: HTTPMethod, _ path: String, headers: HTTPHeaders) async throws
        -> JSONValue
    {
        let (_, body) = try await client.open(Request<Void>.empty(method, path, headers: headers))
        return try #require(JSONValue(data: try await body.collect(upTo: 1 << 20)))
    }

    @MainActor func model(store: any SecretStore) -> SignInModel {
        let journal = self.journal
        return SignInModel(policy: SignInFixture.policy, store: store, journal: journal) { address in
            AllauthSignIn(address: address, client: SignInFixture.client(address.url, journal: journal))
        }
    }

    @MainActor func signIn(_ user: String, _ password: String, store: any SecretStore, code: String? = nil) async throws
        -> SignInModel
    {
        let model = model(store: store)
        await model.submitAddress(url.absoluteString)
        await model.submitPassword(username: user, password: password)
        if let code { await model.submitCode(code) }
        return model
    }

    @Test @MainActor func passwordSignInStoresTheSessionTokenAndWrongPasswordIsRefused() async throws {
        let user = try await signUp()
        let store = InMemorySecretStore()
        let wrong = try await signIn(user.name, "wrong-Passw0rd-77", store: store)
        guard case .enteringPassword(_, .wrongCredentials(let sentence)?) = wrong.state else {
            Issue.record("expected a refusal, got \(wrong.state)")
            return
        }
        #expect(sentence?.contains("not correct") == true)
        let model = try await signIn(user.name, user.password, store: store)
        guard case .signedIn(let account) = model.state else {
            Issue.record("expected signed in, got \(model.state)")
            return
        }
        let stored = try #require(store.load(account))
        guard case .sessionToken = stored.credential else {
            Issue.record("expected a session token, got \(stored.credential)")
            return
        }
        let session = CredentialSession(stored: stored, store: store, journal: journal)
        let client = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: session, rule: .allauth)])
        let me = try await client.send(Request<JSONValue>.get(prefix + "/auth/session"))
        #expect(me["data"]?["user"]?["username"]?.stringValue == user.name)
        expectNoSecrets([user.password] + stored.credential.secretValues, journal: journal)
    }

    @Test @MainActor func totpWrongCodeRightCodeReusedCodeAndARecoveryCode() async throws {
        let user = try await signUp(totp: true)
        let secret = try #require(user.secret)
        let model = try await signIn(user.name, user.password, store: InMemorySecretStore())
        guard case .enteringCode(_, _, let kinds, nil) = model.state else {
            Issue.record("expected the code step, got \(model.state)")
            return
        }
        #expect(kinds == [.totp, .recoveryCode])
        await model.submitCode("000000")
        guard case .enteringCode(_, _, _, .wrongCode?) = model.state else {
            Issue.record("a wrong code was accepted: \(model.state)")
            return
        }
        // The next window's code (the server tolerates one window), so the activation code is not reused.
        let code = try totpCode(secret, offset: 1)
        await model.submitCode(code)
        guard case .signedIn = model.state else {
            Issue.record("the right code was refused: \(model.state)")
            return
        }
        let reused = try await signIn(user.name, user.password, store: InMemorySecretStore(), code: code)
        guard case .enteringCode(_, _, _, .wrongCode?) = reused.state else {
            Issue.record("a reused code was accepted: \(reused.state)")
            return
        }
        let recovery = try #require(user.recovery.first)
        let viaRecovery = try await signIn(user.name, user.password, store: InMemorySecretStore(), code: recovery)
        guard case .signedIn = viaRecovery.state else {
            Issue.record("the recovery code was refused: \(viaRecovery.state)")
            return
        }
        let again = try await signIn(user.name, user.password, store: InMemorySecretStore(), code: recovery)
        guard case .enteringCode(_, _, _, .wrongCode?) = again.state else {
            Issue.record("a used recovery code was accepted: \(again.state)")
            return
        }
        expectNoSecrets([user.password, secret, code, recovery], journal: journal)
    }

    @MainActor func signedInSession(_ user: String, _ password: String, agent: String) async throws -> (
        CredentialSession, Client, InMemorySecretStore
    ) {
        let store = InMemorySecretStore()
        let journal = self.journal
        let model = SignInModel(policy: SignInFixture.policy, store: store, journal: journal) { address in
            AllauthSignIn(
                address: address,
                client: Client(
                    baseURL: address.url,
                    configuration: Client.Configuration(
                        defaultHeaders: ["User-Agent": agent, "Accept": "application/json"], retryPolicy: .never,
                        transportPolicy: SignInFixture.policy, journal: journal)))
        }
        await model.submitAddress(url.absoluteString)
        await model.submitPassword(username: user, password: password)
        guard case .signedIn(let account) = model.state, let stored = store.load(account) else {
            throw AuthError.invalidStep("sign-in failed: \(model.state)")
        }
        let session = CredentialSession(stored: stored, store: store, journal: journal)
        let client = Client(
            baseURL: url,
            configuration: Client.Configuration(
                defaultHeaders: ["User-Agent": agent, "Accept": "application/json"], retryPolicy: .never,
                middlewares: [AuthenticationMiddleware(session: session, rule: .allauth)],
                transportPolicy: SignInFixture.policy,
                journal: journal))
        return (session, client, store)
    }

    @Test("M-SESS-1 M-SESS-2 M-SESS-4 M-SESS-5 M-AUTH-8") @MainActor
    func sessionsListMarksThisDeviceEndingAnotherOneAndThenOurOwn() async throws {
        let user = try await signUp()
        let (phone, phoneClient, phoneStore) = try await signedInSession(user.name, user.password, agent: "ci-device-1")
        let (laptop, laptopClient, _) = try await signedInSession(user.name, user.password, agent: "ci-device-2")
        let account = AllauthAccount(client: phoneClient, credentials: phone)
        let list = try await account.sessions()
        #expect(list.filter(\.isCurrent).count == 1)
        #expect(list.first(where: \.isCurrent)?.client == "ci-device-1")
        let other = try #require(list.first { $0.client == "ci-device-2" })
        #expect(other.openedAt != nil && other.lastUsedAt != nil && other.openedFrom == "127.0.0.1")
        // End the laptop's session from the phone: the laptop is signed out (a session ended elsewhere).
        try await SessionEnding.end(other, in: account, credentials: phone)
        #expect(await phone.status != .signedOut(account: nil, reason: nil))
        let error = await #expect(throws: HTTPError.self) {
            try await laptopClient.send(Request<JSONValue>.get(prefix + "/auth/session"))
        }
        #expect([401, 410].contains(error?.statusCode ?? 0))
        guard case .signedOut(_, .signedOut?) = await laptop.status else {
            Issue.record("the laptop stayed signed in: \(await laptop.status)")
            return
        }
        // End our own: signed out, the stored credential deleted, the account kept.
        let own = try #require(try await account.sessions().first(where: \.isCurrent))
        try await SessionEnding.end(own, in: account, credentials: phone)
        guard case .signedOut(let kept?, nil) = await phone.status else {
            Issue.record("ending our own session did not sign out: \(await phone.status)")
            return
        }
        #expect(phoneStore.load(kept) == nil)
    }

    @Test @MainActor func passwordChangeRotatesTheTokenAndTheOldOneIsRefused() async throws {
        let user = try await signUp()
        let (session, client, store) = try await signedInSession(user.name, user.password, agent: "ci-device-3")
        let before = try #require(await session.credential)
        let new = "new-" + UUID().uuidString
        try await AllauthAccount(client: client, credentials: session).changePassword(current: user.password, new: new)
        let after = try #require(await session.credential)
        #expect(after.credential != before.credential)
        #expect(store.load(after.account) == after)
        let me = try await client.send(Request<JSONValue>.get(prefix + "/auth/session"))
        #expect(me["data"]?["user"]?["username"]?.stringValue == user.name)
        let stale = CredentialSession(stored: before, store: InMemorySecretStore(), journal: journal)
        let staleClient = SignInFixture.client(
            url, journal: journal, middlewares: [AuthenticationMiddleware(session: stale, rule: .allauth)])
        let error = await #expect(throws: HTTPError.self) {
            try await staleClient.send(Request<JSONValue>.get(prefix + "/auth/session"))
        }
        #expect([401, 410].contains(error?.statusCode ?? 0))
        expectNoSecrets(
            [user.password, new] + before.credential.secretValues + after.credential.secretValues, journal: journal)
    }
}

/// The RFC 6238 code for `secret`, `offset` windows from now, computed by pyotp in the allauth server's venv
/// (`$COMPANION_VENVS`, else `<repo>/.venvs`, as the server scripts place it; the kit never computes codes).
func totpCode(_ secret: String, offset: Int = 0) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let venvs = ProcessInfo.processInfo.environment["COMPANION_VENVS"].map { URL(fileURLWithPath: $0) }
    let python = (venvs ?? root.appendingPathComponent(".venvs")).appendingPathComponent("allauth/bin/python")
    let result = try ChildProcess.runBlocking(
        python.path,
        [
            "-c", "import pyotp, sys, time; print(pyotp.TOTP(sys.argv[1]).at(time.time() + 30 * int(sys.argv[2])))",
            secret, String(offset),
        ])
    return result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
}
