import CompanionApp
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// Service calls and templates on the live connection against the real Home Assistant (H-ACT).
@Suite struct ActionTests {
    @Test("H-ACT-1 H-ACT-2 H-CONN-8: the call's exact command, done with its context, the event routed to the entities")
    func toggleIsDoneAndItsEventArrives() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let id = "input_boolean.porch_light"
        let before = try #require(await home.connection.entities[id]).state
        let toggle = ServiceCall(domain: "input_boolean", service: "toggle", entityIDs: [id])
        let outcome = await home.connection.call(toggle)
        guard case .done(let context, let response) = outcome else {
            Issue.record("not done: \(outcome)")
            return
        }
        #expect(!context.isEmpty && response == nil)
        let sent = try #require(home.sent.last { $0["type"] == "call_service" })
        let expected: JSONValue = [
            "type": "call_service", "domain": "input_boolean", "service": "toggle",
            "target": ["entity_id": .string(id)],
            "id": sent["id"] ?? .null,
        ]
        #expect(sent == expected)
        let after = before == "on" ? "off" : "on"
        #expect(try await home.waitForEntities { $0[id]?.state == after })
        #expect(await home.connection.entities[id]?.context.id == context)
        await home.connection.stop()
    }

    @Test("H-ACT-2 H-ACT-7: the server's refusals word for word; the response only when asked for")
    func failuresAndResponses() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let tooHigh = await home.connection.call(
            ServiceCall(
                domain: "input_number", service: "set_value", entityIDs: ["input_number.thermostat"],
                data: ["value": 999]))
        #expect(
            tooHigh
                == .failed(
                    code: "invalid_format",
                    message: "Invalid value for input_number.thermostat: 999.0 (range 10.0 - 30.0)"))
        #expect(
            await home.connection.call(ServiceCall(domain: "nope", service: "nope"))
                == .failed(
                    code: "not_found", message: "Service nope.nope not found."))
        var items = ServiceCall(domain: "todo", service: "get_items", entityIDs: ["todo.shopping_list"])
        items.returnResponse = true
        guard case .done(_, let response?) = await home.connection.call(items) else {
            Issue.record("todo.get_items gave no response")
            return
        }
        #expect(response["todo.shopping_list"]?["items"] != nil)
        var toggle = ServiceCall(domain: "input_boolean", service: "toggle", entityIDs: ["input_boolean.porch_light"])
        toggle.returnResponse = true
        guard case .failed(let code, _) = await home.connection.call(toggle) else {
            Issue.record("a toggle asked for a response was not refused")
            return
        }
        #expect(code == "service_validation_error")
        await home.connection.stop()
    }

    @Test("H-CONN-13 H-OFF-4 H-ACT-3: a call while not connected fails at once and is never sent later; a read waits")
    func notConnectedCallNeverSent() async throws {
        let home = try await LiveHome()
        let toggle = ServiceCall(domain: "input_boolean", service: "toggle", entityIDs: ["input_boolean.porch_light"])
        guard case .notConnected = await home.connection.call(toggle) else {
            Issue.record("a call before the connection was not refused at once")
            return
        }
        await home.connection.start()
        // A read asked while connecting waits for ready, then is sent.
        let config = try await home.connection.read(["type": "get_config"])
        #expect(config["version"] == "2025.4.4")
        #expect(try await withDeadline(.seconds(60)) { await home.connection.waitUntilLive() } == true)
        #expect(!home.sentTypes.contains("call_service"), "the refused call was sent later")
        await home.connection.stop()
    }

    @Test("H-ACT-4: the optimistic state shows at once, until the server's event; an error drops it at once")
    @MainActor
    func optimisticUntilTheServersEvent() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let actions = await EntityActions.watching(home.connection)
        let id = "input_boolean.office_plug_1"
        let plug = try #require(await home.connection.entities[id])
        let expected = plug.state == "on" ? "off" : "on"
        let running = try #require(actions.performMainAction(on: plug))
        #expect(actions.shownState(of: plug) == expected, "the optimistic state shows before the call returns")
        #expect(try await home.server.stored()?.entities.first { $0.entityID == id }?.state == plug.state)
        #expect(await running.value.isDone)
        #expect(try await home.waitForEntities { $0[id]?.state == expected })
        #expect(await waitUntilObserved(upTo: .seconds(30)) { actions.optimistic[id] == nil })
        // An error result: the server's state again at once.
        let thermostat = try #require(await home.connection.entities["input_number.thermostat"])
        let refused = actions.perform(
            ServiceCall(
                domain: "input_number", service: "set_value", entityIDs: [thermostat.entityID], data: ["value": 999]),
            on: thermostat)
        #expect(actions.shownState(of: thermostat) == "999.0")
        guard case .failed = await refused.value else {
            Issue.record("999 was not refused")
            return
        }
        #expect(actions.optimistic[thermostat.entityID] == nil)
        #expect(actions.shownState(of: thermostat) == thermostat.state)
        actions.stop()
        await home.connection.stop()
    }

    @Test(
        "H-ACT-5 H-ACT-6: a success with no event drops the optimistic state after the hold; a slow call is still running, then done, never failed"
    )
    @MainActor
    func optimisticHoldAndSlowCalls() async throws {
        #expect(EntityActions.optimisticHold == .seconds(5) && EntityActions.slowCallAfter == .seconds(10))
        let home = try await LiveHome()
        try await home.startLive()
        // Shorter times than the rules' (the same code): 1 s of hold, "still running" after 1 s.
        let actions = await EntityActions.watching(home.connection, hold: .seconds(1), slowAfter: .seconds(1))
        // set_value to the value it has: Home Assistant answers success and sends no event for it.
        let id = "input_number.hallway_setpoint_1"
        let setpoint = try #require(await home.connection.entities[id])
        let value = try #require(Double(setpoint.state))
        let same = actions.perform(
            ServiceCall(domain: "input_number", service: "set_value", entityIDs: [id], data: ["value": .number(value)]),
            on: setpoint)
        #expect(actions.optimistic[id] == "\(value)")
        #expect(await same.value.isDone)
        #expect(actions.optimistic[id] != nil, "dropped at the success already")
        #expect(await waitUntilObserved(upTo: .seconds(20)) { actions.optimistic[id] == nil }, "kept with no event")
        // script.slow runs 3 s: still running after 1 s, then done; no client timeout made it a failure.
        let script = try #require(await home.connection.entities["script.slow"])
        let slow = actions.perform(ServiceCall(domain: "script", service: "slow"), on: script)
        #expect(await waitUntilObserved(upTo: .seconds(20)) { actions.stillRunning.contains("script.slow") })
        #expect(actions.outcomes["script.slow"] == nil)
        #expect(await slow.value.isDone)
        #expect(!actions.stillRunning.contains("script.slow"))
        actions.stop()
        await home.connection.stop()
    }

    @Test(
        "H-ACT-11 H-CONN-15: render_template's result keeps its JSON type; a bad template is template_error; unsubscribe"
    )
    func templates() async throws {
        let home = try await LiveHome()
        try await home.startLive()
        let subscription: JSONValue
        do {
            let renders = await home.connection.render("{{ states('sensor.thermostat_doubled') | float }}")
            let first = try await withDeadline(.seconds(20)) {
                for try await render in renders { return render }
                return nil
            }
            let render = try #require(first)
            #expect(render.result.doubleValue != nil && render.result.stringValue == nil, "\(render.result)")
            #expect(render.entities == ["sensor.thermostat_doubled"] && !render.all)
            subscription = try #require(home.sent.last { $0["type"] == "render_template" }?["id"])
        }
        // The stream is gone: its subscription is ended with unsubscribe_events naming its id. Each ping is a round
        // trip that lets the cancellation reach the channel (at most 20, no sleep).
        var unsubscribe: JSONValue?
        for _ in 0..<20 where unsubscribe == nil {
            _ = try await home.connection.read(["type": "ping"])
            unsubscribe = home.sent.last { $0["type"] == "unsubscribe_events" }
        }
        #expect(unsubscribe?["subscription"] == subscription)
        let broken = await home.connection.render("{{ states( }}")
        do {
            _ = try await withDeadline(.seconds(20)) {
                for try await render in broken { return render }
                return nil
            }
            Issue.record("a template Home Assistant cannot parse rendered")
        } catch let error as ChannelError {
            guard case .server(let code, _) = error else {
                Issue.record("not the server's error: \(error)")
                return
            }
            #expect(code == "template_error")
        }
        await home.connection.stop()
    }
}
