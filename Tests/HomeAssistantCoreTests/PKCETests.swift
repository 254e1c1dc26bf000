import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionCrypto
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// PKCE where the server lists S256 (H-AUTH-8, H-AUTH-9). Home Assistant 2026.11 (the first with PKCE) needs Python
/// 3.14.2, which this machine cannot run, so its answers are scripted from its source (catalog §2.2–§2.4); the
/// 2025.4.4 side, no PKCE field at all, is `SignInTests.passwordSignIn` against the real server.
@Suite struct PKCETests {
    @Test("H-AUTH-9: RFC 7636 App. B's verifier gives its challenge; a made verifier is 64 characters of [A-Za-z0-9-_]")
    func challengeVector() {
        #expect(
            PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test(
        "H-AUTH-8 H-AUTH-9: S256 listed → code_challenge at the flow's start, its 64-character verifier at the exchange"
    )
    func pkceWhenListed() async throws {
        let transport = ScriptedTransport([
            .respond(
                status: 200,
                body:
                    #"{"authorization_endpoint":"/auth/authorize","token_endpoint":"/auth/token","code_challenge_methods_supported":["S256"]}"#
            ),
            .respond(status: 200, body: #"{"type":"form","flow_id":"f1","step_id":"init","errors":{}}"#),
            .respond(status: 200, body: #"{"type":"create_entry","flow_id":"f1","result":"c0de"}"#),
            .respond(
                status: 200,
                body:
                    #"{"access_token":"aaa.bbb.ccc","token_type":"Bearer","refresh_token":"r3fr3sh","expires_in":1800}"#
            ),
        ])
        let environment = TestEnvironments.loopback(transport: transport)
        let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
        let signIn = HomeAssistantServer.signIn
        let session = try signIn(address, nil, environment)
        #expect(try await session.signIn(username: "ci", password: "pw") == .authenticated)
        _ = try await session.issueCredential()
        let requests = transport.requests
        #expect(requests.count == 4)
        let startBody = try #require(requests[1].body)
        let start = try #require(JSONValue(data: startBody))
        let challenge = try #require(start["code_challenge"]?.stringValue)
        #expect(start["code_challenge_method"] == "S256")
        #expect(challenge.count == 43)
        let tokenBody = try #require(requests[3].body)
        let form = URLComponents(string: "?" + String(decoding: tokenBody, as: UTF8.self))
        let verifier = try #require(form?.queryItems?.first { $0.name == "code_verifier" }?.value)
        #expect(verifier.count == 64)
        #expect(verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(PKCE(verifier: verifier).challenge == challenge)
        // The password step carries no PKCE field.
        let stepBody = try #require(requests[2].body)
        let step = try #require(JSONValue(data: stepBody))
        #expect(step["code_challenge"] == nil && step["code_verifier"] == nil)
    }
}

/// The login flow's other endings (H-AUTH-6), with Home Assistant's own answers scripted (catalog §2.2): the sign-in
/// only ever posts to the flow Home Assistant just gave it, from one address, with the form's own fields, so against
/// the real server it cannot be made to meet them.
@Suite struct FlowEndingTests {
    @Test(
        "H-AUTH-6: an unknown flow (404), a changed address and malformed input end the attempt with their reason and Home Assistant's sentence"
    )
    func endings() async throws {
        let cases: [(status: Int, message: String, end: SignInEnd)] = [
            (404, "Invalid flow specified", .lost),
            (400, "IP address changed", .networkChanged),
            (400, "User input malformed", .malformed),
        ]
        for (status, message, end) in cases {
            let transport = ScriptedTransport([
                .respond(status: 200, body: #"{"authorization_endpoint":"/auth/authorize"}"#),
                .respond(status: 200, body: #"{"type":"form","flow_id":"f1","step_id":"init","errors":{}}"#),
                .respond(status: status, body: #"{"message":"\#(message)"}"#),
            ])
            let environment = TestEnvironments.loopback(transport: transport)
            let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
            let session = try HomeAssistantServer.signIn(address, environment: environment)
            #expect(
                try await session.signIn(username: "ci", password: "pw")
                    == .ended(.signInEnded(end, serverSentence: message)), "\(status) \(message)")
            #expect(transport.requests.count == 3)
        }
    }

    @Test(
        "H-AUTH-2 H-AUTH-6: a client id Home Assistant refuses at the flow's start (400 Invalid client id) ends the attempt"
    )
    func invalidClientAtTheStart() async throws {
        let transport = ScriptedTransport([
            .respond(status: 200, body: #"{"authorization_endpoint":"/auth/authorize"}"#),
            .respond(status: 400, body: #"{"message":"Invalid client id"}"#),
        ])
        let environment = TestEnvironments.loopback(transport: transport)
        let address = try ServerAddress(parsing: "http://127.0.0.1:18123", policy: .allowingInsecureLoopback)
        let session = try HomeAssistantServer.signIn(address, environment: environment)
        #expect(
            try await session.signIn(username: "ci", password: "pw")
                == .ended(.signInEnded(.invalidClient, serverSentence: "Invalid client id")))
        #expect(transport.requests.count == 2)
    }
}
