import CertainCore
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

extension CertainStandIn {
    /// When a reload of the lookups proves an id unknown, on a clock that does not move.
    @Suite struct LookupInstantTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        @Test(
            "C-LOOK-4: only a reload fetched after a page was read leaves its ids unknown; one at the same instant reloads"
        )
        @MainActor func aReloadAtTheSameInstantProvesNothing() async throws {
            let clock = ManualWallClock()
            let environment = TestEnvironments.loopback(clock: clock, sleeper: RecordingSleeper())
            let account = try await server.connect(environment: environment)
            func reads() -> Int {
                environment.journal.events.filter { $0.kind == .request && $0.message.hasSuffix("/api/tags") }.count
            }
            let lookups = account.server.lookups
            _ = try await lookups.reload()
            let before = reads()
            // Read at the reload's own instant: the reload may have been answered before the page was.
            _ = await lookups.resolving(tags: [99_995], readAt: clock.now())
            #expect(reads() == before + 1)
            // Read a second before a reload: that reload already left the id unknown.
            clock.advance(by: 1)
            _ = try await lookups.reload()
            let reloaded = reads()
            _ = await lookups.resolving(tags: [99_996], readAt: clock.now().addingTimeInterval(-1))
            #expect(reads() == reloaded)
        }
    }
}
