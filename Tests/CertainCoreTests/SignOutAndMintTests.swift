import CertainCore
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// Outcomes a person sees at the end of a session and at the mint's resend limit, read back exactly.
    @Suite struct SignOutAndMintTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        @Test(
            "O-12: a revoke the server refuses is returned; the app is signed out and its lookups forgotten all the same"
        )
        @MainActor func aRefusedRevokeIsReported() async throws {
            let account = try await server.connect()
            let id = try #require(account.stored.serverID)
            try await server.post("/_control/fail", ["path": .string("/api/inbox/tokens/\(id)"), "status": 500])
            let problem = await account.server.signOut()
            #expect(problem != nil, "a refused revoke must be reported")
            #expect(await account.session?.credential == nil)
            #expect(await account.server.lookups.current == Lookups())
            // A revoke the server confirms returns nothing to report.
            let other = try await server.connect()
            #expect(await other.server.signOut() == nil)
            #expect(await other.session?.credential == nil)
        }

        @Test(
            "C-TOK-8: a mint reply lost three times is sent three times in all (two resends, 100 ms and 200 ms apart), then sign-in fails"
        )
        @MainActor func theMintIsResentTwiceAtMost() async throws {
            try await server.post("/_control/drop-reply", ["path": "/api/inbox/tokens", "times": 3])
            try await server.clearRequests()
            let sleeper = RecordingSleeper()
            await #expect(throws: AuthError.self) {
                _ = try await server.signIn("plain", environment: TestEnvironments.loopback(sleeper: sleeper))
            }
            let mints = try await server.requests().filter { $0.method == "POST" && $0.path == "/api/inbox/tokens" }
            #expect(mints.count == 3)
            // After 100 ms, then twice that: exactly, without jitter.
            #expect(sleeper.delays == [.milliseconds(100), .milliseconds(200)])
        }
    }
}
