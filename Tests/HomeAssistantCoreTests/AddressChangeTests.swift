import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// H-NET-6 against the real Home Assistant: the account's home address is a relay to it (`TCPRelay`), its away
/// address the server itself; the device "leaves home" when the relay stops answering new connections while the
/// one it carries goes on.
@Suite struct AddressChangeTests {
    @Test(
        "H-NET-6 H-CONN-10: a network change at home replaces nothing; leaving home closes the home socket and connects to the away address at once, and the entities come again as a new initial event"
    )
    func leavingHomeReplacesTheSocket() async throws {
        let live = try await LiveHome()
        let relay = try TCPRelay(relayingTo: try #require(live.url.port))
        relay.start()
        defer { relay.stop() }
        let home = try ServerAddress(parsing: "http://127.0.0.1:\(relay.port)", policy: .allowingInsecureLoopback)
        try NetworkSettings(store: live.environment.secrets).update(try live.fixture.address(live.environment)) {
            $0.internalAddress = home
        }
        // The connection is made after the settings: its transport reads them once.
        let connection = live.server.connection()
        // Each initial event's count of added entities, in order; the stream ends after 120 s at the latest.
        let initials = AsyncStream<Int>.makeStream()
        let stream = await connection.updates()
        let watcher = Task {
            for await update in stream where update.initial { initials.continuation.yield(update.applied.added.count) }
        }
        defer { watcher.cancel() }
        let expiry = Expiry(after: .seconds(120)) { initials.continuation.finish() }
        defer { withExtendedLifetime(expiry) {} }
        var initial = initials.stream.makeAsyncIterator()
        await connection.start()
        #expect(await initial.next() ?? 0 >= 1000, "the first initial event carries every entity")
        let journal = live.environment.journal
        func count(_ message: String) -> Int { journal.events.filter { $0.message.hasPrefix(message) }.count }
        #expect(count("network: using the internal address") == 1)
        // Still at home: the probe answers again and nothing is replaced.
        await connection.networkChanged()
        #expect(count("channel network changed: replacing") == 0 && count("channel connecting") == 1)
        // The home address stops answering: the failover moves away and the channel replaces its socket at once.
        relay.stopAccepting()
        await connection.networkChanged()
        #expect(count("network: using the external address") == 1)
        #expect(count("channel network changed: replacing") == 1)
        #expect(await initial.next() ?? 0 >= 1000, "the new connection's initial event carries every entity")
        #expect(count("channel connecting") == 2)
        #expect(await connection.channel.state == .ready)
        await connection.stop()
    }
}
