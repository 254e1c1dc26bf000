import CompanionCore
import Foundation
import FuzzSupport
import HomeAssistantCore

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzHomeAssistantValues_main`): runs libFuzzer's driver.
@_cdecl("FuzzHomeAssistantValues_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// Home Assistant's replies from any bytes: the compressed entities event, states, the configuration and the
/// three registries each read or refused, never a trap; an event applied to a set keeps only valid entity ids.
func check(_ bytes: Data) {
    guard let value = JSONValue(data: bytes) else { return }
    var set = EntitySet()
    if let event = try? EntitiesEvent.read(value) {
        let initial = set.apply(event.value, initial: true)
        require(set.entities.count == event.value.added.count - initial.removed.count, "the initial a is not the set")
        let again = set.apply(event.value)
        require(again.ignored.count + again.changed.count == event.value.changed.count, "a change was lost")
        require(set.entities.keys.allSatisfy(EntityID.isValid), "an invalid entity id was kept")
        for entity in set.entities.values {
            require(entity.lastUpdated >= EntityTime(microseconds: 0), "a time before 1970")
            _ = entity.lastChanged.description
        }
    }
    if let states = try? EntityState.list(value) {
        require(states.value.allSatisfy { EntityID.isValid($0.entityID) }, "a state with an invalid id was read")
    }
    _ = try? ServerConfig.read(value)
    _ = try? Registries.areas(value)
    _ = try? Registries.devices(value)
    if let entries = try? Registries.entities(value) {
        let placement = EntityPlacement(entities: entries.value)
        for entry in entries.value { _ = placement.areaID(of: entry.entityID) }
    }
}
