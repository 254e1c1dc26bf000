import CompanionCore
import Foundation
import HomeAssistantCore
import Testing

/// The compressed `subscribe_entities` format applied as a pure reducer (H-ENT), with HAKit's and the catalog's
/// vectors.
@Suite struct EntityTests {
    func time(_ seconds: Double) throws -> EntityTime { try #require(EntityTime(unixSeconds: seconds)) }

    func event(_ text: String) throws -> EntitiesEvent {
        let read = try EntitiesEvent.read(try json(text))
        #expect(read.problems.isEmpty, "\(read.problems)")
        return read.value
    }

    func set(_ initial: String) throws -> EntitySet {
        var set = EntitySet()
        set.apply(try event(initial), initial: true)
        return set
    }

    static let thermostat = """
        {"a":{"input_number.thermostat":{"s":"20.0","a":{"min":10.0,"max":30.0,"step":0.5,"friendly_name":"Thermostat"},
        "c":"01M96VDW1BAKH32Q4XGHG78Y17","lc":1796600164.395585}}}
        """

    @Test("H-ENT-1: an added entity maps s, a, c and lc, and a missing lu is lc (not now, as HAKit does)")
    func addedEntityMapsFields() throws {
        let entities = try set(Self.thermostat)
        let entity = try #require(entities["input_number.thermostat"])
        #expect(entity.state == "20.0")
        #expect(entity.attributes["friendly_name"] == "Thermostat")
        #expect(entity.attributes["step"] == .number(0.5))
        #expect(entity.lastChanged.description == "2026-12-06T23:36:04.395585Z")
        #expect(entity.lastUpdated == entity.lastChanged)
        #expect(entity.context == EntityContext(id: "01M96VDW1BAKH32Q4XGHG78Y17"))
    }

    @Test("H-ENT-1: HAKit's testProcessUpdatesAddNewEntities — two entities, lu given and lu absent")
    func hakitAddNewEntities() throws {
        let entities = try set(
            """
            {"a":{"person.bruno":{"s":"not_home","a":{"editable":true,"id":"bruno","latitude":51,"longitude":4,
            "gps_accuracy":14,"source":"device_tracker.iphone","user_id":"aaba1f0197f84e68bb39142e2884b652",
            "device_trackers":["device_tracker.iphone_15_pro"],"friendly_name":"Bruno"},
            "c":"01HPKH5TE4HVR88WW6TN43H31X","lc":1707884643.671705,"lu":1707884643.671705},
            "update.home_assistant_supervisor_update":{"s":"off","a":{"auto_update":true,"release_summary":null,
            "friendly_name":"Home Assistant Supervisor Update","supported_features":1},
            "c":"01HPJXQ81Y9P7CFTY7M9807KWZ","lc":1707884643.671705}}}
            """)
        #expect(entities.entities.count == 2)
        let bruno = try #require(entities["person.bruno"])
        #expect(bruno.attributes.count == 9)
        #expect(bruno.attributes["device_trackers"] == ["device_tracker.iphone_15_pro"])
        #expect(bruno.attributes["latitude"] == .integer(51))
        #expect(bruno.context.id == "01HPKH5TE4HVR88WW6TN43H31X")
        #expect(bruno.lastChanged == (try time(1_707_884_643.671705)))
        #expect(bruno.lastUpdated == (try time(1_707_884_643.671705)))
        let update = try #require(entities["update.home_assistant_supervisor_update"])
        #expect(update.attributes["release_summary"] == .null)
        #expect(update.lastUpdated == update.lastChanged)
    }

    @Test("H-ENT-1: HAKit's entity id without a domain is left out with a sentence, the rest is kept")
    func entityWithoutDomainIsLeftOut() throws {
        let read = try EntitiesEvent.read(
            try json(
                """
                {"a":{"wrong_entity_name_without_domain":{"s":"not_home","a":{},"c":"01H","lc":1707884643.671705},
                "light.ok":{"s":"on","c":"01J","lc":1707884643.5}}}
                """))
        #expect(read.value.added.keys.sorted() == ["light.ok"])
        #expect(read.problems.count == 1)
        #expect(read.problems.first?.contains("wrong_entity_name_without_domain") == true)
    }

    @Test("H-ENT-2: c in a is a string (the id, parent and user null) or an object taken whole")
    func addedContextStringOrObject() throws {
        let entities = try set(
            """
            {"a":{"light.a":{"s":"on","c":"01M96VDW","lc":1.5},
                  "light.b":{"s":"on","c":{"id":"01X","parent_id":null,"user_id":"76dd"},"lc":1.5}}}
            """)
        #expect(entities["light.a"]?.context == EntityContext(id: "01M96VDW", parentID: nil, userID: nil))
        #expect(entities["light.b"]?.context == EntityContext(id: "01X", parentID: nil, userID: "76dd"))
    }

    @Test("H-ENT-3: within one event a is applied first, then r, then c (HAKit's combined add, change, remove)")
    func addRemoveChangeOrder() throws {
        var entities = try set(
            """
            {"a":{"light.bedroom":{"s":"on","c":"1","lc":1.0},"sensor.old_temp":{"s":"20","c":"2","lc":1.0}}}
            """)
        let applied = entities.apply(
            try event(
                """
                {"a":{"light.new":{"s":"off","c":"3","lc":2.0}},"r":["sensor.old_temp"],
                 "c":{"light.bedroom":{"+":{"s":"off"}}}}
                """))
        #expect(entities.sorted.map(\.entityID) == ["light.bedroom", "light.new"])
        #expect(entities["light.bedroom"]?.state == "off")
        #expect(applied.added == ["light.new"] && applied.removed == ["sensor.old_temp"])
        #expect(applied.changed == ["light.bedroom"])
        // An entity added and changed in the same event: the change applies to the added entity (a before c).
        entities.apply(
            try event(#"{"c":{"light.late":{"+":{"s":"on"}}},"a":{"light.late":{"s":"off","c":"4","lc":3}}}"#))
        #expect(entities["light.late"]?.state == "on")
        // a before r: an entity both added and removed in one event is gone.
        entities.apply(try event(#"{"r":["light.new"],"a":{"light.new":{"s":"on","c":"5","lc":4}}}"#))
        #expect(entities["light.new"] == nil)
    }

    @Test("H-ENT-4: + sets s, lc sets both times (HAKit leaves last_updated behind), attributes merge, null kept")
    func plusAppliesFieldByField() throws {
        var entities = try set(Self.thermostat)
        entities.apply(try event(#"{"c":{"input_number.thermostat":{"+":{"s":"22.5","lc":1796600166.4081643}}}}"#))
        let entity = try #require(entities["input_number.thermostat"])
        #expect(entity.state == "22.5")
        #expect(entity.lastChanged.description == "2026-12-06T23:36:06.408164Z")
        #expect(entity.lastUpdated == entity.lastChanged)
        #expect(entity.attributes["friendly_name"] == "Thermostat")
    }

    @Test("H-ENT-4: HAKit's color vector — lu moves last_updated only, null values stored, others kept")
    func hakitColorAttributes() throws {
        var entities = try set(
            """
            {"a":{"light.shapes_106e":{"s":"on","a":{"color_mode":"xy","color_temp_kelvin":4000,"color_temp":250,
             "brightness":200},"c":"01KDR8XXD5FQZ6ZS205EQCEWZ0","lc":1767119000.0}}}
            """)
        entities.apply(
            try event(
                """
                {"c":{"light.shapes_106e":{"+":{"lu":1767119976.2438288,"c":"01KDR8XXD5FQZ6ZS205EQCEWZ1","s":"on",
                 "a":{"color_mode":"hs","color_temp_kelvin":null,"color_temp":null,"hs_color":[218,50],
                 "rgb_color":[128,174,255],"xy_color":[0.208,0.22]}}}}}
                """))
        let light = try #require(entities["light.shapes_106e"])
        #expect(light.lastChanged == (try time(1_767_119_000)))
        #expect(light.lastUpdated == (try time(1_767_119_976.2438288)))
        #expect(light.context.id == "01KDR8XXD5FQZ6ZS205EQCEWZ1")
        #expect(light.attributes["color_mode"] == "hs")
        #expect(light.attributes["color_temp_kelvin"] == .null)
        #expect(light.attributes["color_temp"] == .null)
        #expect(light.attributes["hs_color"] == [218, 50])
        #expect(light.attributes["brightness"] == 200)
        #expect(light.attributes.count == 7)
    }

    @Test("H-ENT-4: HAKit's two successive merges keep every attribute neither names")
    func hakitSuccessiveMerges() throws {
        var entities = try set(
            """
            {"a":{"sensor.temperature":{"s":"20.5","a":{"unit_of_measurement":"°C","device_class":"temperature",
             "friendly_name":"Temperature Sensor","min_value":10.0,"max_value":30.0},"c":"01","lc":1767121000}}}
            """)
        entities.apply(
            try event(
                #"{"c":{"sensor.temperature":{"+":{"s":"21.2","lu":1767121353.293047,"c":"02","a":{"last_updated_timestamp":1767121353}}}}}"#
            ))
        entities.apply(
            try event(
                #"{"c":{"sensor.temperature":{"+":{"s":"22.8","lu":1767121453.293047,"c":"03","a":{"battery_level":85}}}}}"#
            ))
        let sensor = try #require(entities["sensor.temperature"])
        #expect(sensor.state == "22.8")
        #expect(sensor.attributes["battery_level"] == 85)
        #expect(sensor.attributes["last_updated_timestamp"] == 1_767_121_353)
        #expect(sensor.attributes["unit_of_measurement"] == "°C")
        #expect(sensor.attributes["min_value"] == .number(10.0) || sensor.attributes["min_value"] == .integer(10))
        #expect(sensor.attributes.count == 7)
        #expect(sensor.lastChanged == (try time(1_767_121_000)))
    }

    @Test("H-ENT-5: a string context replaces only the id; an object merges its keys and keeps the others")
    func contextPatches() throws {
        var entities = try set(#"{"a":{"input_boolean.x":{"s":"off","c":"A","lc":1}}}"#)
        entities.apply(try event(#"{"c":{"input_boolean.x":{"+":{"c":{"user_id":"76dd","id":"B"}}}}}"#))
        #expect(entities["input_boolean.x"]?.context == EntityContext(id: "B", parentID: nil, userID: "76dd"))
        entities.apply(try event(#"{"c":{"input_boolean.x":{"+":{"c":"C"}}}}"#))
        #expect(entities["input_boolean.x"]?.context == EntityContext(id: "C", parentID: nil, userID: "76dd"))
    }

    @Test("H-ENT-6: - removes the listed attribute keys only (HAKit's subtract vectors)")
    func minusRemovesAttributes() throws {
        var entities = try set(
            """
            {"a":{"climate.hall":{"s":"heat","a":{"aux_heat":"on","aux_heat_target":21,"hvac_mode":"heat"},"c":"1","lc":1},
                  "person.bruno":{"s":"home","a":{"editable":true},"c":"2","lc":1}}}
            """)
        entities.apply(
            try event(
                #"{"c":{"climate.hall":{"-":{"a":["aux_heat","aux_heat_target"]}},"person.bruno":{"-":{"a":["editable"]}}}}"#
            ))
        #expect(entities["climate.hall"]?.attributes == ["hvac_mode": "heat"])
        #expect(entities["climate.hall"]?.state == "heat")
        #expect(entities["person.bruno"]?.attributes == [:])
    }

    @Test("H-ENT-7: r removes; a change for an unknown entity is ignored with a sentence, never created")
    func unknownChangeIgnored() throws {
        var entities = try set(Self.thermostat)
        let before = entities
        let applied = entities.apply(try event(#"{"c":{"sensor.ghost":{"+":{"s":"1"}}}}"#))
        #expect(entities == before)
        #expect(applied.ignored == ["A change for sensor.ghost was ignored: no such entity is known."])
        entities.apply(try event(#"{"r":["input_number.thermostat"]}"#))
        #expect(entities.entities.isEmpty)
    }

    @Test("H-ENT-8: the first a of a new subscription replaces the whole set")
    func initialEventReplaces() throws {
        var entities = try set(
            #"{"a":{"light.a":{"s":"on","c":"1","lc":1},"light.b":{"s":"on","c":"1","lc":1},"light.c":{"s":"on","c":"1","lc":1}}}"#
        )
        let again = try event(#"{"a":{"light.a":{"s":"off","c":"2","lc":2},"light.b":{"s":"on","c":"1","lc":1}}}"#)
        var notInitial = entities
        notInitial.apply(again)
        #expect(notInitial.entities.count == 3)
        entities.apply(again, initial: true)
        #expect(entities.sorted.map(\.entityID) == ["light.a", "light.b"])
        #expect(entities["light.a"]?.state == "off")
    }

    @Test("H-ENT-9: lc and lu keep microseconds; the same instant from Unix seconds and from ISO text is equal")
    func microsecondInstants() throws {
        let fromSeconds = try time(1_796_600_165.40005)
        let fromText = try #require(EntityTime(iso: "2026-12-06T23:36:05.400050+00:00"))
        #expect(fromSeconds == fromText)
        #expect(fromSeconds.microseconds == 1_796_600_165_400_050)
        // Rounded to the nearest microsecond, not cut: HAKit's 1767119976.2438288 is …243829.
        #expect((try time(1_767_119_976.2438288)).microseconds == 1_767_119_976_243_829)
        #expect((try time(1_796_600_166.4081643)).description == "2026-12-06T23:36:06.408164Z")
        let state = try EntityState(
            json: try json(
                """
                {"entity_id":"input_number.thermostat","state":"20.0","attributes":{},
                 "last_changed":"2026-12-06T23:36:05.400050+00:00","last_reported":"2026-12-06T23:36:05.400050+00:00",
                 "last_updated":"2026-12-06T23:36:05.400050+00:00","context":{"id":"01","parent_id":null,"user_id":null}}
                """))
        #expect(state.lastChanged == fromSeconds)
        #expect(EntityTime(unixSeconds: .nan) == nil && EntityTime(unixSeconds: -1) == nil)
        #expect(EntityTime(unixSeconds: 1e300) == nil)
    }

    @Test("H-ENT-10: an attribute-only change moves last_updated, and last_changed (since) stays")
    func attributeChangeKeepsSince() throws {
        var entities = try set(#"{"a":{"light.kitchen":{"s":"on","a":{"brightness":200},"c":"1","lc":1796600000}}}"#)
        entities.apply(try event(#"{"c":{"light.kitchen":{"+":{"lu":1796600300,"a":{"brightness":255}}}}}"#))
        let light = try #require(entities["light.kitchen"])
        #expect(light.lastChanged == (try time(1_796_600_000)))
        #expect(light.lastUpdated == (try time(1_796_600_300)))
        #expect(light.attributes["brightness"] == 255)
    }

    @Test("H-ENT-11: the state stays the server's string; unavailable and unknown are their own")
    func statesStayStrings() throws {
        let entities = try set(
            """
            {"a":{"input_number.t":{"s":"20.0","c":"1","lc":1},"light.k":{"s":"unavailable","c":"1","lc":1},
                  "sensor.u":{"s":"unknown","c":"1","lc":1},"switch.off":{"s":"off","c":"1","lc":1}}}
            """)
        #expect(entities["input_number.t"]?.state == "20.0")
        #expect(entities["input_number.t"]?.availability == .available)
        #expect(entities["light.k"]?.availability == .unavailable)
        #expect(entities["sensor.u"]?.availability == .unknown)
        #expect(entities["switch.off"]?.availability == .available)
        let numeric = try EntitiesEvent.read(try json(#"{"a":{"sensor.n":{"s":20.0,"c":"1","lc":1}}}"#))
        #expect(numeric.value.added.isEmpty && numeric.problems.count == 1)
    }

    @Test("H-ENT-1: an event of the wrong outer shape is refused with a sentence; a bad change is left out")
    func malformedEvents() throws {
        #expect(throws: HomeAssistantReadError.self) { try EntitiesEvent.read(try json("[]")) }
        #expect(throws: HomeAssistantReadError.self) { try EntitiesEvent.read(try json(#"{"a":[]}"#)) }
        let read = try EntitiesEvent.read(
            try json(#"{"c":{"light.a":{"+":{"s":1}},"light.b":{"+":{"s":"on"}}},"r":["light.c",7]}"#))
        #expect(read.value.changed.keys.sorted() == ["light.b"])
        #expect(read.value.removed == ["light.c"])
        #expect(read.problems.count == 2)
        #expect(read.problems.contains { $0.contains("change of light.a") })
    }
}
