import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// Tokens against the real Home Assistant: renewed before expiry, one refresh at a time, a revoked refresh token
/// signs out once and never loops, no answer keeps the credential, sign-out revokes (H-TOK-2..9).
@Suite struct TokenTests {
    let server: HomeAssistantFixture

    init() throws { server = try HomeAssistantFixture() }

    /// Signs `user` in at `address` in `environment` and returns the account.
    func signIn(_ address: ServerAddress, _ environment: AppEnvironment) async throws -> AccountKey {
        let signIn = try environment.homeAssistantSignIn(address, recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: server.user, password: server.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        return stored.account
    }

    /// `count` concurrent `GET /api/config` through `home`; the statuses (200, or the error's).
    func configs(_ home: HomeAssistantServer, _ count: Int) async -> [Int] {
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await home.config()
                        return 200
                    } catch let error as HTTPError {
                        return error.statusCode ?? -1
                    } catch {
                        return -2
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("H-TOK-2 H-TOK-3 H-TOK-4: renewed from 60 s before expiry, once for 9 callers, with the sign-in's client_id")
    func renewedBeforeExpiryOnce() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_796_600_000))
        let environment = TestEnvironments.loopback(clock: clock)
        let address = try server.address(environment)
        let account = try await signIn(address, environment)
        let before = try #require(try environment.secrets.load(account))
        let recorder = RequestRecorder()
        let home = try await HomeAssistantServer.open(account, environment: environment, middlewares: [recorder])
        clock.advance(by: 1800 - 61)  // 12:28:59 of a token expiring 12:30:00: still handed out
        #expect(await configs(home, 9) == Array(repeating: 200, count: 9))
        #expect(!recorder.lines.contains("POST /auth/token"))
        clock.advance(by: 1)  // 12:29:00: a refresh first
        #expect(await configs(home, 9) == Array(repeating: 200, count: 9))
        let refreshes = recorder.requests.filter { $0.url.path == "/auth/token" }
        #expect(refreshes.count == 1)
        let form = String(decoding: try #require(refreshes.first?.body), as: UTF8.self)
        let fields = URLComponents(string: "?" + form)?.queryItems ?? []
        #expect(fields.first { $0.name == "grant_type" }?.value == "refresh_token")
        #expect(fields.first { $0.name == "client_id" }?.value == address.origin + "/")
        // Tokens are compared as booleans, so a failure never prints one.
        let sentStored = fields.first { $0.name == "refresh_token" }?.value == before.credential.refreshToken
        #expect(sentStored, "the refresh sent the stored refresh token")
        let after = try #require(try environment.secrets.load(account))
        let keptRefresh = after.credential.refreshToken == before.credential.refreshToken
        #expect(keptRefresh, "the stored refresh token is kept")
        guard case .bearer(let access, _, let expiresAt?) = after.credential else {
            Issue.record("not a bearer: \(after.credential)")
            return
        }
        #expect(expiresAt == clock.now().addingTimeInterval(1800))
        // The 9 callers after the refresh all sent the renewed token.
        let sent = recorder.requests.suffix(9).compactMap { $0.headers["Authorization"] }
        let allRenewed = sent.count == 9 && sent.allSatisfy { $0 == "Bearer \(access)" }
        #expect(allRenewed, "every caller after the refresh sent the renewed token")
    }

    @Test("H-TOK-5: a token refused before its expiry is never sent again: one refresh, then the new token")
    func refusedTokenNeverResent() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let account = try await signIn(address, environment)
        var stored = try #require(try environment.secrets.load(account))
        let forged = "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.AAAA"
        stored.credential = .bearer(
            accessToken: forged, refreshToken: stored.credential.refreshToken,
            expiresAt: Date().addingTimeInterval(1200))
        try environment.secrets.save(stored)
        let recorder = RequestRecorder()
        let home = try await HomeAssistantServer.open(account, environment: environment, middlewares: [recorder])
        #expect(await configs(home, 1) == [200])
        #expect(await configs(home, 3) == [200, 200, 200])
        let forgedSent = recorder.requests.filter { $0.headers["Authorization"] == "Bearer \(forged)" }.count
        #expect(forgedSent == 1)
        #expect(recorder.lines.filter { $0 == "POST /auth/token" }.count == 1)
    }

    @Test(
        "H-TOK-6 H-TOK-8: a refresh token revoked from another client signs out exactly once, keeps the address and the data, never loops; signing in again finds them"
    )
    func revokedElsewhereSignsOutOnce() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let account = try await signIn(address, environment)
        let stored = try #require(try environment.secrets.load(account))
        let recorder = RequestRecorder()
        let home = try await HomeAssistantServer.open(account, environment: environment, middlewares: [recorder])
        let session = try #require(home.bundle.session)
        let seen = Locked<[AuthStatus]>([])
        let signal = ChangeSignal()
        let stream = await session.statusUpdates()
        let collector = Task {
            for await status in stream {
                seen.withLock { $0.append(status) }
                signal.changed()
            }
        }
        defer { collector.cancel() }
        #expect(await configs(home, 1) == [200])
        try await home.bundle.store.saveDraft("kept", body: Data("entities".utf8))
        // Another client (a browser's profile page) revokes this sign-in's refresh token.
        let other = environment.client(for: address.url, profile: HomeAssistantServer.profile)
        let revoke = try await other.call(
            .post, "/auth/revoke", form: ["token": try #require(stored.credential.refreshToken)])
        #expect(revoke.status == 200)
        #expect(await configs(home, 5) == Array(repeating: 401, count: 5))
        #expect(await configs(home, 3) == [401, 401, 401])
        #expect(recorder.lines.filter { $0 == "POST /auth/token" }.count == 1)
        // A bounded wait for the collector: the sign-in, then exactly one sign-out, kept account, refused refresh.
        #expect(await signal.wait(upTo: .seconds(10)) { seen.withLock { $0.count >= 2 } })
        let statuses = seen.withLock { $0 }
        #expect(statuses.count == 2 && statuses.first == .signedIn(account))
        guard case .signedOut(let kept?, .refreshFailed?)? = statuses.last else {
            Issue.record("not signed out by the refusal: \(String(describing: statuses.last))")
            return
        }
        #expect(kept == account)
        #expect(await session.status == statuses.last)
        #expect(try environment.secrets.load(account) == nil)
        #expect(try await home.bundle.store.draft("kept")?.body == Data("entities".utf8))
        // The way back: the same user at the same address is the same account, and finds its data.
        let again = try await signIn(address, environment)
        #expect(again == account)
        let back = try await HomeAssistantServer.open(again, environment: environment)
        #expect(try await back.bundle.store.draft("kept")?.body == Data("entities".utf8))
    }

    @Test(
        "H-TOK-7 H-TOK-4: a refresh with no answer keeps the credential and never signs out; the same client_id renews it at another address"
    )
    func noAnswerKeepsCredential() async throws {
        let clock = ManualWallClock(Date())
        let environment = TestEnvironments.loopback(clock: clock)
        let relay = try TCPRelay(relayingTo: try #require(server.url.port))
        relay.start()
        defer { relay.stop() }
        let viaRelay = try HomeAssistantAddress.parse("127.0.0.1:\(relay.port)", policy: environment.transportPolicy)
        let account = try await signIn(viaRelay, environment)
        let stored = try #require(try environment.secrets.load(account))
        let home = try await HomeAssistantServer.open(account, environment: environment)
        relay.stop()  // the server's address stops answering
        clock.advance(by: 1800)
        #expect(await configs(home, 2).allSatisfy { $0 != 200 })
        let session = try #require(home.bundle.session)
        #expect(await session.status == .signedIn(account))
        #expect(try environment.secrets.load(account) == stored)
        // H-TOK-4: the stored refresh token with its client_id (the relay's origin) renews at the server's own
        // address; any other client_id is refused.
        let direct = try server.address(environment)
        let refreshed = try await HomeAssistantRefresher(
            client: environment.client(for: direct.url, profile: HomeAssistantServer.profile)
        ).refresh(
            StoredCredential(
                account: account, address: direct, credential: stored.credential, serverID: stored.serverID,
                storedAt: clock.now()))
        let sameRefresh = refreshed.credential.refreshToken == stored.credential.refreshToken
        #expect(sameRefresh, "the refresh token is kept")
        let other = environment.client(for: direct.url, profile: HomeAssistantServer.profile)
        let refused = try await other.call(
            .post, "/auth/token",
            form: [
                "grant_type": "refresh_token", "refresh_token": try #require(stored.credential.refreshToken),
                "client_id": direct.origin + "/",
            ])
        #expect(refused.status == 400 && refused.json?["error"] == "invalid_request")
    }

    @Test(
        "H-TOK-9: sign-out revokes the refresh token (form token=R at /auth/revoke) and deletes the credential; unreachable, it is deleted all the same"
    )
    func signOutRevokes() async throws {
        let environment = TestEnvironments.loopback()
        let address = try server.address(environment)
        let account = try await signIn(address, environment)
        let stored = try #require(try environment.secrets.load(account))
        let home = try await HomeAssistantServer.open(account, environment: environment)
        #expect(await home.signOut() == nil)
        #expect(try environment.secrets.load(account) == nil)
        let refresh = try #require(stored.credential.refreshToken)
        let client = environment.client(for: address.url, profile: HomeAssistantServer.profile)
        let after = try await client.call(
            .post, "/auth/token",
            form: ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": address.origin + "/"])
        #expect(after.status == 400 && after.json?["error"] == "invalid_grant")
        // Unreachable: the revoke fails, and the credential is gone locally all the same.
        let relay = try TCPRelay(relayingTo: try #require(server.url.port))
        relay.start()
        let viaRelay = try HomeAssistantAddress.parse("127.0.0.1:\(relay.port)", policy: environment.transportPolicy)
        let relayed = try await signIn(viaRelay, environment)
        let away = try await HomeAssistantServer.open(relayed, environment: environment)
        relay.stop()
        #expect(await away.signOut() != nil)
        #expect(try environment.secrets.load(relayed) == nil)
    }
}
