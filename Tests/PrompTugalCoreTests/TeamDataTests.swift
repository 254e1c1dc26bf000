import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// Team data from the stand-in's two fixtures (`PROMPTUGAL_URL`, `PROMPTUGAL_B_URL`): endpoints, discovery,
/// decoders, cache, stale, offline, faults. Serialized: the fault switches are per path on one shared server.
@Suite(.serialized)
struct TeamDataTests {
    @Test("P-TEAM-2, P-OPEN-19: the production addresses of every fixed file and of the command centre")
    func productionURLs() throws {
        let production = TeamDataBases.production
        func url(_ endpoint: TeamEndpoint?) -> String? { endpoint?.url(on: production).absoluteString }
        #expect(url(.me) == "https://web-summit.sgit.ai/me.json")
        #expect(url(.llmsTxt) == "https://web-summit.sgit.ai/llms.txt")
        #expect(
            url(TeamEndpoint.commandCentre(personID: "p-0042"))
                == "https://web-summit.sgit.ai/people/p-0042/app/data.json")
        #expect(
            TeamEndpoint.newsroom.map { $0.url(on: production).absoluteString }
                == ["desks", "stories", "dashboard", "decisions", "status"].map {
                    "https://promptugal.news/api/v1/newsroom/\($0).json"
                })
        #expect(
            TeamEndpoint.news.map { $0.url(on: production).absoluteString } == [
                "https://promptugal.news/api/v1/newsletter.json", "https://promptugal.news/api/v1/story.json",
                "https://promptugal.news/api/v1/search/docs.json", "https://promptugal.news/feed.xml",
            ])
        #expect(url(.agenda) == "https://promptugal.news/api/v1/live/agenda.json")
        #expect(url(.places) == "https://promptugal.news/api/v1/places.json")
        #expect(Set(TeamEndpoint.fixed.map(\.path)).count == 12)
    }

    @Test("P-TEAM-2: the app reads each fixed file at its path, from its own site", arguments: Fixture.allCases)
    func everyFixedFile(_ fixture: Fixture) async throws {
        // The two sites on two origins: a file asked of the wrong site would be a 404 there.
        let team = try Fixture.first.bases().team
        let rig = try await Rig.make(bases: TeamDataBases(team: team, news: try fixture.bases().news))
        for endpoint in TeamEndpoint.fixed where endpoint != .feed {
            let state = await rig.team.json(endpoint)
            #expect(state.kind == .content, "\(endpoint.name): \(TeamData.summary(state)) \(state.problem ?? "")")
        }
        if fixture == .first {
            // The second fixture's feed.xml belongs to the terminal's tests (PrompTugalCLITests), which switch
            // faults on it.
            #expect(await rig.team.feed().value?.items.isEmpty == false)
        }
        // Each file was asked of its own site: me of the team site, everything else of the news site.
        let asked = NetworkEntry.entries(in: rig.journal).map(\.url)
        let news = try fixture.bases().news.absoluteString
        for endpoint in TeamEndpoint.fixed where fixture == .first || endpoint != .feed {
            let site = endpoint == .me ? team.absoluteString : news
            #expect(asked.contains(site + endpoint.path), "\(endpoint.name) of \(site)")
        }
    }

    @Test("P-TEAM-3: places.json; 83 places without coordinates decode; a null latitude is no coordinate")
    func places() async throws {
        #expect(TeamEndpoint.places.path == "/api/v1/places.json")
        let first = try await Rig.make()
        let places = try #require(await first.team.places().value)
        #expect(places.places.count == 83 && places.located.isEmpty && places.skipped == 0)
        // The second fixture: 95 places under `items`, 12 with numbers for both coordinates, the rest null.
        let second = try await Rig.make(bases: try StandInB.bases())
        let more = try #require(await second.team.places().value)
        #expect(more.places.count == 95 && more.located.count == 12)
        #expect(more.places.allSatisfy { !$0.name.isEmpty && !$0.id.isEmpty })
        let json = try #require(
            JSONValue(data: Data(#"{"places":[{"id":"a","lat":null,"lon":2.5},{"name":"b"}]}"#.utf8)))
        let decoded = try TeamPlaces(json: json)
        #expect(decoded.places.map(\.name) == ["a", "b"] && decoded.located.isEmpty)
    }

    @Test(
        "P-TEAM-4: meetings and agents found by what llms.txt says of them, on either fixture",
        arguments: Fixture.allCases)
    func discovery(_ fixture: Fixture) async throws {
        let rig = try await Rig.make(bases: try fixture.bases())
        let found = try #require(await rig.team.discovery().value)
        #expect(found.missing.isEmpty)
        let counts: [TeamFeedKind: Int] =
            fixture == .first
            ? [.meetings: 1, .wakes: 1, .reports: 1, .pulse: 1, .log: 1]
            : [.meetings: 2, .wakes: 1, .reports: 1, .pulse: 1, .log: 1]
        #expect(Dictionary(grouping: found.found, by: \.kind).mapValues(\.count) == counts)
        for endpoint in found.meetings + found.agents {
            let state = await rig.team.json(endpoint)
            #expect(state.kind == .content, "\(endpoint.path): \(state.problem ?? "")")
        }
        if fixture == .second {
            // Other paths than the human pages' folders; a link to another origin is never followed.
            #expect(found.found.allSatisfy { $0.endpoint.path.hasPrefix("/data/") })
            #expect(!found.found.contains { $0.label == "Mirror" })
        }
    }

    @Test("P-TEAM-4: a link is classified by its label, else its section; another origin, a page or no kind is out")
    func discoveryRules() throws {
        let site = try #require(URL(string: "https://team.example"))
        let address = try #require(URL(string: "https://team.example/llms.txt"))
        let text = """
            # Site
            ## Meetings
            - [This week](/x/2026/w46.json): the week's stand-ups
            - [Wakes](/meetings/not-a-meeting.json): labelled wakes, under Meetings
            ## What the agents are doing
            - [Agent reports](reports-today.json)
            - [Heartbeat / pulse](https://team.example/now.json)
            - [Elsewhere](https://evil.example/log.json)
            - [Log page](/log/index.html)
            - [Activity log](http://team.example/x/log.json)
            - [Login](/login.json)
            - [Port](https://team.example:8443/pulse.json)
            ## People
            - [Me](/wakes/me.json)
            """
        let discovery = TeamDiscovery(llmsTxt: text, address: address, site: site)
        #expect(
            discovery.found.map { "\($0.kind.rawValue) \($0.endpoint.path)" } == [
                "meetings /x/2026/w46.json", "wakes /meetings/not-a-meeting.json", "reports /reports-today.json",
                "pulse /now.json",
            ])
        #expect(discovery.missing == [.log])
        #expect(discovery.note(for: .log)?.contains("lists no log") == true && discovery.note(for: .wakes) == nil)
        // Under a base path, only links below it count.
        let mounted = TeamDiscovery(
            llmsTxt: "## Meetings\n- [M](/team/m.json)\n- [N](/other/n.json)",
            address: try #require(URL(string: "https://team.example/team/llms.txt")),
            site: try #require(URL(string: "https://team.example/team")))
        #expect(mounted.meetings.map(\.path) == ["/m.json"])
    }

    @Test("P-TEAM-4: `Agent logs` names the log as `Activity log` does; an origin's default port written out is it")
    func discoveryPluralLabelAndDefaultPort() throws {
        let text = """
            ## Files
            - [Agent logs](/agents/log.json)
            - [Pulse](http://team.example:80/pulse.json)
            - [Wakes](http://team.example:8080/wakes.json)
            """
        let discovery = TeamDiscovery(
            llmsTxt: text, address: try #require(URL(string: "http://team.example/llms.txt")),
            site: try #require(URL(string: "http://team.example")))
        #expect(
            discovery.found.map { "\($0.kind.rawValue) \($0.endpoint.path)" } == [
                "log /agents/log.json", "pulse /pulse.json",
            ])
    }

    @Test("P-TEAM-4: a kind llms.txt does not list is said in the data's state; the last discovery reads offline")
    func missingKindAndOfflineDiscovery() async throws {
        let rig = try await Rig.make()
        #expect(await rig.team.discovery().value?.missing.isEmpty == true)
        // The site now lists no pulse: the discovery says so, and the other kinds are still read.
        let llms = """
            ## Meetings
            - [Meetings](/meetings/index.json)
            ## Agents
            - [Wakes](/wakes/index.json)
            - [Reports](/reports/index.json)
            - [Log](/log/index.json)
            """
        try await StandIn.respond("/llms.txt", body: llms, contentType: "text/plain")
        rig.clock.advance(by: 60)
        let now = try #require(await rig.team.discovery().value)
        #expect(now.missing == [.pulse] && now.note(for: .pulse)?.contains("PrompTugal") == true)
        #expect(now.agents.count == 3)
        // Offline, with the site gone: the last discovery is the saved llms.txt.
        let relaunched = try await Rig.make(folder: rig.folder)
        let offline = await relaunched.team.discovery(offline: true)
        #expect(offline.kind == .offline && offline.value?.missing == [.pulse])
    }

    @Test("P-TEAM-1: every team-data request is a plain GET without Authorization, cookie or any key")
    func noCredentials() async throws {
        let rig = try await Rig.make()
        let before = try await StandIn.requests(prefix: "/")
        #expect(await rig.team.places().kind == .content)
        #expect(await rig.team.me().kind == .content)
        #expect(await rig.team.discovery().kind == .content)
        let mine = try await StandIn.requests(prefix: "/", after: before).filter {
            ["/api/v1/places.json", "/me.json", "/llms.txt"].contains($0["path"]?.stringValue ?? "")
        }
        #expect(mine.count == 3)
        for request in mine {
            #expect(request["method"] == "GET")
            let headers = request["headers"]?.objectValue ?? [:]
            #expect(!headers.keys.contains { ["authorization", "cookie"].contains($0.lowercased()) })
            #expect(!request.jsonString().contains(KeyTests.openRouterKey))
            #expect(request["body"] == "")
        }
    }

    @Test("P-TEAM-5, P-OPEN-18: a good reply is cached on disk with its fetch time, keyed by its site and path")
    func cachedWithFetchTime() async throws {
        let rig = try await Rig.make()
        guard case .content(_, let fetchedAt) = await rig.team.places() else {
            Issue.record("expected content")
            return
        }
        let store = rig.server.news.store
        #expect(store.scope.serverKey == (try StandIn.url()).absoluteString)
        let key = CachedFetcher.key(for: PrompTugalAPI.places)
        let cached = try #require(try await store.resource(key))
        #expect(cached.fetchedAt == rig.clock.now() && fetchedAt == rig.clock.now())
        #expect(try TeamPlaces(json: try #require(JSONValue(data: cached.body))).places.count == 83)
        // On disk: a new store on the same folder holds the same copy.
        let relaunched = try await Rig.make(folder: rig.folder)
        #expect(try await relaunched.server.news.store.resource(key)?.body == cached.body)
    }

    @Test("P-TEAM-6: a failed refresh gives the cached copy, stale with its age; nothing cached gives offline")
    func staleAndOffline() async throws {
        let rig = try await Rig.make()
        #expect(await rig.team.places().kind == .content)
        rig.clock.advance(by: 720)
        var results: [String] = []
        for drop in [false, true] {
            if drop {
                try await StandIn.dropReply("/api/v1/places.json", times: nil)
            } else {
                try await StandIn.fail("/api/v1/places.json", status: 503)
            }
            let state = await rig.team.places()
            try await StandIn.clear("/api/v1/places.json")
            #expect(state.value?.places.count == 83 && state.age == 720)
            let problem = state.problem ?? ""
            #expect(problem.contains("PrompTugal") && !problem.contains("127.0.0.1"), "\(problem)")
            results.append(TeamData.summary(state))
        }
        // A 503 is a problem of the site (stale); a dropped connection is the network (offline).
        #expect(results == ["stale, 12 min old", "offline, 12 min old"])
        try await StandIn.fail("/me.json", status: 500)
        let empty = try await Rig.make()
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
        let first = try await Rig.make()
        #expect(await first.team.places().kind == .content)
        #expect(await first.team.agenda().kind == .content)
        // Relaunch: new stores on the same folder; the site drops the connection (the network is down).
        let relaunched = try await Rig.make(folder: first.folder)
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
        let rig = try await Rig.make()
        #expect(await rig.team.places().kind == .content)
        let key = CachedFetcher.key(for: PrompTugalAPI.places)
        let before = try #require(try await rig.server.news.store.resource(key))
        rig.clock.advance(by: 60)
        try await StandIn.garbage("/api/v1/places.json")
        let state = await rig.team.places()
        guard case .stale(let value, _, let problem?) = state else {
            Issue.record("expected stale, got \(TeamData.summary(state))")
            return
        }
        #expect(value.places.count == 83 && problem.contains("could not read"))
        #expect(try await rig.server.news.store.resource(key) == before)
    }

    @Test("P-TEAM-7: a garbage feed.xml is an error for the feed only; the last good feed is kept, offline too")
    func garbageFeedKeepsLastGood() async throws {
        let rig = try await Rig.make()
        let good = try #require(await rig.team.feed().value)
        #expect(good.format == .rss && good.items.count == 50 && good.title == "PrompTugal")
        rig.clock.advance(by: 120)
        // 200, a body that is not XML.
        try await StandIn.respond("/feed.xml", body: "\u{1}\u{FF} this is not <xml", contentType: "application/rss+xml")
        let state = await rig.team.feed()
        #expect(state.kind == .stale && state.value == good && state.problem?.contains("news feed") == true)
        #expect(await rig.team.places().kind == .content)
        let offline = await rig.team.feed(offline: true)
        #expect(offline.value == good && offline.age == 120)
    }

    @Test("P-TEAM-7: a part that does not decode leaves the other parts as they are")
    func onePartOnly() async throws {
        let rig = try await Rig.make()
        #expect(await rig.team.agenda().kind == .content)
        rig.clock.advance(by: 30)
        try await StandIn.respond("/api/v1/live/agenda.json", body: #"{"timezone": "Europe/Lisbon"}"#)
        let agenda = await rig.team.agenda()
        #expect(agenda.kind == .stale && agenda.value?.events.count == 241)
        #expect(await rig.team.places().kind == .content)
        #expect(await rig.team.me().kind == .content)
    }

    @Test("P-OPEN-15: identity.get answers {personId} from me.json, also offline from the saved copy")
    @MainActor
    func identityFromMe() async throws {
        let rig = try await Rig.make()
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
        let rig = try await Rig.make()
        let model = rig.team.placesModel()
        #expect(model.state == .loading)
        await model.load()
        #expect(model.state.value?.places.count == 83)
        rig.clock.advance(by: 90)
        try await StandIn.fail("/api/v1/places.json", status: 502)
        await model.load()
        #expect(model.state.value?.places.count == 83 && TeamData.summary(model.state) == "stale, 1 min old")
    }

    @Test("P-TEAM-8: every sentence a team-data screen shows says PrompTugal and never the site's address")
    func productCopyInSentences() async throws {
        let rig = try await Rig.make()
        var sentences: [String] = []
        #expect(await rig.team.places().kind == .content)
        try await StandIn.fail("/api/v1/places.json", status: 503)
        sentences.append(await rig.team.places().problem ?? "")
        try await StandIn.garbage("/api/v1/places.json")
        sentences.append(await rig.team.places().problem ?? "")
        try await StandIn.dropReply("/api/v1/places.json", times: nil)
        sentences.append(await rig.team.places().problem ?? "")
        try await StandIn.clear("/api/v1/places.json")
        try await StandIn.fail("/me.json", status: 500)
        sentences.append(await rig.team.me().problem ?? "")
        sentences.append(await rig.team.agenda(offline: true).problem ?? "")
        sentences.append(await rig.team.places(offline: true).problem ?? "")
        #expect(sentences.count == 6)
        for sentence in sentences { #expect(sentence.contains("PrompTugal"), "\(sentence)") }
        for sentence in sentences { #expect(!ShellTests.namesASource(sentence), "\(sentence)") }
    }

    @Test("The me.json shapes: personId or me.id, counts under counts or badges", arguments: Fixture.allCases)
    func meShapes(_ fixture: Fixture) async throws {
        let rig = try await Rig.make(bases: try fixture.bases())
        let me = try #require(await rig.team.me().value)
        #expect(me.personID == "p-0042" && me.name == "Inês Duarte")
        #expect(me.counts == TeamMe.Counts(badge: 4, onlyYou: 1, decide: 2, overdue: 1))
    }

    @Test("P-TEAM-7: a team file that cannot be used is named, with what is wrong with it")
    func unusableFileSentences() {
        let errors: [TeamDataError] = [
            .notJSON("me"), .notText("llms.txt"), .notAnObject("me"), .missingList("agenda"),
        ]
        #expect(
            errors.map(\.description) == [
                "The me file is not JSON.", "The llms.txt file is not text.", "The me file is not a JSON object.",
                "The agenda file holds no list PrompTugal can read.",
            ])
    }

    @Test("P-TEAM-6: a part's state in a few words for lists and the terminal, a saved copy with its age")
    func stateSummaries() {
        let date = Date(timeIntervalSince1970: 1_794_000_000)
        let states: [ScreenState<Int>] = [
            .loading, .content(1, fetchedAt: date), .empty(0, fetchedAt: date), .stale(1, age: 720, problem: nil),
            .offline(1, age: 3_600, reason: "offline"), .failed(reason: "no copy", signInRequired: false),
        ]
        #expect(
            states.map(TeamData.summary) == [
                "loading", "fresh", "empty", "stale, 12 min old", "offline, 1 h old", "failed",
            ])
    }

    @Test("P-TEAM-4: on an https site, port 443 written out or left out is the site's origin; another port is not")
    func discoveryHTTPSDefaultPort() throws {
        let text = """
            ## Agents
            - [Pulse](https://team.example:443/pulse.json)
            - [Wakes](https://team.example/wakes.json)
            - [Reports](https://team.example:8443/reports.json)
            """
        for site in ["https://team.example", "https://team.example:443"] {
            let discovery = TeamDiscovery(
                llmsTxt: text, address: try #require(URL(string: site + "/llms.txt")),
                site: try #require(URL(string: site)))
            #expect(
                discovery.found.map { "\($0.kind.rawValue) \($0.endpoint.path)" } == [
                    "pulse /pulse.json", "wakes /wakes.json",
                ], "\(site)")
        }
    }
}
