import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation
import HomeAssistantCore
import Testing

/// The edges of the pure readers and values: each boundary at its limit and one past it, each key and each
/// sentence exactly (H-ENT, H-ACT, H-NOT, H-AUTH, H-ADDR).
@Suite struct WireEdgeTests {
    @Test("H-ENT-1: an entity id is lowercase letters, digits and _ on each side of one \".\", at every byte's edge")
    func entityIDBytes() {
        for good in ["a.z", "z.a", "a0.b9", "_.x_", "light.kitchen_2", "sensor.0"] {
            #expect(EntityID.isValid(good), "\(good)")
        }
        // The bytes just outside each range: ` (0x60), { (0x7B), / (0x2F), : (0x3A), A, -, and a space.
        for bad in [
            "a.`", "a.{", "a./", "a.:", "`.a", "{.a", "/.a", ":.a", "light.Kitchen", "light.a-b", "light.a b",
            "light", "light.", ".kitchen", "a.b.c", "", ".",
        ] {
            #expect(!EntityID.isValid(bad), "\(bad)")
        }
        #expect(EntityID.domain(of: "light.kitchen") == "light")
        #expect(EntityID.domain(of: "nodot") == "nodot")
        #expect(EntityID.domain(of: ".x") == "")
    }

    @Test("H-ENT-11: unavailable and unknown are the server's words for no state of its own; anything else is a state")
    func availabilityWords() {
        func availability(_ state: String) -> Availability {
            EntityState(
                entityID: "sensor.x", state: state, lastChanged: EntityTime(microseconds: 0),
                context: EntityContext(id: "c")
            )
            .availability
        }
        #expect(availability("unavailable") == .unavailable)
        #expect(availability("unknown") == .unknown)
        #expect(availability("") == .available)
        #expect(availability("on") == .available)
    }

    @Test(
        "H-ENT-9: Unix seconds from 1970 (0 itself read) to 9999-12-31T23:59:59.999999Z (read), one step past each not")
    func timeBounds() throws {
        #expect(EntityTime(unixSeconds: 0)?.microseconds == 0)
        #expect(EntityTime(unixSeconds: 0.5)?.microseconds == 500_000)
        #expect(EntityTime(unixSeconds: -0.000_001) == nil)
        // 253402300800.0 × 10⁶ is exactly the Double of the latest microsecond; the next Double is past it.
        #expect(EntityTime(unixSeconds: 253_402_300_800.0) != nil)
        #expect(EntityTime(unixSeconds: Double(253_402_300_800).nextUp) == nil)
        #expect(EntityTime(unixSeconds: .infinity) == nil && EntityTime(unixSeconds: .nan) == nil)
    }

    @Test("H-ENT-1: a reply of the wrong type is refused with a sentence naming the type it is")
    func typeNames() {
        let cases: [(JSONValue, String)] = [
            (.null, "null"), (true, "a boolean"), (3, "a number"), (2.5, "a number"), ("x", "a string"),
            ([1], "a list"),
        ]
        for (value, kind) in cases {
            #expect(throws: HomeAssistantReadError("state", "it is \(kind), not an object"), "\(value)") {
                try EntityState(json: value)
            }
        }
        #expect(throws: HomeAssistantReadError("list of states", "it is an object, not a list")) {
            try EntityState.list(["entity_id": "a.b"])
        }
    }

    @Test("H-ENT-1 H-ENT-3: a removed id that is not a string is left out with the sentence naming its type")
    func removedIDSentence() throws {
        let read = try EntitiesEvent.read(try json(#"{"r":["light.c",7,null,"light.d"]}"#))
        #expect(read.value.removed == ["light.c", "light.d"])
        #expect(
            read.problems == [
                "A removed entity was left out: its id is a number, not a string.",
                "A removed entity was left out: its id is null, not a string.",
            ])
    }

    @Test(
        "H-ENT-5: a change's context is an id or a context's fields whose id, if any, is a string; H-ENT-6: removed attributes are names"
    )
    func changeContextShapes() throws {
        let read = try EntitiesEvent.read(
            try json(
                #"""
                {"c":{"light.a":{"+":{"c":{"id":5}}},"light.b":{"+":{"c":{"user_id":"u"}}},"light.c":{"+":{"c":7}},
                      "light.d":{"-":{"a":["x",1]}},"light.e":{"-":{"a":["x"]}},"light.f":{"+":{"c":{"id":"n"}}}}}
                """#))
        #expect(read.value.changed.keys.sorted() == ["light.b", "light.e", "light.f"])
        #expect(read.problems.count == 3)
        #expect(read.value.changed["light.b"]?.context == ["user_id": "u"])
        #expect(read.value.changed["light.e"]?.removedAttributes == ["x"])
        // Applied: an object without an id keeps the id and sets the user; one with an id replaces only the id.
        let entity = EntityState(
            entityID: "light.b", state: "on", lastChanged: EntityTime(microseconds: 0),
            context: EntityContext(id: "old", parentID: "p", userID: nil))
        let changed = try #require(read.value.changed["light.b"]).applied(to: entity)
        #expect(changed.context == EntityContext(id: "old", parentID: "p", userID: "u"))
        let renamed = try #require(read.value.changed["light.f"]).applied(to: changed)
        #expect(renamed.context == EntityContext(id: "n", parentID: "p", userID: "u"))
    }

    @Test("H-ENT-2: a context is stored and read back with Home Assistant's keys id, parent_id and user_id")
    func contextKeys() throws {
        let context = EntityContext(id: "01", parentID: "00", userID: "76dd")
        let encoded = try #require(JSONValue(data: try JSONEncoder().encode(context)))
        #expect(encoded == ["id": "01", "parent_id": "00", "user_id": "76dd"])
        let decoded = try JSONDecoder().decode(
            EntityContext.self, from: Data(#"{"id":"02","parent_id":"01","user_id":"u"}"#.utf8))
        #expect(decoded == EntityContext(id: "02", parentID: "01", userID: "u"))
    }

    @Test(
        "H-ACT-1: the call_service command: one target id as a string, several as a list, data and response only when set"
    )
    func callBodies() {
        let plain = ServiceCall(domain: "light", service: "toggle")
        #expect(plain.returnResponse == false)
        #expect(plain.body == ["type": "call_service", "domain": "light", "service": "toggle"])
        let one = ServiceCall(domain: "light", service: "toggle", entityIDs: ["light.a"])
        #expect(one.body["target"] == ["entity_id": "light.a"])
        let two = ServiceCall(domain: "light", service: "turn_on", entityIDs: ["light.a", "light.b"], data: ["x": 1])
        #expect(
            two.body
                == [
                    "type": "call_service", "domain": "light", "service": "turn_on",
                    "target": ["entity_id": ["light.a", "light.b"]], "service_data": ["x": 1],
                ])
        let asking = ServiceCall(domain: "todo", service: "get_items", returnResponse: true)
        #expect(asking.body["return_response"] == true)
        #expect(ServiceCall("light.toggle")?.returnResponse == false)
    }

    @Test("H-ACT-8: a lock that is open is locked; H-ACT-4: a numeric set_value shows its number")
    func lockOpenAndNumbers() {
        let open = EntityState(
            entityID: "lock.front", state: "open", lastChanged: EntityTime(microseconds: 0),
            context: EntityContext(id: "c"))
        #expect(
            ServiceCall.mainAction(for: open) == ServiceCall(domain: "lock", service: "lock", entityIDs: ["lock.front"])
        )
        let integer = ServiceCall(domain: "input_number", service: "set_value", data: ["value": 21])
        #expect(integer.expectedState(from: "20.0") == "21.0")
        let none = ServiceCall(domain: "input_number", service: "set_value", data: ["other": 21])
        #expect(none.expectedState(from: "20.0") == nil)
    }

    @Test("H-ACT-2: each outcome's sentence and whether it is done")
    func outcomeWords() {
        #expect(CallOutcome.done(contextID: "01", response: nil).description == "done (context 01)")
        #expect(CallOutcome.done(contextID: "01", response: nil).isDone)
        #expect(
            CallOutcome.failed(code: "not_found", message: "Service not found.").description == "Service not found.")
        #expect(!CallOutcome.failed(code: "x", message: "y").isDone)
        #expect(!CallOutcome.unknown("dropped").isDone)
        #expect(
            CallOutcome.notConnected("offline").description == "Not sent: not connected to Home Assistant (offline).")
        #expect(!CallOutcome.notConnected("offline").isDone)
    }

    @Test("H-NOT-2: request_location_update (singular too) is a command; clear_notification without a tag is shown")
    func commandWords() throws {
        let read = { (payload: JSONValue) in PushMessage.read(payload, newID: { "generated" }) }
        #expect(read(["message": "request_location_update"]) == .command(.requestLocationUpdate))
        guard case .show(let shown)? = read(["message": "clear_notification", "data": ["tag": ""]]) else {
            Issue.record("clear_notification without a tag was not shown")
            return
        }
        #expect(shown.body == "clear_notification" && shown.id == "generated")
        #expect(DeliveredNotifications().badge == 0)
        var delivered = DeliveredNotifications()
        delivered.apply(try #require(read(["message": "one"])))
        #expect(delivered.badge == 1)
    }

    @Test(
        "H-NOT-4: a local push is kept exactly 60 s: a remote repeat at 60 s is dropped, and a newer local push keeps it"
    )
    func repeatWindowEdge() {
        let at = Date(timeIntervalSince1970: 1_796_800_000)
        let door: JSONValue = ["message": "door open", "data": ["tag": "door"]]
        var repeats = PushRepeats()
        repeats.receivedLocally(door, at: at)
        #expect(!repeats.showsRemote(door, at: at.addingTimeInterval(60)))
        // Another local push exactly 60 s later leaves the first one in the window.
        repeats.receivedLocally(["message": "window", "data": ["tag": "window"]], at: at.addingTimeInterval(60))
        #expect(!repeats.showsRemote(door, at: at.addingTimeInterval(60)))
        repeats.receivedLocally(["message": "gate", "data": ["tag": "gate"]], at: at.addingTimeInterval(61))
        #expect(repeats.showsRemote(door, at: at.addingTimeInterval(60)))
    }

    @Test(
        "H-AUTH-2: client_id IP hosts as Home Assistant's is_local: loopback, private, link-local and fd00::/8, each range at its edge; with a port, a name"
    )
    func clientIDHosts() {
        for good in [
            "https://172.16.0.1/", "https://172.31.255.255/", "https://127.255.0.1/", "https://10.255.255.255/",
            "https://192.168.0.0/", "https://169.254.0.1/", "https://[::1]/", "http://[::1]:8123/",
            "https://[fd00::1]/",
            "https://[fe80::1]/", "https://[febf::1]/", "https://my-ha.example/", "HTTPS://HA.EXAMPLE/",
            // With a port the host is never read as an IP address (Home Assistant reads `8.8.8.8:8443` whole).
            "https://8.8.8.8:8443/", "https://[2001:db8::1]:8443/",
        ] {
            #expect(throws: Never.self, "\(good)") { try LoginClient(clientID: good, redirectURI: "x://y") }
        }
        for bad in [
            "https://172.15.255.255/", "https://172.32.0.0/", "https://11.0.0.1/", "https://126.0.0.1/",
            "https://192.169.0.1/", "https://191.168.0.1/", "https://169.253.0.1/", "https://170.254.0.1/",
            "https://10.0.0.256/", "https://[2001:db8::1]/", "https://[fc00::1]/", "https://[fec0::1]/",
            "https://[::2]/", "https://ha.example/./x",
        ] {
            #expect(throws: AuthError.signInEnded(.invalidClient, serverSentence: nil), "\(bad)") {
                try LoginClient(clientID: bad, redirectURI: "x://y")
            }
        }
    }

    @Test("H-ADDR-1: an address with only a query is reduced to its root")
    func queryOnly() throws {
        #expect(
            try HomeAssistantAddress.parse("https://ha.example.com/?x=1", policy: .httpsOnly).description
                == "https://ha.example.com")
    }
}

/// The sentences a person reads when a step fails, each exactly (H-MOB-1, H-MOB-8, H-MOB-18, H-CLI-7, H-NET-3).
@Suite struct SentenceTests {
    @Test(
        "H-MOB-1 H-MOB-8 H-MOB-18: every mobile_app failure's sentence, word for word, with the server's own words kept"
    )
    func mobileAppSentences() {
        let cases: [(MobileAppError, String)] = [
            (
                .mobileAppMissing,
                "This Home Assistant does not load mobile_app, so the device cannot register. "
                    + "Add mobile_app (or default_config) to its configuration."
            ),
            (.notRegistered, "This device is not registered with this Home Assistant yet."),
            (.refused(status: 500, what: "register"), "Home Assistant answered register with status 500."),
            (.unreadable("no webhook_id"), "Home Assistant's mobile_app reply could not be read: no webhook_id."),
            (.http(.cancelled), HTTPError.cancelled.description),
            (.signedOut, "This account is signed out, so the device sends nothing to Home Assistant. Sign in again."),
            (
                .registrationUnusable("Home Assistant answered 410: the registration was deleted"),
                "This device's registration with Home Assistant cannot be used (Home Assistant answered 410: the "
                    + "registration was deleted), and registering again did not help. Remove the device in Home "
                    + "Assistant and register again."
            ),
            (
                .serverError(
                    code: "encryption_already_enabled", message: "Encryption already enabled",
                    what: "enable_encryption"),
                "Home Assistant refused enable_encryption: Encryption already enabled (encryption_already_enabled)."
            ),
        ]
        for (error, sentence) in cases {
            #expect(error.description == sentence)
            #expect(error.errorDescription == sentence)
        }
        #expect(!HTTPError.cancelled.description.isEmpty)
        #expect(MobileAppRegistration(webhookID: "w").description == "mobile_app registration")
        #expect(
            MobileAppRegistration(webhookID: "w", secret: String(repeating: "a", count: 64)).description
                == "encrypted mobile_app registration")
    }

    @Test("H-CLI-7: every onboarding failure's sentence, word for word")
    func onboardingSentences() {
        #expect(
            OnboardingError.notLoopback("https://ha.example.org").description
                == "Onboarding is only for a test Home Assistant on this machine; https://ha.example.org is not a "
                + "loopback address. Set up any other server in its own web page.")
        #expect(
            OnboardingError.alreadySetUp(serverSentence: "User step already done").description
                == "This Home Assistant is already set up (User step already done). Sign in with "
                + "`companion homeassistant login`.")
        #expect(
            OnboardingError.refused(step: "core_config", status: 400, serverSentence: "Bad").description
                == "Home Assistant refused the onboarding step core_config with status 400: Bad.")
        #expect(
            OnboardingError.refused(step: "user", status: 500, serverSentence: nil).description
                == "Home Assistant refused the onboarding step user with status 500.")
        let auth = AuthError.signInEnded(.invalidClient, serverSentence: nil)
        #expect(OnboardingError.auth(auth).description == auth.description && !auth.description.isEmpty)
    }

    @Test("H-NET-3: the sentences of an address that is not one and of an http home address")
    func addressSentences() throws {
        let addresses = HomeAddresses(
            signedIn: try ServerAddress(parsing: "https://ha.example.org", policy: .httpsOnly),
            config: ServerConfig(
                version: "2025.4.4", components: [], internalURL: "http://nas.lan:8123", externalURL: "not a url at all"
            ))
        #expect(
            addresses.refusals(under: .httpsOnly).map(\.sentence) == [
                "The home address http://nas.lan:8123 is plain http and is not used: allow plain http for this "
                    + "server's home address (anyone on the home network can then read what is sent), or serve it "
                    + "over https.",
                "The away address \"not a url at all\" is not an http(s) address.",
            ])
    }
}
