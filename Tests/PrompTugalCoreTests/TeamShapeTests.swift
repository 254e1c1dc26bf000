import CompanionCore
import CompanionScreen
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// The team-data parts on the stand-in's third fixture (`PROMPTUGAL_C_URL`), whose shapes neither the client nor
/// these tests were written against; the team's people on all three; the wording that never names a source host.
/// Part of `TeamDataTests` where it switches faults on the first fixture.
struct TeamShapeTests {
    @Test("Issue 38 item 2: the third fixture's me.json: a nested person, counts under another name, the people")
    func thirdMe() async throws {
        let rig = try await Rig.make(bases: try StandInC.bases())
        let me = try #require(await rig.team.me().value)
        #expect(me.personID == "p-0042" && me.name == "Inês Duarte")
        #expect(me.counts == TeamMe.Counts(badge: 4, onlyYou: 1, decide: 2, overdue: 1))
        #expect(me.people.count == 6 && me.peopleCount == 7 && me.people.first?.name == "Inês Duarte")
        #expect(me.skips.map(\.description) == ["1 people skipped: no name"])
    }

    @Test("Issue 38 item 2: the third fixture's places: a list under another name, numeric ids, geo points")
    func thirdPlaces() async throws {
        let rig = try await Rig.make(bases: try StandInC.bases())
        let places = try #require(await rig.team.places().value)
        #expect(places.places.count == 83 && places.located.count == 21)
        #expect(places.places.first?.id == "1" && places.places.first?.name == "Stage 1")
        #expect(places.located.first?.coordinates == TeamPlace.Coordinates(latitude: 38.76, longitude: -9.09))
        #expect(places.skips.map(\.description) == ["2 places skipped: no name"])
    }

    @Test("Issue 38 item 2: the third fixture's agenda: starts found as instants, slugs from the event page")
    func thirdAgenda() async throws {
        let rig = try await Rig.make(bases: try StandInC.bases())
        let agenda = try #require(await rig.team.agenda().value)
        #expect(agenda.events.count == 241 && agenda.starts.count == 241)
        let doom = try #require(agenda.bySlug["ai-doom-or-boom"])
        #expect(doom.title == "AI: doom or boom?")
        #expect(doom.start == (try LisbonTime.instant("2026-11-10T10:00:00Z")))
        #expect(doom.end == (try LisbonTime.instant("2026-11-10T10:30:00Z")))
        #expect(agenda.skips.map(\.description) == ["3 events skipped: no slug"])
    }

    @Test("Issue 38 item 2: the third fixture's command centre: item text by evidence, skips said per list")
    @MainActor
    func thirdCommandCentre() async throws {
        let rig = try await Rig.make(bases: try StandInC.bases())
        let model = CommandCentreModel(team: rig.team)
        await model.load()
        let centre = try #require(model.state.value, "\(model.state)")
        #expect(model.endpoint?.path == "/people/p-0042/app/data.json")
        #expect(centre.tasks.count == 9 && centre.tasks.filter { $0.done == true }.count == 3)
        #expect(centre.decisions.count == 4 && centre.namedForMe.count == 2 && centre.today.count == 5)
        #expect(centre.today.first?.at == "2026-11-10T09:00" && centre.tasks.allSatisfy { !$0.text.isEmpty })
        #expect(centre.skipped == 3 && centre.skips.map(\.description) == ["3 tasks skipped: no text field"])
    }

    @Test("Issue 38 items 2, 8: lenient decoders on hand-written shapes; what cannot be read is counted")
    func lenientShapes() throws {
        func json(_ text: String) throws -> JSONValue { try #require(JSONValue(data: Data(text.utf8))) }
        let me = try TeamMe(json: json(#"{"me": {"personId": "x"}, "summary": {"only_you": 3}, "people": []}"#))
        #expect(me.personID == "x" && me.counts.onlyYou == 3 && me.counts.badge == nil && me.peopleCount == 0)
        let bare = try TeamMe(json: json(#"{"id": "not-the-person", "overdueCount": 2}"#))
        #expect(bare.personID == nil && bare.counts.overdue == 2 && bare.peopleCount == nil)
        let places = try TeamPlaces(
            json: json(#"{"spots": [{"uid": 7, "position": {"latitude": 1.5, "longitude": 2}}, {"lat": 1}]}"#))
        #expect(places.places.map(\.id) == ["7"] && places.located.count == 1 && places.skipped == 1)
        let agenda = try TeamAgenda(
            json: json(
                #"""
                {"list": [{"id": 42, "from": "2026-11-10T11:00", "to": "2026-11-10T12:00"},
                          {"start": "soon", "url": "/events/x/index.html"}, {"note": "no slug"}]}
                """#))
        #expect(agenda.events.map(\.slug) == ["42", "x"] && agenda.skipped == 1)
        #expect(agenda.events.first?.start == (try LisbonTime.instant("2026-11-10T11:00")))
        #expect(agenda.events.first?.end == (try LisbonTime.instant("2026-11-10T12:00")))
        #expect(agenda.events.last?.start == nil, "a start under its known name that is no time is none")
    }
}

extension TeamDataTests {
    // Here, serialized with the suite that counts the first fixture's requests (P-TEAM-1), which this reads too.
    @Test("Issue 38 item 8: me.json's people and their count on every fixture", arguments: [0, 1, 2])
    func people(_ fixture: Int) async throws {
        let bases = try [StandIn.bases(), StandInB.bases(), StandInC.bases()][fixture]
        let me = try #require(await Rig.make(bases: bases).team.me().value)
        #expect(me.people.map(\.id).prefix(3) == ["p-0042", "p-0007", "p-0013"])
        #expect(me.people.count == 6 && me.people.allSatisfy { $0.name?.isEmpty == false })
        #expect(me.peopleCount == (fixture == 2 ? 7 : 6))
        #expect(me.counts.onlyYou == 1)
    }

    @Test("P-TEAM-8: a site's own words naming a source host (an HTML title, a JSON message) are quoted without it")
    func noSourceHostInQuotedWords() async throws {
        let rig = try await Rig.make()
        let address = try StandIn.url()
        let port = try #require(address.port)
        #expect(await rig.team.places().kind == .content)
        try await StandIn.respond(
            "/api/v1/places.json",
            body: "<html><head><title>502 Bad Gateway at web-summit.sgit.ai</title></head><body></body></html>",
            contentType: "text/html", status: 502)
        let page = await rig.team.places().problem ?? ""
        let message = "Upstream https://web-summit.sgit.ai/me.json via 127.0.0.1:\(port) failed (promptugal.news)"
        try await StandIn.respond(
            "/me.json", body: JSONValue.object(["error": ["message": .string(message)]]).jsonString(), status: 503)
        let json = await rig.team.me().problem ?? ""
        #expect(page == "PrompTugal could not refresh places: the site answered 502: 502 Bad Gateway at the site.")
        #expect(json.hasPrefix("PrompTugal could not load me and has no saved copy: the site answered 503: Upstream"))
        for sentence in [page, json] {
            #expect(!ShellTests.namesASource(sentence) && !sentence.contains("promptugal.news"), "\(sentence)")
            #expect(!sentence.contains(String(port)), "\(sentence)")
        }
        // File names stay: they name no host.
        #expect(ReadSentence(sites: try StandIn.bases()).hide("agenda.json is late") == "agenda.json is late")
    }
}

extension TeamShapeTests {
    @Test("Issue 34: a screen's feed observes the site's store: another screen's read of the file shows at once")
    @MainActor
    func screensObserveTheStore() async throws {
        let rig = try await Rig.make(bases: try StandInC.bases())
        let shown = rig.team.placesModel()
        let other = rig.team.placesModel()
        #expect(shown.state == .loading)
        let before = NetworkEntry.entries(in: rig.journal).count
        await other.load()
        #expect(other.state.kind == .content)
        // The first screen never read: the other's read reached it through the store, with no request of its own.
        #expect(await waitUntilObserved(upTo: .seconds(10)) { shown.state.value?.places.count == 83 })
        #expect(shown.state.kind == .content)
        #expect(NetworkEntry.entries(in: rig.journal).count == before + 1)
    }
}
