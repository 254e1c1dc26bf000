import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import HomeAssistantCore
import Testing

/// The service list's names and responses (H-ACT-7, H-ACT-10), pure and from the real Home Assistant's
/// `get_services`, and a call in flight when its connection drops (H-ACT-2's `unknown`, H-CONN-12).
@Suite struct ServiceTests {
    @Test("H-ACT-10: a service's name is its name, else its description, else domain.service; empty counts as absent")
    func titles() {
        let both: JSONValue = ["name": "Toggle", "description": "Toggles the helper"]
        #expect(ServiceCall.title(domain: "input_boolean", service: "toggle", description: both) == "Toggle")
        let emptyName: JSONValue = ["name": "", "description": "Toggles the helper"]
        #expect(
            ServiceCall.title(domain: "input_boolean", service: "toggle", description: emptyName)
                == "Toggles the helper")
        let bothEmpty: JSONValue = ["name": "", "description": ""]
        #expect(
            ServiceCall.title(domain: "input_boolean", service: "toggle", description: bothEmpty)
                == "input_boolean.toggle")
        let notText: JSONValue = ["name": 3, "description": .null]
        #expect(
            ServiceCall.title(domain: "input_boolean", service: "toggle", description: notText)
                == "input_boolean.toggle")
        #expect(ServiceCall.title(domain: "todo", service: "get_items", description: nil) == "todo.get_items")
    }

    @Test("H-ACT-1 H-CLI-4: `domain.service` read from text is two non-empty parts; anything else is no call")
    func callNames() {
        let call = ServiceCall("input_boolean.toggle", entityIDs: ["input_boolean.x"], data: ["a": 1])
        #expect(
            call
                == ServiceCall(
                    domain: "input_boolean", service: "toggle", entityIDs: ["input_boolean.x"], data: ["a": 1]))
        #expect(call?.name == "input_boolean.toggle")
        for bad in ["nope", ".toggle", "input_boolean.", "a.b.c", "", "."] {
            #expect(ServiceCall(bad) == nil, "\(bad)")
        }
    }

    @Test(
        "H-ACT-4: the state a call leads to: a toggle flips on and off, turn_on, turn_off, set_value's value; else none"
    )
    func expectedStates() {
        let toggle = ServiceCall(domain: "light", service: "toggle")
        #expect(toggle.expectedState(from: "on") == "off")
        #expect(toggle.expectedState(from: "off") == "on")
        #expect(toggle.expectedState(from: "unavailable") == nil)
        #expect(ServiceCall(domain: "light", service: "turn_on").expectedState(from: "off") == "on")
        #expect(ServiceCall(domain: "light", service: "turn_off").expectedState(from: "on") == "off")
        let number = ServiceCall(domain: "input_number", service: "set_value", data: ["value": 21.5])
        #expect(number.expectedState(from: "20.0") == "21.5")
        let text = ServiceCall(domain: "input_select", service: "select_option", data: ["value": "Eco"])
        #expect(text.expectedState(from: "Off") == nil)
        let setText = ServiceCall(domain: "input_text", service: "set_value", data: ["value": "Eco"])
        #expect(setText.expectedState(from: "Off") == "Eco")
        #expect(ServiceCall(domain: "input_button", service: "press").expectedState(from: "x") == nil)
    }

    @Test("H-ACT-8 H-ACT-9: the main action by domain (the iOS table); a lock by its state; none when unavailable")
    func mainActions() {
        func action(_ id: String, _ state: String = "off") -> String? {
            let entity = EntityState(
                entityID: id, state: state, lastChanged: EntityTime(microseconds: 0), context: EntityContext(id: "c"))
            return ServiceCall.mainAction(for: entity).map { "\($0.name) \($0.entityIDs)" }
        }
        for domain in ["cover", "fan", "humidifier", "input_boolean", "light", "switch", "valve"] {
            #expect(action("\(domain).x") == "\(domain).toggle [\"\(domain).x\"]")
        }
        #expect(action("button.x") == "button.press [\"button.x\"]")
        #expect(action("input_button.x") == "input_button.press [\"input_button.x\"]")
        #expect(action("scene.x") == "scene.turn_on [\"scene.x\"]")
        #expect(action("script.x") == "script.turn_on [\"script.x\"]")
        #expect(action("automation.x") == "automation.trigger [\"automation.x\"]")
        for state in ["unlocked", "unlocking", "opening"] {
            #expect(action("lock.front", state) == "lock.lock [\"lock.front\"]", "\(state)")
        }
        for state in ["locked", "locking"] {
            #expect(action("lock.front", state) == "lock.unlock [\"lock.front\"]", "\(state)")
        }
        #expect(action("lock.front", "jammed") == nil)
        for id in ["sensor.x", "binary_sensor.x", "input_number.x", "zone.home", "person.x"] {
            #expect(action(id) == nil, "\(id)")
        }
        #expect(action("light.kitchen", "unavailable") == nil)
    }

    @Test("H-ACT-7: return_response follows the response key: always when not optional, when wanted if optional")
    func responseRule() {
        let required: JSONValue = ["name": "Get items", "response": ["optional": false]]
        let optional: JSONValue = ["name": "Slow", "response": ["optional": true]]
        let none: JSONValue = ["name": "Toggle"]
        for wanted in [false, true] {
            #expect(ServiceCall.asksForResponse(description: required, viewWantsIt: wanted))
            #expect(ServiceCall.asksForResponse(description: optional, viewWantsIt: wanted) == wanted)
            #expect(!ServiceCall.asksForResponse(description: none, viewWantsIt: wanted))
            #expect(!ServiceCall.asksForResponse(description: nil, viewWantsIt: wanted))
            #expect(!ServiceCall.asksForResponse(description: ["response": .null], viewWantsIt: wanted))
        }
    }

    @Test(
        "H-ACT-7 H-ACT-10: the real get_services: names as Home Assistant gives them; calls made as their descriptions say get a response exactly when asked"
    )
    func fromTheServersServices() async throws {
        let fixture = try HomeAssistantFixture()
        let home = try await LiveHome(
            credential: .bearer(accessToken: fixture.longLivedToken, refreshToken: nil, expiresAt: nil))
        try await home.startLive()
        let services = try await home.connection.services()
        let getItems = try #require(services["todo"]?["get_items"])
        let toggle = try #require(services["input_boolean"]?["toggle"])
        let slow = try #require(services["script"]?["slow"])
        // H-ACT-10: Home Assistant 2025.4.4's own names (its translations), and a script's alias.
        #expect(ServiceCall.title(domain: "todo", service: "get_items", description: getItems) == "Get items")
        #expect(ServiceCall.title(domain: "input_boolean", service: "toggle", description: toggle) == "Toggle")
        #expect(ServiceCall.title(domain: "script", service: "slow", description: slow) == "Slow")
        // H-ACT-7: get_items' response is not optional, a script's is, a toggle has none.
        #expect(getItems["response"] == ["optional": false])
        #expect(slow["response"] == ["optional": true])
        #expect(toggle["response"] == nil)
        #expect(ServiceCall.asksForResponse(description: getItems, viewWantsIt: false))
        #expect(!ServiceCall.asksForResponse(description: slow, viewWantsIt: false))
        #expect(ServiceCall.asksForResponse(description: slow, viewWantsIt: true))
        #expect(!ServiceCall.asksForResponse(description: toggle, viewWantsIt: true))

        var items = ServiceCall(domain: "todo", service: "get_items", entityIDs: ["todo.shopping_list"])
        items.returnResponse = ServiceCall.asksForResponse(description: getItems, viewWantsIt: false)
        guard case .done(_, let response?) = await home.connection.call(items) else {
            Issue.record("todo.get_items, asked as its description says, gave no response")
            return
        }
        #expect(response["todo.shopping_list"]?["items"]?.arrayValue != nil)
        #expect(home.sent.last { $0["type"] == "call_service" }?["return_response"] == true)
        var plug = ServiceCall(domain: "input_boolean", service: "toggle", entityIDs: ["input_boolean.bathroom_plug_5"])
        plug.returnResponse = ServiceCall.asksForResponse(description: toggle, viewWantsIt: true)
        guard case .done(_, let none) = await home.connection.call(plug) else {
            Issue.record("a toggle asked as its description says was refused")
            return
        }
        #expect(none == nil)
        #expect(home.sent.last { $0["type"] == "call_service" }?["return_response"] == nil)
        await home.connection.stop()
    }

    @Test(
        "H-ACT-2 H-CONN-12 H-ACT-3: a call and a request in flight when the connection drops: the call is unknown, the request fails at once, neither is sent again after the reconnect, and the entity tells what happened"
    )
    func droppedMidCall() async throws {
        let fixture = try HomeAssistantFixture()
        // The connection goes through a relay the test cuts: Home Assistant stays up, only this socket is lost.
        let relay = try TCPRelay(relayingTo: try #require(fixture.url.port))
        relay.start()
        defer { relay.stop() }
        let home = try await LiveHome(
            credential: .bearer(accessToken: fixture.longLivedToken, refreshToken: nil, expiresAt: nil),
            through: URL(string: "http://127.0.0.1:\(relay.port)"))
        try await home.startLive()
        let connection = home.connection
        let script = "script.dropped_call"
        let marker = "input_boolean.bathroom_plug_6"
        // A run of this test just before may have left the script running (30 s): it must be idle before the call.
        #expect(try await home.waitForEntities(upTo: .seconds(45)) { $0[script]?.state == "off" })
        let before = try #require(await connection.entities[script])
        let markerBefore = try #require(await connection.entities[marker]).state
        let updates = await connection.updates()

        // The call runs 30 s at Home Assistant; the request (`execute_script`) toggles the marker, then waits 30 s:
        // under the parallel suite's load a 5 s run once ended before the cut, and the call was done, not unknown.
        let call = Task { await connection.call(ServiceCall(domain: "script", service: "dropped_call")) }
        let request = Task { () async -> ChannelError? in
            do throws(ChannelError) {
                _ = try await connection.read([
                    "type": "execute_script",
                    "sequence": [
                        ["action": "input_boolean.toggle", "target": ["entity_id": .string(marker)]],
                        ["delay": ["seconds": 30]],
                    ],
                ])
                return nil
            } catch {
                return error
            }
        }
        // Both reached Home Assistant (it runs them: their states changed on this connection); neither has a result.
        #expect(try await home.waitForEntities { $0[script]?.state == "on" && $0[marker]?.state != markerBefore })
        relay.cut()

        let outcome = await call.value
        guard case .unknown = outcome else {
            Issue.record("a call whose connection dropped before its result is \(outcome), not unknown")
            return
        }
        #expect(outcome.description == "The server may or may not have done it.")
        let failure = await request.value
        guard case .notConnected? = failure else {
            Issue.record("a request cut before its reply ended with \(String(describing: failure))")
            return
        }
        // The connection comes back (the relay still answers) with a new first event.
        let reconnected = try await withDeadline(.seconds(60)) {
            for await update in updates where update.initial { return true }
            return false
        }
        #expect(reconnected == true, "no reconnect within 60 s")
        // A round trip on the new connection: anything the connection would resend has been sent before its reply.
        _ = try await connection.read(["type": "ping"])
        #expect(home.sentTypes.filter { $0 == "call_service" }.count == 1, "the dropped call was sent again")
        #expect(home.sentTypes.filter { $0 == "execute_script" }.count == 1, "the dropped request was sent again")
        // The truth is the entity's: the script did run (its last_triggered moved), whatever the outcome said.
        let after = try #require(await connection.entities[script])
        #expect(after.attributes["last_triggered"] != before.attributes["last_triggered"])
        #expect(
            home.environment.journal.newestFirst().contains {
                $0.message.contains("script.dropped_call may or may not have happened")
            })
        await connection.stop()
    }
}
