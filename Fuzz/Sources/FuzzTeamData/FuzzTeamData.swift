import CompanionCore
import Foundation
import FuzzSupport
import PrompTugalCore

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzTeamData_main`): runs libFuzzer's driver.
@_cdecl("FuzzTeamData_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// PrompTugal's team-data parsers, on any bytes: the news feed reader (RSS 2.0 and Atom through Foundation's
/// XMLParser), `llms.txt` discovery, and the decoders of me.json, places, the agenda and the command centre.
func check(_ bytes: Data) {
    checkFeed(bytes)
    checkDiscovery(String(decoding: bytes, as: UTF8.self))
    if let value = JSONValue(data: bytes) { checkJSON(value) }
}

/// A feed either reads or is refused with a short sentence; what reads holds no more items than the body has
/// bytes, and every date it gives is a real instant.
func checkFeed(_ bytes: Data) {
    do throws(FeedError) {
        let feed = try FeedReader.read(bytes)
        require(feed.items.count <= bytes.count, "more items than bytes")
        for item in feed.items {
            if let date = item.date { require(date.timeIntervalSince1970.isFinite, "a date that is not an instant") }
        }
    } catch {
        require(error.description.utf8.count < 400, "an error message that grows with the input")
    }
}

/// Discovery keeps only JSON links on the team site's origin, each classified once.
func checkDiscovery(_ text: String) {
    guard let site = URL(string: "https://team.example"), let address = URL(string: "https://team.example/llms.txt")
    else { return }
    let discovery = TeamDiscovery(llmsTxt: text, address: address, site: site)
    for found in discovery.found {
        let path = found.endpoint.path
        require(path.hasPrefix("/"), "a discovered path that is not on the site: \(path)")
        require(!path.split(separator: "/").contains(".."), "a discovered path that climbs: \(path)")
        require(found.endpoint.url(on: TeamDataBases(both: site)).host == "team.example", "another host: \(path)")
    }
    require(Set(discovery.missing).isDisjoint(with: discovery.found.map(\.kind)), "a kind both found and missing")
}

/// The JSON decoders either read or refuse; what they read keeps their rules.
func checkJSON(_ value: JSONValue) {
    if let agenda = try? TeamAgenda(json: value) {
        for event in agenda.events {
            require(!event.slug.isEmpty && !event.slug.contains("/"), "an agenda slug that is not bare: \(event.slug)")
        }
    }
    if let places = try? TeamPlaces(json: value) {
        require(places.located.allSatisfy { $0.coordinates != nil }, "a located place without coordinates")
    }
    if let me = try? TeamMe(json: value), let id = me.personID, let centre = TeamEndpoint.commandCentre(personID: id) {
        let segments = centre.path.split(separator: "/")
        require(segments.count == 4 && segments[0] == "people", "a person id that is not one segment: \(centre.path)")
        require(segments[1] != ".." && segments[1] != ".", "a person id that climbs: \(centre.path)")
    }
    if let centre = try? CommandCentre(json: value) {
        let items = centre.tasks + centre.decisions + centre.namedForMe + centre.today
        require(items.allSatisfy { !$0.text.isEmpty }, "a command-centre item without text")
    }
}
