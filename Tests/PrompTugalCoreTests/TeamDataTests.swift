import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionStore
import Foundation
import Testing

@testable import PrompTugalCore

/// Team data from the stand-in (`PROMPTUGAL_URL`): endpoints, discovery, cache, stale, offline, faults.
/// Serialized: the fault switches are per path on one shared server.
@Suite(.serialized)
struct TeamDataTests {
    static let openRouterKey = KeyTests.openRouterKey

    struct Rig {
        let folder: URL
        let clock: ManualWallClock
        let network: PrompTugalNetwork
        let store: OfflineStore
        let team: TeamData

        init(folder: URL? = nil, bases: TeamDataBases? = nil) throws {
            self.folder = try folder ?? Scratch.folder("team")
            clock = ManualWallClock(Date(timeIntervalSince1970: 1_794_105_900))
            network = PrompTugalNetwork(
                policy: .allowingInsecureLoopback, clock: clock, openRouterKey: { TeamDataTests.openRouterKey })
            store = try Scratch.store(in: self.folder, clock: clock)
            team = TeamData(bases: try bases ?? StandIn.bases(), network: network, store: store)
        }
    }

    @Test("P-TEAM-2, P-TEAM-3, P-TEAM-4, P-OPEN-19: every endpoint; 83 places without coordinates; discovery")
    func everyEndpoint() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        for endpoint in TeamEndpoint.fixed where endpoint != .feed {
            let state = await rig.team.loadJSON(endpoint)
            guard case .content = state else {
                Issue.record("\(endpoint.name): \(TeamData.summary(state))")
                continue
            }
        }
        let feed = await rig.team.load(.feed) { data in String(decoding: data, as: UTF8.self) }
        #expect(feed.value?.hasPrefix("<?xml") == true)
        #expect(TeamEndpoint.places.path == "/api/v1/places.json")
        let places = try #require(await rig.team.places().value?.places)
        #expect(places.count == 83)
        #expect(places.allSatisfy { $0.lat == nil && $0.lon == nil })

        let me = try #require(await rig.team.me().value)
        let centre = try #require(TeamEndpoint.commandCentre(personID: me.personId))
        #expect(centre.path == "/people/p-0042/app/data.json")
        #expect(await rig.team.loadJSON(centre).value?["tasks"]?.arrayValue?.isEmpty == false)
        #expect(TeamEndpoint.commandCentre(personID: "..") == nil && TeamEndpoint.commandCentre(personID: "") == nil)
        #expect(TeamEndpoint.commandCentre(personID: "a/b")?.path == "/people/a%2Fb/app/data.json")

        let discovery = try #require(await rig.team.discovery().value)
        #expect(discovery.meetings.map(\.path) == ["/meetings/index.json"])
        #expect(
            discovery.agents.map(\.path) == [
                "/wakes/index.json", "/reports/index.json", "/pulse/index.json", "/log/index.json",
            ])
        for endpoint in discovery.meetings + discovery.agents {
            #expect(await rig.team.loadJSON(endpoint).value != nil, "\(endpoint.path)")
        }
        let production = TeamDataBases.production
        #expect(TeamEndpoint.me.url(on: production).absoluteString == "https://web-summit.sgit.ai/me.json")
        #expect(
            TeamEndpoint.newsroom.map { $0.url(on: production).absoluteString }
                == [
                    "desks", "stories", "dashboard", "decisions", "status",
                ].map { "https://promptugal.news/api/v1/newsroom/\($0).json" })
        #expect(
            TeamEndpoint.agenda.url(on: production).absoluteString == "https://promptugal.news/api/v1/live/agenda.json")
    }

    @Test("P-TEAM-4: only llms.txt links under /meetings/ and the agent folders, ending in .json, count")
    func discoveryRules() {
        let text = """
            # Site
            - [M](/meetings/2026/index.json): meetings
            - [W](/wakes/today.json)
            - [Elsewhere](https://evil.example/wakes/x.json)
            - [Page](/reports/index.html)
            - [Up](/log/../me.json)
            - [Other](/people/x.json)
            - [P](/pulse/now.json)
            """
        let discovery = TeamDiscovery(llmsTxt: text)
        #expect(discovery.meetings.map(\.path) == ["/meetings/2026/index.json"])
        #expect(discovery.agents.map(\.path) == ["/wakes/today.json", "/pulse/now.json"])
    }

    @Test("P-TEAM-1: every team-data request is a plain GET without Authorization, cookie or any key")
    func noCredentials() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        _ = await rig.team.places()
        _ = await rig.team.me()
        _ = await rig.team.discovery()
        let recorded = try await StandIn.requests(prefix: "/")
        let mine = recorded.filter {
            ["/api/v1/places.json", "/me.json", "/llms.txt"].contains($0["path"]?.stringValue ?? "")
        }
        #expect(mine.count >= 3)
        for request in mine {
            #expect(request["method"] == "GET")
            let headers = request["headers"]?.objectValue ?? [:]
            #expect(!headers.keys.contains { ["authorization", "cookie"].contains($0.lowercased()) })
            #expect(!request.jsonString().contains(Self.openRouterKey))
            #expect(request["body"] == "")
        }
    }

    @Test("P-TEAM-5, P-OPEN-18: a good reply is cached on disk with its fetch time, keyed by its full URL")
    func cachedWithFetchTime() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        guard case .content(_, let fetchedAt) = await rig.team.places() else {
            Issue.record("expected content")
            return
        }
        let key = rig.team.cacheKey(.places)
        #expect(key == "team:" + (try StandIn.url()).absoluteString + "/api/v1/places.json")
        let cached = try #require(try await rig.store.resource(key))
        #expect(cached.fetchedAt == rig.clock.now() && fetchedAt == rig.clock.now())
        #expect(try JSONDecoder().decode(TeamPlaces.self, from: cached.body).places.count == 83)
    }

    @Test("P-TEAM-6: a failed refresh gives the cached copy, stale with its age; nothing cached gives offline")
    func staleAndOffline() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        _ = await rig.team.places()
        rig.clock.advance(by: 720)
        var results: [String] = []
        // A dropped connection is retried once by libcurl on its own, so the drop stays on until cleared.
        for drop in [false, true] {
            if drop {
                try await StandIn.dropReply("/api/v1/places.json", times: nil)
            } else {
                try await StandIn.fail("/api/v1/places.json", status: 503)
            }
            let state = await rig.team.places()
            try await StandIn.clear("/api/v1/places.json")
            #expect(state.value?.places.count == 83 && TeamData.age(state) == 720)
            let problem = TeamData.note(state) ?? ""
            #expect(problem.contains("PrompTugal") && !problem.contains("127.0.0.1"), "\(problem)")
            results.append(TeamData.summary(state))
        }
        // A 503 is a problem of the site (stale); a dropped connection is the network (offline).
        #expect(results == ["stale, 12 min old", "offline, 12 min old"])
        try await StandIn.fail("/me.json", status: 500)
        let empty = try Rig()
        defer { try? FileManager.default.removeItem(at: empty.folder) }
        guard case .failed(let reason, false) = await empty.team.me() else {
            Issue.record("expected the offline error with nothing cached")
            return
        }
        #expect(reason.contains("no saved copy") && reason.contains("500"))
        guard case .failed(let offlineReason, false) = await empty.team.agenda(offline: true) else {
            Issue.record("expected the offline error for an offline read with nothing cached")
            return
        }
        #expect(offlineReason.contains("no saved copy of agenda yet"))
    }

    @Test("P-TEAM-6: after a relaunch with the network down, the cached bodies are still readable")
    func relaunchOffline() async throws {
        let folder = try Scratch.folder("relaunch")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let first = try Rig(folder: folder)
            _ = await first.team.places()
            _ = await first.team.agenda()
        }
        // Relaunch: a new store on the same folder; the site drops the connection (the network is down).
        let relaunched = try Rig(folder: folder)
        relaunched.clock.advance(by: 3_600)
        #expect(await relaunched.team.places(offline: true).value?.places.count == 83)
        try await StandIn.dropReply("/api/v1/live/agenda.json", times: nil)
        let agenda = await relaunched.team.agenda()
        try await StandIn.clear("/api/v1/live/agenda.json")
        #expect(TeamData.summary(agenda) == "offline, 1 h old")
        #expect(agenda.value?.events.count == 241)
    }

    @Test("P-TEAM-7: an undecodable reply is an error; the last good copy stays and is shown stale")
    func undecodableKeepsLastGood() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        _ = await rig.team.places()
        let before = try #require(try await rig.store.resource(rig.team.cacheKey(.places)))
        rig.clock.advance(by: 60)
        try await StandIn.garbage("/api/v1/places.json")
        let state = await rig.team.places()
        guard case .stale(let value, _, let problem?) = state else {
            Issue.record("expected stale, got \(TeamData.summary(state))")
            return
        }
        #expect(value.places.count == 83 && problem.contains("could not read"))
        #expect(try await rig.store.resource(rig.team.cacheKey(.places)) == before)
    }

    @Test("P-OPEN-15: identity.get answers {personId} from me.json, also offline from the saved copy")
    @MainActor
    func identityFromMe() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let store = ScheduleStore(clock: rig.clock)
        let configuration = PrompTugalBridgeConfiguration(version: "1.0")
        let endpoint = configuration.endpoint(
            services: AppBridgeServices(store: store, team: rig.team, planner: { _ in }), journal: Journal())
        let page = BridgeSource(
            isMainFrame: true, frameOrigin: "https://promptugal.news", pageURL: "https://promptugal.news/")
        let online = await endpoint.receive(["id": "1", "op": "identity.get"], from: page)
        #expect(online?.json["result"] == ["personId": "p-0042"])
        try await StandIn.fail("/me.json", status: 503, times: nil)
        let offline = await endpoint.receive(["id": "2", "op": "identity.get"], from: page)
        try await StandIn.clear("/me.json")
        #expect(offline?.json["result"] == ["personId": "p-0042"])
    }

    @Test("P-TEAM-6: a screen model keeps its places on screen through a failed refresh, with their age")
    @MainActor
    func modelKeepsValue() async throws {
        let rig = try Rig()
        defer { try? FileManager.default.removeItem(at: rig.folder) }
        let model = rig.team.placesModel()
        #expect(model.state == .loading)
        await model.load()
        #expect(model.state.value?.places.count == 83)
        rig.clock.advance(by: 90)
        try await StandIn.fail("/api/v1/places.json", status: 502)
        await model.load()
        #expect(model.state.value?.places.count == 83 && TeamData.summary(model.state) == "stale, 1 min old")
    }
}
