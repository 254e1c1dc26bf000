import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The refused-token branch of the connection's auth phase that ends live (H-CONN-5), against the real Home Assistant.
@Suite struct ChannelTokenTests {
    @Test(
        "H-CONN-5: an access token Home Assistant refuses at auth is refreshed once, and the channel connects once more with the new one and goes live"
    )
    func refusedTokenRefreshedAndLive() async throws {
        let fixture = try HomeAssistantFixture()
        let environment = TestEnvironments.loopback()
        let address = try fixture.address(environment)
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: fixture.user, password: fixture.password) == .authenticated)
        var stored = try await signIn.issueCredential()
        // A token Home Assistant never issued, 20 minutes from its expiry: the session sends it as it is.
        let forged = "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.AAAA"
        stored.credential = .bearer(
            accessToken: forged, refreshToken: stored.credential.refreshToken,
            expiresAt: Date().addingTimeInterval(1200))
        try environment.secrets.save(stored)
        let recorder = RequestRecorder()
        let server = try await HomeAssistantServer.open(
            stored.account, environment: environment, middlewares: [recorder])
        let connection = server.connection()
        let updates = await connection.updates()
        let states = Locked<[ChannelState]>([])
        let stateStream = await connection.states()
        let collector = Task { for await state in stateStream { states.withLock { $0.append(state) } } }
        defer { collector.cancel() }
        await connection.start()
        let live = try await withDeadline(.seconds(60)) {
            for await update in updates where update.initial { return true }
            return false
        }
        #expect(live == true, "not live within 60 s after the refused token")
        #expect(
            states.withLock { seen in seen.contains { if case .disconnected(.rejected) = $0 { true } else { false } } },
            "the forged token was not refused")
        #expect(recorder.lines.filter { $0 == "POST /auth/token" }.count == 1)
        let auths = environment.journal.newestFirst().filter { event in
            guard event.message.hasPrefix("channel send "), let body = event.fields["body"] else { return false }
            return JSONValue(data: Data(body.utf8))?["type"] == "auth"
        }
        #expect(auths.count == 2, "one auth with the forged token, one with the renewed")
        #expect(await connection.readyCount == 1)
        guard case .bearer(let access, _, _)? = try environment.secrets.load(stored.account)?.credential else {
            Issue.record("no bearer credential is stored after the refresh")
            return
        }
        #expect(access != forged)
        await connection.stop()
    }

    @Test("H-TOK-10 H-CONN-5: waiting for live answers false, never true, when Home Assistant refuses the token")
    func refusedNeverLive() async throws {
        let fixture = try HomeAssistantFixture()
        let parts = fixture.longLivedToken.split(separator: ".")
        let forged = parts.dropLast().joined(separator: ".") + ".c2lnbmF0dXJlLWZvcmdlZA"
        let home = try await LiveHome(credential: .bearer(accessToken: forged, refreshToken: nil, expiresAt: nil))
        await home.connection.start()
        let live = try await withDeadline(.seconds(30)) { await home.connection.waitUntilLive() }
        #expect(live == false)
        #expect(await home.connection.isLive == false)
        await home.connection.stop()
    }
}
