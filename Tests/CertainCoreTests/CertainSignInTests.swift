import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// Certain's sign-in end to end against the Certain stand-in (Servers/certain), one account per test
    /// after a reset; serialized because they share the server's fixture.
    @Suite struct CertainSignInTests {
        let control: CertainControl
        let journal = Journal()

        init() async throws {
            control = try await CertainControl()
            try await control.reset()
        }

        @MainActor func model(store: any SecretStore) -> SignInModel {
            let journal = self.journal
            return SignInModel(policy: SignInFixture.policy, store: store, journal: journal) { address in
                CertainSignIn(
                    address: address, client: SignInFixture.client(address.url, journal: journal),
                    tokenName: "CompanionKit tests (Linux)")
            }
        }

        @Test("C-AUTH-1 C-TOK-1 C-TOK-3 C-TOK-4 C-AUTH-7") @MainActor
        func plainSignInMintsATokenStoresItAndDropsTheCookie() async throws {
            let folder = SignInFixture.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = FileSecretStore(folder: folder)
            let password = try await control.password("plain")
            let model = model(store: store)
            await model.submitAddress(control.url.absoluteString)
            #expect(model.state == .enteringPassword(try SignInFixture.address(control.url), problem: nil))
            await model.submitPassword(username: "plain", password: password)
            guard case .signedIn(let account) = model.state else {
                Issue.record("not signed in: \(model.state)")
                return
            }
            let stored = try #require(try store.load(account))
            guard case .headerToken(let header, let token) = stored.credential else {
                Issue.record("expected a header token, got \(stored.credential)")
                return
            }
            #expect(header == "X-Certain-Token")
            #expect(token.hasPrefix("ctk_"))
            #expect(account.userID == "1")
            // C-TOK-4: nothing on disk holds the password, sealed or not.
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                #expect(!String(decoding: data, as: UTF8.self).contains(password))
                #expect(!String(decoding: data, as: UTF8.self).contains(token))
            }
            // C-AUTH-7 and C-TOK-3: the token alone reads /api/auth/me, with no cookie.
            let session = try CredentialSession(account: account, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            let me = try await client.send(Request<JSONValue>.get("/api/auth/me"))
            #expect(me["username"]?.stringValue == "plain")
            let log = try await control.requests()
            let mintIndex = try #require(log.lastIndex { $0["path"]?.stringValue == "/api/inbox/tokens" })
            for entry in log[(mintIndex + 1)...] where entry["path"]?.stringValue != "/api/auth/logout" {
                #expect(entry["cookie"]?.boolValue == false)
                #expect(entry["token"]?.boolValue == true)
            }
            let anonymous = SignInFixture.client(control.url, journal: journal)
            await #expect(throws: HTTPError.self) { try await anonymous.send(Request<JSONValue>.get("/api/auth/me")) }
            expectNoSecrets([password, token], journal: journal)
        }

        @Test("C-AUTH-2") @MainActor func wrongPasswordStaysOnTheStepWithTheServerSentenceAndStoresNothing()
            async throws
        {
            let store = InMemorySecretStore()
            let model = model(store: store)
            await model.submitAddress(control.url.absoluteString)
            let wrong = "wrong-Passw0rd-999"
            await model.submitPassword(username: "plain", password: wrong)
            guard case .enteringPassword(_, let problem?) = model.state, case .wrongCredentials(let sentence) = problem
            else {
                Issue.record("expected the password step with a reason, got \(model.state)")
                return
            }
            #expect(sentence == "Wrong user name or password.")
            #expect(store.accounts().isEmpty)
            expectNoSecrets([wrong], journal: journal, texts: [problem.description])
        }

        @Test("C-AUTH-3 C-AUTH-4") @MainActor func secondFactorWrongCodeThenRightCodeAndAReusedCodeIsRefused()
            async throws
        {
            let password = try await control.password("totp")
            let model = model(store: InMemorySecretStore())
            await model.submitAddress(control.url.absoluteString)
            await model.submitPassword(username: "totp", password: password)
            guard case .enteringCode(_, "totp", let kinds, nil) = model.state else {
                Issue.record("expected the code step, got \(model.state)")
                return
            }
            #expect(kinds.contains(.totp))
            await model.submitCode("000000")
            guard case .enteringCode(_, _, _, .wrongCode(let sentence)?) = model.state else {
                Issue.record("expected the code step with a reason, got \(model.state)")
                return
            }
            #expect(sentence == "Invalid code.")
            let code = try await control.totp("totp")
            await model.submitCode(code)
            guard case .signedIn = model.state else {
                Issue.record("expected signed in, got \(model.state)")
                return
            }
            // The same code again, on a new sign-in within its window: refused.
            let again = self.model(store: InMemorySecretStore())
            await again.submitAddress(control.url.absoluteString)
            await again.submitPassword(username: "totp", password: password)
            await again.submitCode(code)
            guard case .enteringCode(_, _, _, .wrongCode?) = again.state else {
                Issue.record("a reused code was accepted: \(again.state)")
                return
            }
            expectNoSecrets([password, code], journal: journal)
        }

        @Test("C-AUTH-3 C-AUTH-4") @MainActor func aRecoveryCodeWorksOnce() async throws {
            let password = try await control.password("totp")
            let recovery = try #require(try await control.recoveryCodes("totp").first)
            for attempt in 0..<2 {
                let model = model(store: InMemorySecretStore())
                await model.submitAddress(control.url.absoluteString)
                await model.submitPassword(username: "totp", password: password)
                await model.submitCode(recovery, kind: .recoveryCode)
                if attempt == 0 {
                    guard case .signedIn = model.state else {
                        Issue.record("the recovery code was refused: \(model.state)")
                        return
                    }
                } else {
                    guard case .enteringCode(_, _, _, .wrongCode?) = model.state else {
                        Issue.record("a used recovery code was accepted: \(model.state)")
                        return
                    }
                }
            }
            expectNoSecrets([password, recovery], journal: journal)
        }

        @Test("C-AUTH-5") @MainActor func forcedPasswordChangeBlocksMintingUntilDone() async throws {
            let password = try await control.password("mustchange")
            // Until the change, every other call with the pending cookie gets 403, minting included; the core's
            // mint in that state fails, and no token exists.
            let flow = CertainSignIn(
                address: try SignInFixture.address(control.url),
                client: SignInFixture.client(control.url, journal: journal),
                tokenName: "CompanionKit tests (Linux)")
            #expect(try await flow.signIn(username: "mustchange", password: password) == .passwordChange)
            await #expect(throws: AuthError.self) { _ = try await flow.issueCredential() }
            let pending = try await SignInFixture.client(control.url, journal: journal).exchange(
                Request<JSONValue>.post(
                    "/api/auth/login", body: ["username": "mustchange", "password": JSONValue.string(password)]))
            let cookie = try #require(
                pending.response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            let web = SignInFixture.client(control.url, journal: journal)
            for request in [
                Request<JSONValue>.post("/api/inbox/tokens", body: ["scope": "app"]),
                Request<JSONValue>.get("/api/accounts"),
                Request<JSONValue>.get("/api/auth/me"),
            ] {
                var withCookie = request
                withCookie.headers["Cookie"] = cookie
                let reply = try await web.reply(withCookie)
                #expect(reply.status == 403, "\(request.path)")
                #expect(reply.failure?.envelope?.code == "password_change_required", "\(request.path)")
            }
            #expect(
                try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue?.isEmpty == true)
            let model = model(store: InMemorySecretStore())
            await model.submitAddress(control.url.absoluteString)
            await model.submitPassword(username: "mustchange", password: password)
            guard case .changingPassword(_, "mustchange", nil) = model.state else {
                Issue.record("expected the password change, got \(model.state)")
                return
            }
            await model.submitNewPassword(current: password, new: "short")
            guard case .changingPassword(_, _, .passwordRefused?) = model.state else {
                Issue.record("a weak password was accepted: \(model.state)")
                return
            }
            let new = "a-much-Better-passw0rd"
            await model.submitNewPassword(current: password, new: new)
            guard case .signedIn = model.state else {
                Issue.record("expected signed in, got \(model.state)")
                return
            }
            // After the change, minting went through: one token.
            #expect(try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue?.count == 1)
            expectNoSecrets([password, new], journal: journal)
        }

        @Test("C-AUTH-6") @MainActor func mfaPolicyShowsTheWebSetupLinkAndMintsNothing() async throws {
            let password = try await control.password("mfapolicy")
            let store = InMemorySecretStore()
            let model = model(store: store)
            await model.submitAddress(control.url.absoluteString)
            await model.submitPassword(username: "mfapolicy", password: password)
            guard case .needsWebSetup(_, let url?) = model.state else {
                Issue.record("expected the web setup notice, got \(model.state)")
                return
            }
            #expect(url.path == "/einstellungen/sicherheit")
            #expect(store.accounts().isEmpty)
            #expect(try await control.requests().allSatisfy { $0["path"]?.stringValue != "/api/inbox/tokens" })
        }

        @Test("C-ADDR-3") @MainActor func aServerThatIsNotCertainStaysOnTheAddressStep() async throws {
            /// The address step's reason after probing `url`, or `nil` when the probe passed.
            func reason(_ url: URL) async throws -> String? {
                let model = model(store: InMemorySecretStore())
                await model.submitAddress(url.absoluteString)
                switch model.state {
                case .enteringAddress(.notRecognized(let reason)?): return reason
                case .enteringPassword: return nil
                default: throw Failure("unexpected state \(model.state)")
                }
            }
            // Certain answers: the sign-in step.
            #expect(try await reason(control.url) == nil)
            // Other JSON (the fault server's version has no "name": "certain").
            let other = try #require(try await reason(try TestServers.fault()))
            // A 404, and an HTML page, where the version should be (the stand-in armed for one request each).
            try await control.post("/_control/fail", ["path": "/api/version", "status": 404, "times": 1])
            let missing = try #require(try await reason(control.url))
            try await control.post(
                "/_control/fail",
                [
                    "path": "/api/version", "status": 200, "times": 1, "body": "<html><body>Welcome</body></html>",
                    "content_type": "text/html",
                ])
            let html = try #require(try await reason(control.url))
            // A TLS failure (an untrusted certificate) and a network failure (nothing listens).
            let tls = try #require(try await reason(try TestServers.faultTLS()))
            let network = try #require(try await reason(deadServer))
            #expect(missing.contains("404"))
            #expect(html.contains("text/html"))
            #expect(other.contains("not Certain"))
            #expect(tls.lowercased().contains("certificate") || tls.lowercased().contains("secure"))
            #expect(network.contains("Could not reach"))
            #expect(Set([other, missing, html, tls, network]).count == 5, "the reasons must tell the cases apart")
        }

        @Test("C-ADDR-1 C-ADDR-2") @MainActor func plainHTTPIsRefusedByDefaultBeforeAnyRequest() async throws {
            let model = SignInModel(store: InMemorySecretStore()) { address in
                CertainSignIn(address: address, client: TestClients.loopback(address.url), tokenName: "x")
            }
            let before = try await control.requests().count
            await model.submitAddress(control.url.absoluteString)
            guard case .enteringAddress(.notRecognized(let reason)?) = model.state else {
                Issue.record("expected a refusal, got \(model.state)")
                return
            }
            #expect(reason.lowercased().contains("http"))
            #expect(try await control.requests().count == before)
        }

        /// Signs `user` in and returns the store, the account and the stored credential.
        @MainActor func signIn(_ user: String, store: any SecretStore) async throws -> StoredCredential {
            let model = model(store: store)
            await model.submitAddress(control.url.absoluteString)
            await model.submitPassword(username: user, password: try await control.password(user))
            guard case .signedIn(let account) = model.state else {
                throw AuthError.invalidStep("sign-in failed: \(model.state)")
            }
            return try #require(try store.load(account))
        }

        @Test("C-TOK-6 M-DRAFT-2") @MainActor func revokedTokenSignsOutKeepsTheAccountAndTheSameUserResumes()
            async throws
        {
            let store = InMemorySecretStore()
            let stored = try await signIn("plain", store: store)
            var drafts: [AccountKey: String] = [stored.account: "half-written note"]
            let session = CredentialSession(stored: stored, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            _ = try await client.send(Request<JSONValue>.get("/api/settings"))
            // Revoke from the "web settings": a cookie session of the same user deletes the token.
            let web = SignInFixture.client(control.url, journal: journal)
            let login = try await web.exchange(
                Request<JSONValue>.post(
                    "/api/auth/login",
                    body: ["username": "plain", "password": try await control.password("plain")]))
            let cookie = try #require(
                login.response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            let id = try #require(stored.serverID)
            _ = try await web.send(Request<Void>.empty(.delete, "/api/inbox/tokens/\(id)", headers: ["Cookie": cookie]))
            let error = await #expect(throws: HTTPError.self) {
                try await client.send(Request<JSONValue>.get("/api/settings"))
            }
            #expect(error?.envelope?.code == "token_revoked")
            #expect(
                await session.status
                    == .signedOut(
                        account: stored.account,
                        reason: .signedOut(status: 401, serverSentence: "The device token was revoked.")))
            #expect(store.accounts().isEmpty)
            // The same user signs in again: same account key, the draft is found; another user finds none.
            let again = try await signIn("plain", store: store)
            #expect(drafts[again.account] == "half-written note")
            let other = try await signIn("other", store: store)
            #expect(drafts[other.account] == nil)
            drafts.removeAll()
            expectNoSecrets(stored.credential.secretValues, journal: journal, texts: [String(describing: error)])
        }

        @Test("C-TOK-8") @MainActor func aLostMintReplyIsResentWithTheSameKeyAndMintsOneToken() async throws {
            try await control.post(
                "/_control/drop-reply", ["path": .string("/api/inbox/tokens"), "times": .integer(1)])
            let store = InMemorySecretStore()
            let stored = try await signIn("plain", store: store)
            let tokens = try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue ?? []
            #expect(tokens.count == 1)
            #expect(tokens.first?["id"]?.intValue.map(String.init) == stored.serverID)
            let mints = try await control.requests().filter { $0["path"]?.stringValue == "/api/inbox/tokens" }
            #expect(mints.count == 2)
            let session = CredentialSession(stored: stored, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            #expect(try await client.send(Request<JSONValue>.get("/api/auth/me"))["username"]?.stringValue == "plain")
        }

        @Test("C-TOK-5 C-TOK-10") @MainActor func theTokenOutlivesA30DayCookieAndIsNamedAfterTheDevice() async throws {
            let store = InMemorySecretStore()
            let stored = try await signIn("plain", store: store)
            let tokens = try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue ?? []
            #expect(tokens.first?["name"]?.stringValue == "CompanionKit tests (Linux)")
            let web = SignInFixture.client(control.url, journal: journal)
            let login = try await web.exchange(
                Request<JSONValue>.post(
                    "/api/auth/login",
                    body: ["username": "plain", "password": try await control.password("plain")]))
            let cookie = try #require(
                login.response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
            try await control.post("/_control/clock", ["advance_days": .integer(31)])
            let session = CredentialSession(stored: stored, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            #expect(try await client.send(Request<JSONValue>.get("/api/auth/me"))["username"]?.stringValue == "plain")
            let error = await #expect(throws: HTTPError.self) {
                try await web.send(Request<JSONValue>(path: "/api/auth/me", headers: ["Cookie": cookie]))
            }
            #expect(error?.envelope?.code == "session_expired")
        }

        @Test("C-TOK-7") @MainActor func aDeviceTokenCannotMintAnotherAndStaysSignedIn() async throws {
            let store = InMemorySecretStore()
            let stored = try await signIn("plain", store: store)
            let session = CredentialSession(stored: stored, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            let tokensBefore =
                try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue ?? []
            let error = await #expect(throws: AuthError.self) {
                _ = try await CertainSignIn.mint(client: client, name: "thief")
            }
            let tokensAfter = try await control.client.send(Request<JSONValue>.get("/_control/tokens")).arrayValue ?? []
            #expect(tokensAfter == tokensBefore)  // the server's token count is unchanged
            #expect(tokensAfter.count == 1)
            guard case .tokenCannotMint(let sentence)? = error else {
                Issue.record("expected tokenCannotMint, got \(String(describing: error))")
                return
            }
            #expect(sentence == "A device token cannot issue a token.")
            #expect(error?.description.contains("real sign-in") == true)
            #expect(await session.status == .signedIn(stored.account))
        }

        @Test("O-12") @MainActor func signOutRevokesTheOwnTokenOnTheServer() async throws {
            let store = InMemorySecretStore()
            let stored = try await signIn("plain", store: store)
            let session = CredentialSession(stored: stored, store: store, journal: journal)
            let client = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: session, rule: CertainServer.revocation)]
            )
            #expect(await CertainSignIn.signOut(session: session, client: client) == nil)
            #expect(store.accounts().isEmpty)
            let reuse = CredentialSession(stored: stored, store: InMemorySecretStore(), journal: journal)
            let stale = SignInFixture.client(
                control.url, journal: journal,
                middlewares: [AuthenticationMiddleware(session: reuse, rule: CertainServer.revocation)])
            let error = await #expect(throws: HTTPError.self) {
                try await stale.send(Request<JSONValue>.get("/api/auth/me"))
            }
            #expect(error?.envelope?.code == "token_revoked")
        }
    }
}
