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
@Suite(.serialized) struct OfflineTests {
    @Test(
        "H-OFF-1 H-OFF-2 H-OFF-3 H-ENT-14: a change elsewhere reaches the feeds; stale from the drop; at launch the stored states with their age, by domain in one area"
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
        #expect(detail.state.kind == .content)
        // An entity the store does not hold is an empty detail, not content.
        let missing = home.server.entity("sensor.no_such_entity")
        await missing.refresh()
        #expect(await waitUntilObserved(upTo: .seconds(20)) { missing.state.kind == .empty })
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
        // H-ENT-14: by domain within one area, named by its name in any case or by its id, domains in order; the
        // area's name of an entity, none for one in no area.
        let stored = try #require(try await relaunched.stored())
        for area in ["KITCHEN", "kitchen"] {
            let byDomain = stored.byDomain(EntityFilter(area: area))
            #expect(
                byDomain.map(\.id) == [
                    "binary_sensor", "counter", "input_boolean", "input_button", "input_datetime", "input_number",
                    "input_select", "input_text", "light", "sensor", "switch",
                ], "\(area)")
            #expect(byDomain.map(\.entities.count) == [12, 4, 20, 2, 2, 12, 5, 4, 8, 25, 6], "\(area)")
            #expect(byDomain.allSatisfy { $0.entities.allSatisfy { $0.entityID.contains(".kitchen_") } }, "\(area)")
        }
        #expect(stored.byDomain(EntityFilter(area: "Kitchen", domain: "light")).map(\.entities.count) == [8])
        #expect(stored.areaName(of: "input_boolean.kitchen_plug_1") == "Kitchen")
        #expect(stored.areaName(of: "input_boolean.porch_light") == nil)
        #expect(stored.detail(of: "input_boolean.kitchen_plug_1")?.area == "Kitchen")
        #expect(stored.detail(of: "sensor.no_such_entity") == nil)
        // Another account on the same server has its own store: none of these states.
        let other = AccountKey(address: try home.fixture.address(home.environment), userID: "someone-else")
        let otherStore = try await home.environment.stores.store(for: other)
        #expect(
            try await otherStore.read { transaction throws(StoreError) in try EntityStore.read(transaction) } == nil)
    }

    @Test(
        "H-OFF-2 H-OFF-3: stop() is final — events buffered when it is called are never applied after it returns, so the stored age is the stop's"
    )
    @MainActor
    func stopIsFinal() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_796_700_000))
        let home = try await LiveHome(clock: clock)
        try await home.startLive()
        // The booleans of two areas no other test touches, toggled in one call from elsewhere: 40 events and those of
        // the template lights and sensors that follow them, arriving together. Screens open on this account's store
        // (each reads it again after every event's write) make each event slow to apply, so most are still buffered
        // at the stop; the burst stays small for the suites beside this one.
        let booleans = await home.connection.entities.sorted.map(\.entityID).filter {
            $0.hasPrefix("input_boolean.attic_") || $0.hasPrefix("input_boolean.basement_")
        }
        try #require(booleans.count == 40)
        let screens = (0..<12).map { _ in home.server.entitiesByArea() }
        for screen in screens { await screen.refresh() }
        let updates = await home.connection.updates()
        let touched = Set(booleans)
        let first = Task { () -> Bool in
            for await update in updates where !update.touched.isDisjoint(with: touched) { return true }
            return false
        }
        try await home.callElsewhere("input_boolean.toggle", ["entity_id": .array(booleans.map { .string($0) })])
        #expect(try await withDeadline(.seconds(20)) { await first.value } == true, "no event of the toggle")
        // Stopped at the first of them: whatever was buffered then is dropped.
        await home.connection.stop()
        let stoppedAt = clock.now()
        let kept = await home.connection.entities
        clock.advance(by: 750)
        let stored = try #require(try await home.server.stored())
        #expect(!stored.isLive)
        #expect(stored.syncedAt == stoppedAt, "the sync mark moved after stop() returned: \(stored.syncedAt)")
        let storedStates = Dictionary(stored.entities.map { ($0.entityID, $0.state) }, uniquingKeysWith: { $1 })
        #expect(booleans.allSatisfy { storedStates[$0] == kept[$0]?.state }, "the store is the set at the stop")
        #expect(await home.connection.entities == kept, "an event was applied after stop() returned")
        let relaunched = try await HomeAssistantServer.open(home.account, environment: home.environment)
        let launch = relaunched.entitiesByArea()
        await launch.refresh()
        guard case .stale(_, let age, _) = launch.state else {
            Issue.record("not stale at launch: \(launch.state.kind)")
            return
        }
        #expect(age == 750)
        #expect(screens.count == 12)
    }
}
