import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// Address probe and sign-in against the real Home Assistant 2025.4.4 (H-ADDR-3, H-AUTH-1..10, 12, H-TOK-1, 10).
@Suite struct SignInTests {
    let server: HomeAssistantFixture

    init() throws { server = try HomeAssistantFixture() }

    @Test("TOTP helper: RFC 6238's SHA-1 vectors (59 s → 94287082, 1111111109 s → 07081804)")
    func totpVectors() {
        let key = Array("12345678901234567890".utf8)
        #expect(TOTP.code(key: key, counter: 59 / 30, digits: 8) == "94287082")
        #expect(TOTP.code(key: key, counter: 1_111_111_109 / 30, digits: 8) == "07081804")
    }

    @Test("H-ADDR-3: the real server is ready with its homeassistant provider; the fault server is no Home Assistant")
    func probe() async throws {
        let environment = TestEnvironments.loopback()
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(try server.address(environment), recorder: recorder)
        let result = try await signIn.probeServer()
        #expect(
            result == .ready(providers: [ProbeResult.Provider(type: "homeassistant", name: "Home Assistant Local")]))
        #expect(recorder.lines == ["GET /manifest.json", "GET /auth/providers"])
        #expect(recorder.requests.allSatisfy { $0.headers["Authorization"] == nil })
        let fault = try ServerAddress(
            parsing: try TestServers.fault().absoluteString, policy: .allowingInsecureLoopback)
        let other = try environment.homeAssistantSignIn(fault, recorder: RequestRecorder())
        guard case .notHomeAssistant = try await other.probeServer() else {
            Issue.record("the fault server was taken for Home Assistant")
            return
        }
    }

    @Test("H-AUTH-1 H-AUTH-3 H-TOK-1 H-AUTH-12: password sign-in with the server's own origin as client; tokens stored")
    func passwordSignIn() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_796_600_000))
        let journal = Journal(clock: clock)
        let secrets = InMemorySecretStore()
        let environment = TestEnvironments.loopback(secrets: secrets, journal: journal, clock: clock)
        let address = try server.address(environment)
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(address, recorder: recorder)
        let model = await SignInModel(
            policy: environment.transportPolicy, address: address, store: secrets, journal: journal
        ) { _ in signIn }
        await model.submitPassword(username: server.user, password: server.password)
        let state = await model.state
        guard case .signedIn(let account) = state else {
            Issue.record("not signed in: \(state)")
            return
        }
        #expect(account == AccountKey(address: address, userID: server.user))
        let loaded = secrets.load(account)
        let stored = try #require(loaded)
        #expect(stored.serverID == address.origin + "/")
        guard case .bearer(let access, let refresh?, let expiresAt?) = stored.credential else {
            Issue.record("not a bearer with refresh and expiry: \(stored.credential)")
            return
        }
        // Booleans, so a failure never prints a token.
        let shapes = TokenShape.jwt.accepts(access) && refresh.count == 128
        #expect(shapes, "a JWT access token and a 128-character refresh token")
        #expect(expiresAt == clock.now().addingTimeInterval(1800))
        // The flow's requests: no PKCE (2025.4.4 lists no S256), the client id and redirect of the origin.
        #expect(
            recorder.lines == [
                "GET /.well-known/oauth-authorization-server", "POST /auth/login_flow",
                "POST /auth/login_flow/"
                    + (recorder.requests[2].url.lastPathComponent), "POST /auth/token",
            ])
        let startBody = try #require(recorder.requests[1].body)
        let start = try #require(JSONValue(data: startBody))
        #expect(start["client_id"] == .string(address.origin + "/"))
        #expect(start["redirect_uri"] == .string(address.origin + "/?auth_callback=1"))
        #expect(start["handler"] == ["homeassistant", nil])
        #expect(start["code_challenge"] == nil && start["code_challenge_method"] == nil)
        let exchangeBody = try #require(recorder.requests[3].body)
        let exchange = String(decoding: exchangeBody, as: UTF8.self)
        #expect(exchange.contains("grant_type=authorization_code") && !exchange.contains("code_verifier"))
        #expect(recorder.requests[3].headers["Content-Type"] == "application/x-www-form-urlencoded")
        // H-AUTH-12: no password in the journal, nor in what the store holds.
        let journalText = String(decoding: journal.exportJSONLines(), as: UTF8.self)
        #expect(!journalText.contains(server.password))
        #expect(!String(describing: stored).contains(server.password))
    }

    @Test("H-AUTH-4: a wrong password stays on the password step and the next attempt posts to the same flow")
    func wrongPassword() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(address, recorder: recorder)
        let model = await SignInModel(
            policy: environment.transportPolicy, address: address, store: environment.secrets
        ) { _ in signIn }
        await model.submitPassword(username: server.user, password: "not-the-password")
        #expect(await model.state == .enteringPassword(address, problem: .wrongCredentials(serverSentence: nil)))
        await model.submitPassword(username: server.user, password: server.password)
        guard case .signedIn = await model.state else {
            Issue.record("not signed in after the right password: \(await model.state)")
            return
        }
        let steps = recorder.lines.filter { $0.hasPrefix("POST /auth/login_flow") }
        #expect(steps.count == 3)
        #expect(steps[1] == steps[2] && steps[1] != "POST /auth/login_flow")
    }

    @Test("H-AUTH-5: the TOTP step — a wrong code stays on the step, the right one signs in")
    func totpStep() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        let model = await SignInModel(
            policy: environment.transportPolicy, address: address, store: environment.secrets
        ) { _ in signIn }
        await model.submitPassword(username: server.totpUser, password: server.totpPassword)
        #expect(
            await model.state == .enteringCode(address, username: server.totpUser, kinds: [.totp], problem: nil))
        let wrong = server.totp(at: Date().addingTimeInterval(-3600))
        await model.submitCode(wrong)
        #expect(
            await model.state
                == .enteringCode(
                    address, username: server.totpUser, kinds: [.totp], problem: .wrongCode(serverSentence: nil)))
        await model.submitCode(server.totp())
        guard case .signedIn(let account) = await model.state else {
            Issue.record("not signed in with the current code: \(await model.state)")
            return
        }
        #expect(account.userID == server.totpUser)
    }

    @Test("H-AUTH-5 H-AUTH-6: the 5th wrong code ends the attempt (too_many_retry); the next attempt is a new flow")
    func tooManyCodes() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(address, recorder: recorder)
        let model = await SignInModel(
            policy: environment.transportPolicy, address: address, store: environment.secrets
        ) { _ in signIn }
        await model.submitPassword(username: server.totpUser, password: server.totpPassword)
        let wrong = server.totp(at: Date().addingTimeInterval(-3600))
        for attempt in 1...4 {
            await model.submitCode(wrong)
            guard case .enteringCode(_, _, _, problem: .wrongCode?) = await model.state else {
                Issue.record("attempt \(attempt): \(await model.state)")
                return
            }
        }
        await model.submitCode(wrong)
        #expect(
            await model.state
                == .enteringPassword(address, problem: .signInEnded(.tooManyAttempts, serverSentence: nil)))
        let flowsBefore = recorder.lines.filter { $0 == "POST /auth/login_flow" }.count
        await model.submitPassword(username: server.totpUser, password: server.totpPassword)
        guard case .enteringCode = await model.state else {
            Issue.record("the new attempt did not reach the code step: \(await model.state)")
            return
        }
        #expect(recorder.lines.filter { $0 == "POST /auth/login_flow" }.count == flowsBefore + 1)
    }

    @Test("H-AUTH-7: a code is exchanged once; the server refuses it again (400 Invalid code) and a JSON body")
    func codeExchangedOnce() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(address, recorder: recorder)
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        _ = try await signIn.issueCredential()
        await #expect(throws: AuthError.self) { try await signIn.issueCredential() }
        #expect(recorder.lines.filter { $0 == "POST /auth/token" }.count == 1)
        // The server side: a raw flow's code, exchanged twice, and once as JSON.
        let client = environment.client(for: address.url, profile: HomeAssistantServer.profile)
        let clientID = address.origin + "/"
        let flow = try await client.call(
            .post, "/auth/login_flow",
            json: [
                "client_id": .string(clientID), "handler": ["homeassistant", nil],
                "redirect_uri": .string(clientID + "?auth_callback=1"),
            ])
        let flowID = try #require(flow.json?["flow_id"]?.stringValue)
        let done = try await client.call(
            .post, "/auth/login_flow/\(flowID)",
            json: [
                "client_id": .string(clientID), "username": .string(server.user),
                "password": .string(server.password),
            ])
        let code = try #require(done.json?["result"]?.stringValue)
        let asJSON = try await client.call(
            .post, "/auth/token",
            json: ["grant_type": "authorization_code", "code": .string(code), "client_id": .string(clientID)])
        #expect(asJSON.status == 400 && asJSON.json?["error"] == "unsupported_grant_type")
        let form = ["grant_type": "authorization_code", "code": code, "client_id": clientID]
        #expect(try await client.call(.post, "/auth/token", form: form).status == 200)
        let again = try await client.call(.post, "/auth/token", form: form)
        #expect(again.status == 400 && again.json?["error_description"] == "Invalid code")
    }

    @Test("H-AUTH-2: an app's own client page lists its callback; an unlisted callback and a public IP are refused")
    func appClientID() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let page = try TestServers.value("HOMEASSISTANT_CLIENT_ID_URL")
        let listed = try LoginClient(clientID: page, redirectURI: "companionkit://auth-callback")
        let signIn = try environment.homeAssistantSignIn(address, identity: listed, recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let unlisted = try LoginClient(clientID: page, redirectURI: "companionkit://elsewhere")
        let refused = try environment.homeAssistantSignIn(address, identity: unlisted, recorder: RequestRecorder())
        #expect(
            try await refused.signIn(username: server.user, password: server.password)
                == .ended(.signInEnded(.invalidRedirect, serverSentence: "Invalid redirect URI")))
        // Parsed only, never dialled: Home Assistant's client_id rule tells a public IP host (refused) from a
        // private or loopback one (accepted), so these two lists need IP literals of both kinds.
        for bad in [
            "https://8.8.8.8/", "ftp://ha.example/", "https://ha.example/#x", "https://u:p@ha.example/",
            "https://ha.example/a/../b", "https://home-assistant.io/iOS",
        ] {
            #expect(throws: AuthError.signInEnded(.invalidClient, serverSentence: nil), "\(bad)") {
                try LoginClient(clientID: bad, redirectURI: "companionkit://auth-callback")
            }
        }
        // A host Python's `ip_address` does not read (a trailing dot) is a name to Home Assistant, not a public IP.
        for good in [
            "http://127.0.0.1:8123/", "https://192.168.1.20/", "https://10.0.0.2/app", "https://app.example/ha",
            "https://8.8.8.8./",
        ] {
            #expect(throws: Never.self) { try LoginClient(clientID: good, redirectURI: "x://y") }
        }
    }

    @Test(
        "H-AUTH-10: the browser path's URL carries response_type, identity and a 32-byte state; a callback with another state is refused, no token request"
    )
    func browserPath() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let recorder = RequestRecorder()
        let signIn = try environment.homeAssistantSignIn(address, recorder: recorder)
        let (url, state) = try await signIn.authorizationURL()
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(url.path == "/auth/authorize")
        #expect(items.first { $0.name == "response_type" }?.value == "code")
        #expect(items.first { $0.name == "client_id" }?.value == address.origin + "/")
        #expect(state.count == 43)
        #expect(!items.contains { $0.name.hasPrefix("code_challenge") })
        let forged = try #require(URL(string: address.origin + "/?auth_callback=1&code=abc&state=other"))
        await #expect(throws: AuthError.self) { try await signIn.acceptCallback(forged, state: state, username: "ci") }
        await #expect(throws: AuthError.self) { try await signIn.issueCredential() }
        #expect(!recorder.lines.contains("POST /auth/token"))
    }

    @Test("H-TOK-10: a long-lived token is the other way in (GET /api/ 200); a wrong one is refused")
    func longLivedToken() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let client = environment.client(for: address.url, profile: HomeAssistantServer.profile)
        let stored = try await HomeAssistantSignIn.longLivedToken(
            server.longLivedToken, user: server.user, address: address, client: client)
        let asGiven =
            stored.credential == .bearer(accessToken: server.longLivedToken, refreshToken: nil, expiresAt: nil)
        #expect(asGiven, "the long-lived token is stored as a bearer without refresh or expiry")
        let parts = server.longLivedToken.split(separator: ".")
        let forged = parts[0] + "." + parts[1] + ".AAAA"
        await #expect(throws: AuthError.wrongCredentials(serverSentence: "Home Assistant refused the token")) {
            try await HomeAssistantSignIn.longLivedToken(String(forged), user: "ci", address: address, client: client)
        }
    }
}
