import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The login flow's steps and the server probe with Home Assistant's own answers scripted (catalog §2.1–§2.2): the
/// answers the real server gives only after minutes (an expired flow) or with a setup the CI home does not have (a
/// second factor to choose, onboarding not done).
@Suite struct FlowStepTests {
    static let manifest = ScriptedTransport.Reply.respond(status: 200, body: #"{"authorization_endpoint":"/a"}"#)
    static let form = ScriptedTransport.Reply.respond(
        status: 200, body: #"{"type":"form","flow_id":"f1","step_id":"init","errors":{}}"#)

    func session(_ replies: [ScriptedTransport.Reply]) throws -> (HomeAssistantSignIn, ScriptedTransport) {
        let transport = ScriptedTransport(replies)
        let environment = TestEnvironments.loopback(transport: transport)
        let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
        return (try HomeAssistantServer.signIn(address, environment: environment), transport)
    }

    @Test("H-AUTH-6: an abort with login_expired ends the attempt as expired; another reason ends it with that reason")
    func aborts() async throws {
        for (reason, end, sentence) in [
            ("login_expired", SignInEnd.expired, String?.none), ("too_many_retry", .tooManyAttempts, nil),
            ("unknown_error", .other, "unknown_error"),
        ] {
            let (session, _) = try session([
                Self.manifest, Self.form,
                .respond(status: 200, body: #"{"type":"abort","flow_id":"f1","reason":"\#(reason)"}"#),
            ])
            #expect(
                try await session.signIn(username: "ci", password: "pw")
                    == .ended(.signInEnded(end, serverSentence: sentence)), "\(reason)")
        }
    }

    @Test(
        "H-AUTH-4: invalid_auth is a wrong password; another base error is refused with Home Assistant's word; another user starts a new flow"
    )
    func passwordStepErrors() async throws {
        let (session, transport) = try session([
            Self.manifest, Self.form,
            .respond(
                status: 200,
                body: #"{"type":"form","flow_id":"f1","step_id":"init","errors":{"base":"invalid_auth"}}"#),
            .respond(
                status: 200,
                body: #"{"type":"form","flow_id":"f1","step_id":"init","errors":{"base":"user_not_active"}}"#),
            Self.manifest,
            .respond(status: 200, body: #"{"type":"form","flow_id":"f2","step_id":"init","errors":{}}"#),
            .respond(status: 200, body: #"{"type":"form","flow_id":"f2","step_id":"nope","errors":{}}"#),
        ])
        #expect(
            try await session.signIn(username: "ci", password: "pw")
                == .refused(.wrongCredentials(serverSentence: nil)))
        #expect(
            try await session.signIn(username: "ci", password: "pw2")
                == .refused(.wrongCredentials(serverSentence: "user_not_active")))
        // The same user posted to the same flow; another user starts a new one.
        await #expect(throws: AuthError.self) { try await session.signIn(username: "other", password: "pw") }
        let paths = transport.requests.map(\.url.path)
        #expect(
            paths == [
                "/.well-known/oauth-authorization-server", "/auth/login_flow", "/auth/login_flow/f1",
                "/auth/login_flow/f1", "/.well-known/oauth-authorization-server", "/auth/login_flow",
                "/auth/login_flow/f2",
            ])
    }

    @Test("H-AUTH-5: a flow that asks to choose a second factor is answered with totp, then asks for the code")
    func chooseTOTP() async throws {
        let (session, transport) = try session([
            Self.manifest, Self.form,
            .respond(status: 200, body: #"{"type":"form","flow_id":"f1","step_id":"select_mfa_module","errors":{}}"#),
            .respond(status: 200, body: #"{"type":"form","flow_id":"f1","step_id":"mfa","errors":{}}"#),
        ])
        #expect(try await session.signIn(username: "ci", password: "pw") == .secondFactor([.totp]))
        let body = try #require(transport.requests.last?.body)
        let choice = try #require(JSONValue(data: body))
        #expect(choice == ["client_id": "http://127.0.0.1:18123/", "multi_factor_auth_module": "totp"])
    }

    @Test(
        "H-ADDR-3: onboarding_required needs onboarding; a manifest or a provider list that is not Home Assistant's is no Home Assistant"
    )
    func probes() async throws {
        let (onboarding, _) = try session([
            .respond(status: 200, body: "{}"), .respond(status: 400, body: #"{"code":"onboarding_required"}"#),
        ])
        #expect(try await onboarding.probeServer() == .needsOnboarding)
        let (otherCode, _) = try session([
            .respond(status: 200, body: "{}"), .respond(status: 400, body: #"{"code":"other"}"#),
        ])
        #expect(
            try await otherCode.probeServer()
                == .notHomeAssistant(
                    reason: "GET /auth/providers answered 400 without Home Assistant's list of providers."))
        let (ready, _) = try session([
            .respond(status: 200, body: "{}"),
            .respond(
                status: 200, body: #"{"providers":[{"name":"Home Assistant Local","id":null,"type":"homeassistant"}]}"#),
        ])
        #expect(
            try await ready.probeServer()
                == .ready(providers: [.init(type: "homeassistant", id: nil, name: "Home Assistant Local")]))
    }

    @Test(
        "H-AUTH-10: a callback without a code, or with an empty one, is refused; one with the state and a code is kept")
    func callbackCodes() async throws {
        let (session, _) = try session([])
        let base = "http://127.0.0.1:18123/?auth_callback=1"
        for text in ["\(base)&state=s1", "\(base)&state=s1&code="] {
            let callback = try #require(URL(string: text))
            await #expect(throws: AuthError.callbackRejected(reason: "it carries no code"), "\(text)") {
                try await session.acceptCallback(callback, state: "s1", username: "ci")
            }
        }
        let forged = try #require(URL(string: "\(base)&state=s2&code=c"))
        await #expect(
            throws: AuthError.callbackRejected(
                reason: "its state does not match the request (a forged or stale reply)")
        ) {
            try await session.acceptCallback(forged, state: "s1", username: "ci")
        }
        let good = try #require(URL(string: "\(base)&state=s1&code=c"))
        await #expect(throws: Never.self) { try await session.acceptCallback(good, state: "s1", username: "ci") }
    }

    @Test("H-AUTH-7: the token endpoint's 4xx (499 the last) is its refusal in its own words; 500 is unexpected")
    func tokenStatuses() async throws {
        for status in [400, 499, 500] {
            let (session, _) = try session([
                Self.manifest, Self.form,
                .respond(status: 200, body: #"{"type":"create_entry","flow_id":"f1","result":"c0de"}"#),
                .respond(status: status, body: #"{"error":"invalid_request","error_description":"Invalid code"}"#),
            ])
            #expect(try await session.signIn(username: "ci", password: "pw") == .authenticated)
            do {
                _ = try await session.issueCredential()
                Issue.record("a token reply with status \(status) was accepted")
            } catch {
                if status < 500 {
                    #expect(error == .callbackRejected(reason: "Invalid code"), "\(status)")
                } else {
                    guard case .unexpectedReply(let text) = error,
                        text.hasPrefix("the token endpoint answered with status 500")
                    else {
                        Issue.record("status 500 ended as \(error), not as an unexpected reply")
                        continue
                    }
                }
            }
        }
    }

    @Test("H-TOK-6: opening an account with no stored sign-in is the signed-out error, with status 401")
    func openWithoutSignIn() async throws {
        let environment = TestEnvironments.loopback(transport: ScriptedTransport([]))
        let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
        let account = AccountKey(address: address, userID: "nobody")
        await #expect(throws: AuthError.signedOut(status: 401, serverSentence: "no stored sign-in for \(account)")) {
            _ = try await HomeAssistantServer.open(account, environment: environment)
        }
    }
}
