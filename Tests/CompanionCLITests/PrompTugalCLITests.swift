import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `companion promptugal` on the stand-in's second fixture (`PROMPTUGAL_B_URL`: other paths in `llms.txt`, other
/// field names): the team data with meetings and agents, the schedule in Lisbon order, a garbage `feed.xml` that
/// keeps the last good feed, and the command centre online and offline. Drives the built binary with a temporary
/// home. This suite owns the fault switches of the second fixture's `feed.xml`.
@Suite(.serialized)
struct PrompTugalCLITests {
    let program: URL
    let home: TemporaryFolder
    let site: String

    init() throws {
        program = try ProgramRun.executable("companion")
        home = try TemporaryFolder(prefix: "companion-promptugal")
        site = try TestServers.url("PROMPTUGAL_B_URL").absoluteString
    }

    func run(_ arguments: [String]) async throws -> ProgramRun.Result {
        let environment = [
            "HOME": home.url.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        return try await ProgramRun.run(program, arguments, environment: environment, input: "")
    }

    /// `companion promptugal <arguments> --team <site> --news <site> --json`, which must exit 0; its JSON.
    func json(_ arguments: String...) async throws -> JSONValue {
        let result = try await run(["promptugal"] + arguments + ["--team", site, "--news", site, "--json"])
        #expect(result.status == 0, "\(arguments) exited \(result.status): \(result.errors)")
        return try #require(JSONValue(data: Data(result.output.utf8)), "\(result.output)")
    }

    /// The rows of `team <part>` by endpoint name.
    func rows(_ part: String? = nil, offline: Bool = false) async throws -> [String: JSONValue] {
        var words = ["team"] + (part.map { [$0] } ?? [])
        if offline { words.append("--offline") }
        let result = try await run(["promptugal"] + words + ["--team", site, "--news", site, "--json"])
        #expect(result.status == 0, "\(words) exited \(result.status): \(result.errors)")
        let value = try #require(JSONValue(data: Data(result.output.utf8)), "\(result.output)")
        var rows: [String: JSONValue] = [:]
        for row in value.arrayValue ?? [] { rows[row["endpoint"]?.stringValue ?? ""] = row }
        return rows
    }

    /// Arms `POST /_control/fail` on the second fixture.
    func fail(_ spec: JSONValue) async throws {
        var request = URLRequest(url: try #require(URL(string: site + "/_control/fail")))
        request.httpMethod = "POST"
        request.httpBody = Data(spec.jsonString().utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        #expect(JSONValue(data: data) != nil)
    }

    @Test("P-TEAM-4: team finds the second fixture's meetings and agents through its llms.txt")
    func teamFindsMeetingsAndAgents() async throws {
        let all = try await rows()
        for name in ["meetings", "agents/wakes", "agents/reports", "agents/pulse", "agents/log"] {
            #expect(all[name]?["state"] == "fresh", "\(name): \(all[name] ?? .null)")
        }
        #expect(all["meetings"]?["path"] == "/data/team/briefings.json")
        #expect(all["agents/log"]?["path"] == "/data/agents/everything.json")
        #expect(all["me"]?["value"]?["personId"] == "p-0042")
        #expect(all["places"]?["value"]?["places"]?.arrayValue?.count == 95)
        #expect(all.values.allSatisfy { $0["state"] != "failed" })
    }

    @Test("P-SCHED-17, P-SCHED-18: schedule shows the picks' start times in Lisbon order")
    func scheduleInLisbonOrder() async throws {
        for event in [
            "https://promptugal.news/events/ai-doom-or-boom/index.html", "utc-z-middle", "lisbon-offset-early",
        ] {
            #expect(try await json("schedule", "--add", event)["picks"]?.arrayValue?.isEmpty == false)
        }
        let schedule = try await json("schedule")
        let picks = schedule["picks"]?.arrayValue ?? []
        #expect(picks.map { $0["id"]?.stringValue } == ["lisbon-offset-early", "utc-z-middle", "ai-doom-or-boom"])
        #expect(
            picks.map { $0["lisbon"]?.stringValue } == [
                "2026-11-10 09:30 +00:00", "2026-11-10 09:45 +00:00", "2026-11-10 10:00 +00:00",
            ])
        #expect(picks.first?["start"] == "2026-11-10T09:30:00.000000Z" && schedule["agenda"] == "fresh")
    }

    @Test("P-TEAM-7: a garbage feed.xml keeps the last good feed, online and offline")
    func garbageFeedKeepsTheLastGood() async throws {
        let good = try #require(try await rows("news")["feed"])
        #expect(good["state"] == "fresh" && good["value"]?["format"] == "atom")
        let items = try #require(good["value"]?["items"]?.arrayValue)
        #expect(items.count == 20)
        try await fail([
            "path": "/feed.xml", "status": 200, "body": "\u{1}\u{FF} not a feed <<<",
            "content_type": "application/rss+xml",
            "times": .null,
        ])
        let kept = try await rows("news")
        try await fail(["path": "/feed.xml", "times": 0])
        let feed = try #require(kept["feed"])
        #expect(feed["state"]?.stringValue?.hasPrefix("stale") == true && feed["value"]?["items"]?.arrayValue == items)
        #expect(feed["note"]?.stringValue?.contains("could not read the news feed") == true)
        #expect(kept["newsletter"]?["state"] == "fresh")
        let offline = try #require(try await rows("news", offline: true)["feed"])
        #expect(offline["state"]?.stringValue?.hasPrefix("offline") == true)
        #expect(offline["value"]?["items"]?.arrayValue == items)
    }

    @Test("The command centre reads, then works offline from the saved copies")
    func commandCentreOnlineAndOffline() async throws {
        let online = try #require(try await rows("command-centre")["command-centre"])
        #expect(online["state"] == "fresh" && online["path"] == "/people/p-0042/app/data.json")
        #expect(online["value"]?["tasks"]?.arrayValue?.count == 25 && online["value"]?["today"]?.arrayValue?.count == 8)
        let offline = try #require(try await rows("command-centre", offline: true)["command-centre"])
        #expect(offline["state"]?.stringValue?.hasPrefix("offline") == true && offline["value"] == online["value"])
    }
}
