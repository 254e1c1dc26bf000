import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import MainworthyCore
import Testing

/// Every test against the reference server runs in this one serialized suite: they share the server
/// and reset its fixture.
@Suite(.serialized, .exclusive("mainworthy")) struct AgainstReferenceServer {}

extension AgainstReferenceServer {
    @Suite struct SignIn {
        @MainActor @Test func signingInStoresTheCookieSessionAndNeverThePassword() async throws {  // M-AUTH-2
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let journal = Journal()
            let password = try await server.password("ada")
            let environment = ReferenceServer.environment(secrets: secrets, journal: journal)
            let signIn = try server.signInModel(environment)
            await signIn.submitPassword(username: "ada", password: password)
            guard case .signedIn(let account) = signIn.state else {
                Issue.record("not signed in: \(signIn.state)")
                return
            }
            let stored = try #require(secrets.load(account))
            guard case .sessionCookie(let name, let value) = stored.credential else {
                Issue.record("expected a session cookie, got \(stored.credential)")
                return
            }
            #expect(name == "mw_session" && !value.isEmpty)
            let opened = try await MainworthyServer.open(
                build: server.build(), account: account, environment: environment)
            let sessions = try await opened.read(MainworthyAPI.sessions()).items
            #expect(stored.serverID == sessions.first { $0.current }?.id)
            let encoded = String(decoding: try Client.encodeJSON(stored), as: UTF8.self)
            #expect(!encoded.contains(password))
            let logged = journal.events.map { "\($0.message) \($0.fields)" }.joined(separator: "\n")
            #expect(!logged.contains(password) && !logged.contains(value))
            let posted = try await server.log().posts(endingWith: "/api/sessions")
            #expect(posted.count == 1 && posted[0].status == 201 && posted[0].idempotencyKey != nil)
        }

        @MainActor @Test func theNewSessionIsListedAsMainworthyForIPhoneOpenedByPassword() async throws {  // M-AUTH-3
            let server = try ReferenceServer()
            try await server.reset()
            let connection = try await server.signedIn("ada")
            let sessions = try await connection.read(MainworthyAPI.sessions()).items
            let own = try #require(sessions.first { $0.current })
            #expect(own.info.client == "Mainworthy for iPhone" && own.info.openedBy == "password")
        }

        @MainActor @Test func theSignInScreenHasNoAddressStepNotEvenAfterStartingOver() async throws {  // M-AUTH-1
            let server = try ReferenceServer()
            try await server.reset()
            let environment = ReferenceServer.environment()
            let address = try MainworthyServer.address(of: server.build(), environment: environment)
            let signIn = try server.signInModel(environment)
            #expect(signIn.state == .enteringPassword(address, problem: nil))
            try await server.clearLog()
            await signIn.submitAddress("http://127.0.0.1:1")  // there is no address step to take it
            #expect(signIn.state == .enteringPassword(address, problem: nil))
            await signIn.submitPassword(username: "ada", password: "not-the-password")
            signIn.restart()  // starting over is the password step again, at the build's server
            #expect(signIn.state == .enteringPassword(address, problem: nil))
            await signIn.submitPassword(username: "ada", password: try await server.password("ada"))
            guard case .signedIn = signIn.state else {
                Issue.record("not signed in after starting over: \(signIn.state)")
                return
            }
            #expect(
                try await server.log().map { "\($0.method) \($0.path) \($0.status ?? 0)" }.filter {
                    $0.hasPrefix("POST")
                }
                    == ["POST /api/sessions 401", "POST /api/sessions 201"])
        }

        @MainActor @Test func aPipelineTokenAsThePasswordIsRefusedLikeAnyWrongPassword() async throws {  // M-AUTH-4
            let server = try ReferenceServer()
            try await server.reset()
            let token = try await server.pipelineToken()
            try await server.clearLog()
            let secrets = InMemorySecretStore()
            let journal = Journal()
            let environment = ReferenceServer.environment(secrets: secrets, journal: journal)
            let address = try MainworthyServer.address(of: server.build(), environment: environment)
            let signIn = try server.signInModel(environment)
            await signIn.submitPassword(username: "ada", password: token)
            // Refused as a password, in the server's own sentence (the client's fallback would be another one),
            // back on the name-and-password step: no token path was tried, no other step offered.
            #expect(
                signIn.state
                    == .enteringPassword(
                        address, problem: .wrongCredentials(serverSentence: "Wrong name or password.")))
            let sent = try await server.log()
            #expect(sent.map { "\($0.method) \($0.path) \($0.status ?? 0)" } == ["POST /api/sessions 401"])
            #expect(secrets.accounts().isEmpty)
            // The model's steps are the name-and-password step and its checking: no token field on the way.
            let steps = journal.events.map(\.message).filter { $0.hasPrefix("sign-in: ") }
            #expect(steps == ["sign-in: checking password", "sign-in: password"])
        }

        @MainActor @Test func aWrongPasswordShowsTheServersSentenceAndStoresNothing() async throws {  // M-AUTH-5
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let signIn = try server.signInModel(ReferenceServer.environment(secrets: secrets))
            await signIn.submitPassword(username: "ada", password: "not-the-password")
            #expect(signIn.state.problem == .wrongCredentials(serverSentence: "Wrong name or password."))
            #expect(signIn.state.problem?.description != AuthError.wrongCredentials(serverSentence: nil).description)
            guard case .enteringPassword = signIn.state else {
                Issue.record("expected the password step again, got \(signIn.state)")
                return
            }
            #expect(secrets.accounts().isEmpty)
        }

        @MainActor @Test func aPasskeyOnlyAccountIsToldWhereToSetAPassword() async throws {  // M-AUTH-6
            let server = try ReferenceServer()
            try await server.reset()
            try await server.clearLog()
            let secrets = InMemorySecretStore()
            let environment = ReferenceServer.environment(secrets: secrets)
            let address = try MainworthyServer.address(of: server.build(), environment: environment)
            let steps = MainworthySignIn(address: address, environment: environment)
            let signIn = MainworthySignIn.model(steps, address: address, environment: environment)
            await signIn.submitPassword(username: "cy", password: "anything")
            // The server's words, on the password step: no web sign-in or passkey step is offered instead.
            #expect(
                signIn.state
                    == .enteringPassword(
                        address,
                        problem: .wrongCredentials(
                            serverSentence: "Set a password in the web app under Settings, Your sign-in.")))
            #expect(await steps.refusedCode == "password_not_set")
            #expect(
                try await server.log().map { "\($0.method) \($0.path) \($0.status ?? 0)" } == ["POST /api/sessions 401"]
            )
            #expect(MainworthySignIn.passkeyNote.contains("passkey does not work"))
            #expect(secrets.accounts().isEmpty)
        }

        @MainActor @Test func signingInAsAnotherUserReplacesTheStoredSessionForThatServer() async throws {  // M-AUTH-7
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let environment = ReferenceServer.environment(secrets: secrets)
            _ = try await server.signIn("ada", environment: environment)
            _ = try await server.signIn("bo", environment: environment)
            #expect(secrets.accounts().map(\.userID) == ["u_2"])
            let relaunched = try #require(
                try await MainworthyServer.stored(build: server.build(), environment: environment))
            #expect(relaunched.account.userID == "u_2")
        }

        @MainActor @Test func aStoredSessionIsUsedAtTheNextLaunchWithoutSigningIn() async throws {  // M-AUTH-7
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            _ = try await server.signedIn("ada", secrets: secrets)
            try await server.clearLog()
            // The next launch: a new environment over the same secret store.
            let relaunched = try #require(
                try await MainworthyServer.stored(
                    build: server.build(), environment: ReferenceServer.environment(secrets: secrets)))
            #expect(await relaunched.isSignedIn)
            let workspace = MainworthyWorkspace(server: relaunched)
            await workspace.load()
            #expect(workspace.current?.key == "shop")
            #expect(try await server.log().posts(endingWith: "/api/sessions").isEmpty)
        }

        @MainActor @Test func aSessionEndedElsewhereSignsOutAndKeepsTheAccount() async throws {  // M-AUTH-8, M-NET-4
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let phone = try await server.signedIn("ada", secrets: secrets)
            let phoneSession = try #require(await phone.credentials.credential?.serverID)
            let web = try await server.signedIn("ada")
            try await web.read(MainworthyAPI.endSession(phoneSession))
            let workspace = MainworthyWorkspace(server: phone)
            await workspace.load()
            #expect(workspace.signedOut)
            guard case .failed(let reason, let signInRequired) = workspace.projects else {
                Issue.record("expected failed, got \(workspace.projects)")
                return
            }
            #expect(signInRequired && reason == "This session was ended. Sign in again.")
            #expect(secrets.accounts().isEmpty)
            #expect(await phone.credentials.lastAccount != nil)
        }

        @MainActor @Test func aForbiddenReplyKeepsTheSessionAndAnEndedOneDoesNot() async throws {  // M-AUTH-8, M-NET-4
            // The revocation rule as the profile registers it: a 401 ends the sign-in, a 403 never does.
            let server = try ReferenceServer()
            try await server.reset()
            let bo = try await server.signedIn("bo")
            let forced = bo.command(
                MainworthyAPI.plan("shop", PlanBody(name: "Nope", selection: .all, acceptsCommit: nil)))
            await #expect(throws: MainworthyError.self) { try await bo.perform(forced) }
            #expect(await bo.isSignedIn)
            let session = try #require(await bo.credentials.credential?.serverID)
            try await bo.read(MainworthyAPI.endSession(session))
            await #expect(throws: MainworthyError.self) { try await bo.read(MainworthyAPI.projects()) }
            #expect(!(await bo.isSignedIn))
        }

        @Test func aSignInReplyIsReplayedOnlyToTheClientThatSentIt() async throws {  // M-AUTH-2, M-NET-3
            // The same key and body from another client is a sign-in of its own (its own session), never the
            // replay of someone else's reply with its cookie; from the same client it is the replay.
            let server = try ReferenceServer()
            try await server.reset()
            let password = try await server.password("ada")
            let body: JSONValue = ["name": "ada", "password": .string(password), "client": "Mainworthy for iPhone"]
            func signIn(as agent: String) async throws -> Reply<JSONValue> {
                var request = Request<JSONValue>.post("/api/sessions", body: body).idempotencyKey("the-same-key")
                request.headers["User-Agent"] = agent
                return try await server.control.reply(request)
            }
            let first = try await signIn(as: "client A")
            let again = try await signIn(as: "client A")
            let other = try await signIn(as: "client B")
            #expect(first.status == 201 && again.status == 201 && other.status == 201)
            #expect(again.response.headers["Idempotent-Replayed"] == "true")
            #expect(again.response.headers["Set-Cookie"] == first.response.headers["Set-Cookie"])
            #expect(other.response.headers["Idempotent-Replayed"] == nil)
            #expect(other.response.headers["Set-Cookie"] != first.response.headers["Set-Cookie"])
            #expect(try other.value()["session"]?["id"] != first.value()["session"]?["id"])
        }

        @Test func appleAppSiteAssociationListsExactlyTheConfiguredApps() async throws {  // M-AUTH-9
            let server = try ReferenceServer()
            try await server.reset()
            let path = "/.well-known/apple-app-site-association"
            try await server.configure(appleApps: nil)
            #expect(try await server.control.send(Request<JSONValue>.get(path)) == ["webcredentials": ["apps": []]])
            try await server.configure(
                appleApps: "ABCDE12345.com.mainworthy.app.ABCDE12345, FGHIJ67890.com.example.tester")
            #expect(
                try await server.control.send(Request<JSONValue>.get(path)) == [
                    "webcredentials": [
                        "apps": ["ABCDE12345.com.mainworthy.app.ABCDE12345", "FGHIJ67890.com.example.tester"]
                    ]
                ])
            try await server.reset()
        }
    }

    @Suite struct Sessions {
        @MainActor @Test func theListShowsEverySessionOfTheAccountWithItsDetails() async throws {  // M-SESS-1, M-SESS-6
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let screen = SessionsModel(workspace: workspace)
            await screen.refresh()
            let sessions = try #require(screen.state.value)
            #expect(Set(sessions.map(\.client)) == ["Mainworthy for iPhone", "Firefox on macOS"])
            let firefox = try #require(sessions.first { $0.client == "Firefox on macOS" })
            #expect(firefox.openedBy == "passkey" && firefox.openedFrom == "Lisbon, PT")
            #expect(firefox.openedAt != nil && firefox.lastUsedAt != nil && firefox.lastUsedFrom == "Lisbon, PT")
            // bo's sessions (Safari, Chrome) never appear; a pull reads the list again.
            #expect(!sessions.contains { $0.client == "Safari on iPadOS" || $0.client == "Chrome on Linux" })
            // The kit's `SessionEnding` reads the same two through `MainworthySessions`.
            let directory = try await MainworthySessions(server: workspace.server).sessions()
            #expect(directory.count == 2 && Set(directory.map(\.id)) == Set(sessions.map(\.id)))
            try await server.clearLog()
            await screen.refresh()
            #expect(try await server.log().filter { $0.path == "/api/sessions" && $0.method == "GET" }.count == 1)
        }

        @MainActor @Test func exactlyOneEntryIsThisDevice() async throws {  // M-SESS-2
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let screen = SessionsModel(workspace: workspace)
            await screen.refresh()
            let sessions = try #require(screen.state.value)
            #expect(sessions.filter(\.isCurrent).count == 1)
            #expect(
                sessions.first { $0.isCurrent }?.id == (await workspace.server.credentials.credential?.serverID))
        }

        @MainActor @Test func endSessionSendsNothingUntilConfirmed() async throws {  // M-SESS-3
            let server = try ReferenceServer()
            try await server.reset()
            let workspace = try await server.workspace("ada")
            let screen = SessionsModel(workspace: workspace)
            await screen.refresh()
            let other = try #require(screen.state.value?.first { !$0.isCurrent })
            try await server.clearLog()
            screen.requestEnd(other)
            screen.cancelEnd()
            await screen.confirmEnd()  // declined: nothing to confirm
            screen.requestEnd(other)
            #expect(try await server.log().filter { $0.method == "DELETE" }.isEmpty)
            await screen.confirmEnd()
            #expect(try await server.log().filter { $0.method == "DELETE" }.count == 1)
        }

        @MainActor @Test func endingThisDevicesSessionSignsOut() async throws {  // M-SESS-4
            let server = try ReferenceServer()
            try await server.reset()
            let secrets = InMemorySecretStore()
            let workspace = MainworthyWorkspace(server: try await server.signedIn("ada", secrets: secrets))
            let screen = SessionsModel(workspace: workspace)
            await screen.refresh()
            let own = try #require(screen.state.value?.first { $0.isCurrent })
            screen.requestEnd(own)
            await screen.confirmEnd()
            #expect(workspace.signedOut)
            #expect(secrets.accounts().isEmpty)
            #expect(!(await workspace.server.isSignedIn))
            #expect(try await server.log().contains { $0.method == "DELETE" && $0.path == "/api/sessions/\(own.id)" })
        }

        @MainActor @Test func endingAnotherSessionKeepsThisDeviceSignedIn() async throws {  // M-SESS-5
            let server = try ReferenceServer()
            try await server.reset()
            let laptop = try await server.signedIn("ada")
            let workspace = try await server.workspace("ada")
            let screen = SessionsModel(workspace: workspace)
            await screen.refresh()
            let laptopID = try #require(await laptop.credentials.credential?.serverID)
            let laptopSession = try #require(screen.state.value?.first { $0.id == laptopID })
            screen.requestEnd(laptopSession)
            await screen.confirmEnd()
            let signedIn = await workspace.server.isSignedIn
            #expect(!workspace.signedOut && signedIn)
            #expect(screen.state.value?.contains { $0.id == laptopID } == false)
            await #expect(throws: MainworthyError.signedOut(serverSentence: "This session was ended. Sign in again.")) {
                try await laptop.read(MainworthyAPI.projects())
            }
        }

        @MainActor @Test func aboutShowsBothVersionsTheLicenceAndTheLicencesLink() async throws {  // M-ABOUT-1
            let server = try ReferenceServer()
            try await server.reset()
            let screen = AboutModel(workspace: try await server.workspace("ada"))
            await screen.refresh()
            #expect(screen.about.appVersion == "9.9.0" && screen.about.serverVersion == "1.31.0")
            #expect(screen.about.licencesURL == server.url.appendingPathComponent("licence"))
            #expect(About.licence == "Apache License 2.0" && About.copyright == "Copyright 2026 the Mainworthy authors")
            // The link leads to the instance's own licence page, which names the same licence and copyright.
            let page = try await server.control.send(
                Request<Data>(path: screen.about.licencesURL.path) { data, _, _ in data })
            let text = String(decoding: page, as: UTF8.self)
            #expect(text.contains(About.licence) && text.contains(About.copyright))
        }
    }
}

extension AgainstReferenceServer {
    @Suite struct KitSignInFlow {
        @Test func theKitsSignInFlowGetsTheSameCookieSession() async throws {  // M-AUTH-2, M-AUTH-6
            let server = try ReferenceServer()
            try await server.reset()
            let environment = ReferenceServer.environment()
            let address = try MainworthyServer.address(of: server.build(), environment: environment)
            let flow = MainworthySignIn(address: address, environment: environment)
            try await flow.probe()
            let refused = try await flow.signIn(username: "cy", password: "x")
            #expect(
                refused
                    == .refused(
                        .wrongCredentials(serverSentence: "Set a password in the web app under Settings, Your sign-in.")
                    ))
            #expect(await flow.refusedCode == "password_not_set")
            #expect(
                try await flow.signIn(username: "ada", password: try await server.password("ada")) == .authenticated)
            let stored = try await flow.issueCredential()
            guard case .sessionCookie(let name, _) = stored.credential else {
                Issue.record("expected a session cookie")
                return
            }
            #expect(name == "mw_session")
        }
    }
}
