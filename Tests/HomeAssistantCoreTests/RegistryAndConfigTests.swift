import CompanionCore
import Foundation
import HomeAssistantCore
import Testing

/// `get_config`, the three registries and where an entity shows (H-ENT-12..14, H-NET-1's input, H-MOB-1's gate).
@Suite struct RegistryAndConfigTests {
    static let config = """
        {"components":["api","mobile_app","websocket_api"],"location_name":"CI Home","time_zone":"UTC",
         "unit_system":{"length":"km","temperature":"°C"},"version":"2025.4.4","state":"RUNNING",
         "internal_url":"http://127.0.0.1:18123","external_url":null,"latitude":52.3731,"longitude":4.8922}
        """

    @Test("get_config: version, components, the two addresses (external_url null is none) and mobile_app")
    func configReads() throws {
        let read = try ServerConfig.read(try json(Self.config))
        #expect(read.problems.isEmpty)
        let config = read.value
        #expect(config.version == "2025.4.4")
        #expect(config.internalURL == "http://127.0.0.1:18123")
        #expect(config.externalURL == nil)
        #expect(config.hasMobileApp)
        #expect(config.locationName == "CI Home")
        #expect(config.unitSystem["temperature"] == "°C")
    }

    @Test("get_config: a field of another type is left out with a sentence; no version refuses the reply")
    func configLenient() throws {
        let read = try ServerConfig.read(
            try json(#"{"version":"2025.4.4","components":["api",3],"internal_url":12,"external_url":""}"#))
        #expect(read.value.components == ["api"])
        #expect(read.value.internalURL == nil && read.value.externalURL == nil)
        #expect(!read.value.hasMobileApp)
        #expect(read.problems.count == 2)
        #expect(read.problems.contains { $0.contains("internal_url") })
        #expect(throws: HomeAssistantReadError.self) { try ServerConfig.read(try json(#"{"components":[]}"#)) }
        let list = try json("[]")
        do {
            _ = try ServerConfig.read(list)
            Issue.record("a list was read as a configuration")
        } catch {
            #expect(error.description.hasPrefix("Home Assistant's configuration could not be read: it is a list"))
        }
    }

    @Test("H-ENT-13: registry lists are decoded as JSON, the device and entity lists' \"type\": \"result\" included")
    func registriesDecodeAsJSON() throws {
        let frame = try json(
            #"{"id":21,"type": "result","success":true,"result": [{"id":"d1","area_id":"hall","name":"ci phone","name_by_user":null,"manufacturer":"CompanionKit","model":"Linux CI","disabled_by":null}]}"#
        )
        #expect(frame["type"] == "result")
        let devices = try Registries.devices(try #require(frame["result"]))
        #expect(
            devices.value == [
                DeviceEntry(id: "d1", areaID: "hall", name: "ci phone", manufacturer: "CompanionKit", model: "Linux CI")
            ])
        let areas = try Registries.areas(
            try json(
                #"[{"area_id":"porch","name":"Porch","floor_id":null,"icon":null,"aliases":[],"labels":[],"picture":null},{"name":"No id"},7]"#
            ))
        #expect(areas.value == [AreaEntry(id: "porch", name: "Porch")])
        #expect(areas.problems.count == 2)
        let entities = try Registries.entities(
            try json(
                #"[{"entity_id":"binary_sensor.porch_lit","area_id":"porch","device_id":null,"hidden_by":null,"entity_category":null,"disabled_by":null,"name":null,"original_name":"Porch lit","platform":"template","unique_id":"porch_lit"},{"entity_id":"Bad Id"}]"#
            ))
        #expect(entities.value.map(\.entityID) == ["binary_sensor.porch_lit"])
        #expect(entities.value.first?.uniqueID == "porch_lit")
        #expect(
            entities.problems == ["Item 2 of the entity registry: an entity without a valid entity_id was left out."])
        #expect(throws: HomeAssistantReadError.self) { try Registries.areas(try json("{}")) }
    }

    @Test("H-ENT-14: area from the entry, else its device's; hidden and config/diagnostic stay out of area groups")
    func placement() throws {
        let placement = EntityPlacement(
            entities: [
                EntityEntry(entityID: "binary_sensor.porch_lit", areaID: "porch"),
                EntityEntry(entityID: "binary_sensor.ci_phone_charging", deviceID: "phone"),
                EntityEntry(entityID: "sensor.ci_phone_battery_level", deviceID: "phone", entityCategory: "diagnostic"),
                EntityEntry(entityID: "input_boolean.porch_light"),
                EntityEntry(entityID: "light.hidden", areaID: "porch", hiddenBy: "user"),
                EntityEntry(entityID: "switch.own_area", areaID: "kitchen", deviceID: "phone"),
                EntityEntry(entityID: "select.setup", areaID: "porch", entityCategory: "config"),
            ],
            devices: [DeviceEntry(id: "phone", areaID: "hall", name: "ci phone")])
        #expect(placement.areaID(of: "binary_sensor.porch_lit") == "porch")
        #expect(placement.areaID(of: "binary_sensor.ci_phone_charging") == "hall")
        #expect(placement.areaID(of: "switch.own_area") == "kitchen")
        #expect(placement.areaID(of: "input_boolean.porch_light") == nil)
        #expect(placement.areaID(of: "sensor.not_registered") == nil)
        #expect(placement.showsInAreas("binary_sensor.ci_phone_charging"))
        #expect(!placement.showsInAreas("sensor.ci_phone_battery_level"))
        #expect(!placement.showsInAreas("light.hidden"))
        #expect(placement.showsInAreas("input_boolean.porch_light"))
        #expect(!placement.showsInAreas("select.setup"))
        // An entity the registry does not list (a YAML entity without a unique id) shows, in "Unassigned".
        #expect(placement.showsInAreas("sensor.not_registered"))
        let state = EntityState(
            entityID: "input_boolean.porch_light", state: "off", lastChanged: EntityTime(microseconds: 0),
            context: EntityContext(id: "1"))
        #expect(state.domain == "input_boolean")
        #expect(EntityID.domain(of: "sensor.a.b") == "sensor")
    }

    @Test("GET /api/states' list: an unreadable state is left out with its sentence, the others kept")
    func statesList() throws {
        let read = try EntityState.list(
            try json(
                """
                [{"entity_id":"zone.home","state":"0","attributes":{"radius":100},"last_changed":"2026-12-06T23:36:05.400050+00:00",
                  "last_updated":"2026-12-06T23:36:06+00:00","context":{"id":"01","parent_id":null,"user_id":"u"}},
                 {"entity_id":"sensor.x","state":3,"last_changed":"2026-12-06T23:36:05+00:00"},
                 {"entity_id":"sensor.y","state":"1","last_changed":"yesterday"}]
                """))
        #expect(read.value.map(\.entityID) == ["zone.home"])
        #expect(read.value.first?.context.userID == "u")
        #expect(read.value.first?.lastUpdated.description == "2026-12-06T23:36:06.000000Z")
        #expect(read.problems.count == 2)
        #expect(read.problems[0].contains("sensor.x") && read.problems[0].contains("state"))
    }
}
