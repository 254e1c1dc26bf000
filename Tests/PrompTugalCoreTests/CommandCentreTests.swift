import CompanionCore
import CompanionScreen
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// The command centre: part of `TeamDataTests`, which owns the fault switches of `me.json`.
extension TeamDataTests {
    @Test("The command centre: me.json's person id, then /people/<id>/app/data.json", arguments: Fixture.allCases)
    @MainActor
    func commandCentre(_ fixture: Fixture) async throws {
        let rig = try await Rig.make(bases: try fixture.bases())
        let model = CommandCentreModel(team: rig.team)
        await model.load()
        let centre = try #require(model.state.value, "\(model.state)")
        #expect(model.state.kind == .content && model.endpoint?.path == "/people/p-0042/app/data.json")
        #expect(centre.tasks.count == 25 && centre.tasks.filter { $0.done == true }.count == 7)
        #expect(centre.decisions.count == 14 && centre.namedForMe.count == 6 && centre.today.count == 8)
        #expect(centre.skipped == 0 && centre.tasks.allSatisfy { !$0.text.isEmpty })
        // Offline, after a relaunch: me.json and the command centre from the saved copies.
        let relaunched = try await Rig.make(folder: rig.folder, bases: try fixture.bases())
        relaunched.clock.advance(by: 600)
        let offline = CommandCentreModel(team: relaunched.team)
        await offline.load(offline: true)
        #expect(offline.state.kind == .offline && offline.state.value == centre && offline.state.age == 600)
    }

    @Test("P-OPEN-19: an empty, . or .. person id, or none, makes no request; any other id is one path segment")
    @MainActor
    func unsafePersonIDs() async throws {
        for me in [#"{"personId": ""}"#, #"{"personId": "."}"#, #"{"me": {"id": ".."}}"#, #"{"name": "no id"}"#] {
            let rig = try await Rig.make()
            try await StandIn.respond("/me.json", body: me)
            let before = try await StandIn.requests(prefix: "/people/")
            let model = CommandCentreModel(team: rig.team)
            await model.load()
            #expect(try await StandIn.requests(prefix: "/people/", after: before).isEmpty, "\(me)")
            #expect(model.endpoint == nil && model.state.kind == .failed)
            #expect(model.state.problem?.contains("PrompTugal") == true)
            #expect(!NetworkEntry.entries(in: rig.journal).contains { $0.url.contains("/people/") })
        }
        for (id, segment) in [
            ("a/b", "a%2Fb"), ("../x", "..%2Fx"), ("é 1", "%C3%A9%201"), ("p-0042?x#y", "p-0042%3Fx%23y"),
        ] {
            let rig = try await Rig.make()
            try await StandIn.respond("/me.json", body: JSONValue.object(["personId": .string(id)]).jsonString())
            let model = CommandCentreModel(team: rig.team)
            await model.load()
            #expect(model.endpoint?.path == "/people/\(segment)/app/data.json", "\(id)")
            let asked = try #require(NetworkEntry.entries(in: rig.journal).last)
            #expect(asked.url.hasSuffix("/people/\(segment)/app/data.json") && asked.status == 404, "\(asked.url)")
        }
        #expect(TeamEndpoint.commandCentre(personID: "..") == nil && TeamEndpoint.commandCentre(personID: "") == nil)
        #expect(TeamEndpoint.commandCentre(personID: ".") == nil)
    }
}

/// The command centre's decoder on its own: every name of each list, items without text skipped.
struct CommandCentreDecoderTests {
    @Test("The command centre's lists by any of their names; an item needs only its text")
    func shapes() throws {
        let text = """
            {"todo": [{"key": "t1", "text": "Write", "status": "done"}, {"key": "t2", "text": "Read"}, {"key": "t3"}],
             "decide": [{"title": "Which stage?"}], "mentions": [{"body": "You were named"}],
             "agenda": [{"time": "2026-11-10T09:00", "title": "Stand-up"}]}
            """
        let centre = try CommandCentre(json: try #require(JSONValue(data: Data(text.utf8))))
        #expect(centre.tasks.map(\.text) == ["Write", "Read"] && centre.tasks.map(\.done) == [true, nil])
        #expect(centre.decisions.map(\.text) == ["Which stage?"] && centre.namedForMe.map(\.text) == ["You were named"])
        #expect(centre.today.map(\.at) == ["2026-11-10T09:00"] && centre.skipped == 1)
        #expect(throws: TeamDataError.missingList("command centre")) { try CommandCentre(json: ["other": []]) }
        #expect(throws: TeamDataError.notAnObject("command centre")) { try CommandCentre(json: []) }
    }
}
