import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The live connection on the kit's channel against the real Home Assistant: the auth phase, the first command,
/// ids, the entities, registries and config after ready, the probe's version (H-CONN, H-ENT-12, H-ADDR-4).
@Suite struct ConnectionTests {
    @Test(
        "H-CONN-1 H-CONN-4 H-CONN-6 H-CONN-7 H-CONN-14 H-ENT-1 H-ENT-12: auth, supported_features first, ids from 1, 1,011 entities, registries and config after ready"
    )
    func connectsAndReads() async throws {
        let home = try await LiveHome()
        let states = await home.connection.states()
        let collected = Task {
            var seen: [ChannelState] = []
            for await state in states {
                seen.append(state)
                if state == .ready { return seen }
            }
            return seen
        }
        try await home.startLive()
        #expect(await collected.value == [.disconnected(.notStarted), .connecting, .authenticating, .ready])
        #expect(home.connection.version == "2025.4.4")
        #expect(
            await home.connection.entities.entities.count >= 1011,
            "the 1,011 states (and any device a test beside this one registered)")
        let sent = home.sent
        // The auth message first (its token masked in the journal), then supported_features with id 1.
        #expect(sent.first?["type"] == "auth")
        guard case .bearer(let token, _, _)? = try home.environment.secrets.load(home.account)?.credential else {
            Issue.record("no bearer stored")
            return
        }
        let journal = String(decoding: home.environment.journal.exportJSONLines(), as: UTF8.self)
        #expect(!journal.contains(token), "the journal holds the access token")
        #expect(
            sent.dropFirst().first == ["type": "supported_features", "features": ["coalesce_messages": 1], "id": 1])
        let ids = sent.dropFirst().compactMap { $0["id"]?.intValue }
        #expect(ids == Array(1...Int64(ids.count)), "ids from 1, one more each: \(ids)")
        #expect(sent.contains { $0["type"] == "subscribe_entities" && $0["entity_ids"] == nil })
        let subscribed = Set(sent.filter { $0["type"] == "subscribe_events" }.compactMap { $0["event_type"] })
        #expect(
            subscribed == [
                "area_registry_updated", "device_registry_updated", "entity_registry_updated", "component_loaded",
                "core_config_updated",
            ])
        // After ready: get_config and the three registries, stored for the screens.
        let feed = await home.server.entitiesByArea()
        await feed.refresh()
        // The groups come with the entity registry; their titles with the area registry, read beside it (a group is
        // titled by its area id until then): wait for both.
        let grouped = await waitUntilObserved(upTo: .seconds(20)) {
            feed.value?.count == 11 && feed.value?.first?.title == "Attic"
        }
        let groups = await feed.value ?? []
        #expect(grouped, "10 areas and Unassigned: \(groups.map(\.title))")
        #expect(groups.first?.title == "Attic" && groups.last?.title == "Unassigned")
        #expect(groups.dropLast().map(\.entities.count) == Array(repeating: 100, count: 10))
        #expect(await home.connection.config?.version == "2025.4.4")
        // get_config once after the one ready; each registry list at least once (again after a *_registry_updated
        // caused by a test beside this one: a device registered, an area renamed).
        #expect(home.sentTypes.filter { $0 == "get_config" }.count == 1)
        for command in ["config/area_registry/list", "config/device_registry/list", "config/entity_registry/list"] {
            #expect(home.sentTypes.contains(command), "\(command) after the ready")
        }
        await home.connection.stop()
    }

    @Test("H-ADDR-4: the probe reads auth_required's ha_version over the WebSocket with no auth and no token")
    func probeVersion() async throws {
        let fixture = try HomeAssistantFixture()
        let environment = TestEnvironments.loopback()
        let version = try await HomeAssistantServer.probeVersion(
            at: try fixture.address(environment), environment: environment)
        #expect(version == "2025.4.4")
        let sent = environment.journal.newestFirst().filter { $0.message.hasPrefix("channel send") }
        #expect(sent.isEmpty, "the probe sent \(sent.map(\.message))")
    }

    @Test(
        "H-ENT-12: an area renamed elsewhere → area_registry_updated → the list read again → the group title changes")
    func areaRenamedIsReadAgain() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let feed = await home.server.entitiesByArea(EntityFilter(area: "garden"))
        await feed.refresh()
        #expect(await waitUntilObserved(upTo: .seconds(20)) { feed.value?.first?.title == "Garden" })
        let rename: (String) async throws -> Void = { name in
            _ = try await home.connection.read(
                ["type": "config/area_registry/update", "area_id": "garden", "name": .string(name)])
        }
        try await rename("Back Garden")
        #expect(await waitUntilObserved(upTo: .seconds(20)) { feed.value?.first?.title == "Back Garden" })
        #expect(home.sentTypes.filter { $0 == "config/area_registry/list" }.count == 2)
        try await rename("Garden")
        #expect(await waitUntilObserved(upTo: .seconds(20)) { feed.value?.first?.title == "Garden" })
        await home.connection.stop()
    }
}

/// Holds the first `POST /auth/token` (a refresh) until `release()`: a token source that stalls.
final class StalledRefresh: Middleware {
    private let gate = Locked<(held: Bool, waiting: CheckedContinuation<Void, Never>?, released: Bool)>(
        (false, nil, false))

    func intercept(_ request: HTTPRequest, next: HTTPNext) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        let hold = gate.withLock { state in
            guard request.url.path == "/auth/token", !state.held else { return false }
            state.held = true
            return true
        }
        if hold {
            await withCheckedContinuation { continuation in
                let go = gate.withLock { state in
                    if state.released { return true }
                    state.waiting = continuation
                    return false
                }
                if go { continuation.resume() }
            }
        }
        return try await next(request)
    }

    /// Lets the held refresh go on.
    func release() {
        gate.withLock { state in
            state.released = true
            return state.waiting.take()
        }?.resume()
    }
}

/// The auth phase's bound, the close of a stop and subscriptions refused at their start (H-CONN-4, H-CONN-17, H-CONN-14).
@Suite struct ConnectionBoundsTests {
    @Test(
        "H-CONN-4 H-CONN-17: a token source stalled past the auth bound → the attempt closed and retried, then ready; stop() closes with 1001 and never reconnects"
    )
    func stalledAuthRetriedAndStopGoesAway() async throws {
        #expect(HomeAssistantConnection.authWait == .seconds(10))
        let clock = ManualWallClock(Date())
        let environment = TestEnvironments.loopback(clock: clock)
        let fixture = try HomeAssistantFixture()
        let signIn = try environment.homeAssistantSignIn(try fixture.address(environment), recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: fixture.user, password: fixture.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        // The access token expired: the auth phase waits for a refresh, which stalls.
        clock.advance(by: 1800)
        let stall = StalledRefresh()
        let server = try await HomeAssistantServer.open(stored.account, environment: environment, middlewares: [stall])
        // The bound is the policy's: 10 s unless a policy names one; 1 s here.
        #expect(server.connection().channel.policy.signInTimeout == .seconds(10))
        let connection = server.connection(policy: ReconnectPolicy(signInTimeout: .seconds(1)))
        let states = await connection.states()
        let seen = Locked<[ChannelState]>([])
        await connection.start()
        let timedOut = try await withDeadline(.seconds(30)) { () async -> Bool? in
            for await state in states {
                seen.withLock { $0.append(state) }
                if case .disconnected(.waitingToReconnect(let error?, _, _)) = state,
                    error.description.contains("sign-in did not end")
                {
                    return true
                }
            }
            return false
        }
        #expect(timedOut == true, "no retry after the stalled auth: \(seen.withLock { $0 })")
        stall.release()
        let live = try await withDeadline(.seconds(60)) { await connection.waitUntilLive() }
        let afterRelease = await connection.channel.state
        #expect(live == true, "not live after the refresh went on: \(afterRelease)")
        // A stop is this side going away: 1001, and the channel stays stopped.
        await connection.stop()
        let closes = environment.journal.newestFirst().filter { $0.message == "channel closed" }
        #expect(closes.map { $0.fields["code"] } == ["1001"])
        #expect(await connection.channel.state == .disconnected(.stopped))
        #expect(await connection.readyCount == 1)
    }

    @Test(
        "H-CONN-14: a subscription refused at its start is sent again after core_config_updated (component_loaded alike)"
    )
    func refusedSubscriptionSentAgain() async throws {
        #expect(HomeAssistantConnection.resubscribeDelay == .seconds(5))
        let fixture = try HomeAssistantFixture()
        let environment = TestEnvironments.loopback()
        let signIn = try environment.homeAssistantSignIn(try fixture.address(environment), recorder: RequestRecorder())
        #expect(try await signIn.signIn(username: fixture.user, password: fixture.password) == .authenticated)
        let stored = try await signIn.issueCredential()
        try environment.secrets.save(stored)
        let server = try await HomeAssistantServer.open(stored.account, environment: environment)
        #expect(server.connection().resubscribeAfter == .seconds(5))
        // No wait here (the same code): sent again as soon as the event arrived.
        let connection = server.connection(resubscribeAfter: .zero)
        await connection.start()
        #expect(try await withDeadline(.seconds(60)) { await connection.waitUntilLive() } == true)
        let sent = { () -> [JSONValue] in
            environment.journal.newestFirst().reversed().compactMap { event -> JSONValue? in
                guard event.message == "channel send subscribe_trigger", let body = event.fields["body"] else {
                    return nil
                }
                return JSONValue(data: Data(body.utf8))
            }
        }
        // A trigger Home Assistant refuses (invalid_format): the stream stays, waiting for a retry.
        let trigger: JSONValue = ["type": "subscribe_trigger", "trigger": ["platform": "no_such_platform"]]
        let events = await connection.subscribe(trigger)
        let reader = Task { for await _ in events {} }
        defer { reader.cancel() }
        for _ in 0..<20 where sent().isEmpty { _ = try await connection.read(["type": "ping"]) }
        #expect(sent().count == 1)
        // The core's configuration updated (to the value it has) → core_config_updated → sent again. Each ping is a
        // round trip that lets the event and the retry through (at most 50, no sleep).
        _ = try await connection.read(["type": "config/core/update", "elevation": 0])
        for _ in 0..<50 where sent().count < 2 { _ = try await connection.read(["type": "ping"]) }
        #expect(sent().count == 2, "not sent again after core_config_updated")
        await connection.stop()
    }
}

/// A burst of events from another client (H-CONN-16), on the https instance: 4,000 events on every live connection
/// of the plain instance would slow every suite running beside.
@Suite(.exclusive("homeassistant-tls")) struct BurstTests {
    @Test(
        "H-CONN-16: 2,000 set_value calls by another client at once → this connection stays ready and ends with the last value"
    )
    func burstFromElsewhere() async throws {
        let home = try await LiveHome(.tls)
        try await home.startLive()
        let token = try HomeAssistantFixture.file("HOMEASSISTANT_TLS_TOKEN_FILE")
        let other = try await LiveHome(.tls, credential: .bearer(accessToken: token, refreshToken: nil, expiresAt: nil))
        try await other.startLive()
        let id = "input_number.living_room_setpoint_2"
        let call: @Sendable (Double) -> ServiceCall = { value in
            ServiceCall(domain: "input_number", service: "set_value", entityIDs: [id], data: ["value": .number(value)])
        }
        // 1,999 calls sent together (the other client does not wait between them), then the last one alone.
        let done = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<1999 {
                group.addTask { await other.connection.call(call(10 + Double(index % 40) / 2)).isDone }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(done == 1999)
        #expect(await other.connection.call(call(27.5)).isDone)
        #expect(try await home.waitForEntities(upTo: .seconds(120)) { $0[id]?.state == "27.5" })
        #expect(await home.connection.readyCount == 1, "the connection dropped under the burst")
        #expect(await home.connection.channel.state == .ready)
        await other.connection.stop()
        await home.connection.stop()
    }
}
