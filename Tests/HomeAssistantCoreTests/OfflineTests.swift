import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// Screens as feeds of what the connection keeps in the store: live, then stale with their age when the
/// connection ends and at the next launch (H-OFF-1..3), against the real Home Assistant.
@Suite struct OfflineTests {
    @Test(
        "H-OFF-1 H-OFF-2 H-OFF-3: a change elsewhere reaches the feeds; stale from the drop; at launch the stored states with their age"
    )
    @MainActor
    func liveThenStaleWithAge() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_796_600_000))
        let home = try await LiveHome(clock: clock)
        try await home.startLive()
        let kitchen = home.server.entitiesByArea(EntityFilter(area: "Kitchen", domain: "input_boolean"))
        let domains = home.server.entitiesByDomain()
        let plug = "input_boolean.kitchen_plug_1"
        let detail = home.server.entity(plug)
        for feed in [kitchen, domains] { await feed.refresh() }
        await detail.refresh()
        #expect(await waitUntilObserved(upTo: .seconds(20)) { kitchen.value?.first?.entities.count == 20 })
        #expect(kitchen.state.kind == .content)
        #expect(domains.value?.contains { $0.id == "input_boolean" } == true)
        #expect(await waitUntilObserved(upTo: .seconds(20)) { detail.value??.area == "Kitchen" })
        #expect(detail.value??.mainAction?.service == "toggle")
        // A change made elsewhere is an event, a store write, and a new value on every feed showing it.
        let before = try #require(detail.value??.entity.state)
        let after = before == "on" ? "off" : "on"
        try await home.callElsewhere("input_boolean.toggle", ["entity_id": .string(plug)])
        #expect(await waitUntilObserved(upTo: .seconds(20)) { detail.value??.entity.state == after })
        #expect(
            await waitUntilObserved(upTo: .seconds(20)) {
                kitchen.value?.first?.entities.first { $0.entityID == plug }?.state == after
            })
        // The connection ends: stale at once, values kept.
        await home.connection.stop()
        #expect(await waitUntilObserved(upTo: .seconds(10)) { kitchen.state.kind == .stale })
        #expect(kitchen.value?.first?.entities.count == 20 && detail.value??.entity.state == after)
        // The next launch, 12 min 30 s later, before any network: the stored states, stale with their age.
        clock.advance(by: 750)
        let relaunched = try await HomeAssistantServer.open(home.account, environment: home.environment)
        let launch = relaunched.entitiesByArea()
        await launch.refresh()
        guard case .stale(let groups, let age, _) = launch.state else {
            Issue.record("not stale at launch: \(launch.state.kind)")
            return
        }
        #expect(age == 750)
        #expect(groups.count == 11 && groups.dropLast().allSatisfy { $0.entities.count == 100 })
        // Another account on the same server has its own store: none of these states.
        let other = AccountKey(address: try home.fixture.address(home.environment), userID: "someone-else")
        let otherStore = try await home.environment.stores.store(for: other)
        #expect(
            try await otherStore.read { transaction throws(StoreError) in try EntityStore.read(transaction) } == nil)
    }
}
