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

    /// The program's environment: the temporary home.
    var environment: [String: String] {
        [
            "HOME": home.url.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
    }

    func run(_ arguments: [String]) async throws -> ProgramRun.Result {
        try await ProgramRun.run(program, arguments, environment: environment, input: "")
    }

    /// The requests the second fixture recorded.
    func requests() async throws -> [JSONValue] {
        let url = try #require(URL(string: site + "/_control/requests?prefix=/"))
        let (data, _) = try await URLSession.shared.data(from: url)
        return JSONValue(data: data)?["items"]?.arrayValue ?? []
    }

    /// The value of `companion promptugal schedule <arguments> --team <site> --news <site> --json`, which must
    /// exit 0 and print the documented screen report.
    func schedule(_ arguments: String...) async throws -> JSONValue {
        let words = ["promptugal", "schedule"] + arguments + ["--team", site, "--news", site, "--json"]
        let result = try await run(words)
        #expect(result.status == 0, "\(arguments) exited \(result.status): \(result.errors)")
        let output = result.output
        expectDocumentedShape(output, "promptugal schedule")
        return try #require(JSONValue(data: Data(output.utf8)), "\(output)")
    }

    /// The output of `team <part> --json`, which must exit 0 and have the documented shape of every team report.
    func teamOutput(_ part: String? = nil, offline: Bool = false) async throws -> String {
        var words = ["team"] + (part.map { [$0] } ?? [])
        if offline { words.append("--offline") }
        let result = try await run(["promptugal"] + words + ["--team", site, "--news", site, "--json"])
        #expect(result.status == 0, "\(words) exited \(result.status): \(result.errors)")
        let output = result.output
        expectDocumentedShape(output, "promptugal team")
        return output
    }

    /// The reports of `team <part>` by screen name.
    func rows(_ part: String? = nil, offline: Bool = false) async throws -> [String: JSONValue] {
        let output = try await teamOutput(part, offline: offline)
        let value = try #require(JSONValue(data: Data(output.utf8)), "\(output)")
        var rows: [String: JSONValue] = [:]
        for row in value.arrayValue ?? [] { rows[row["screen"]?.stringValue ?? ""] = row }
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
            #expect(all[name]?["state"] == "content", "\(name): \(all[name] ?? .null)")
        }
        #expect(all["meetings"]?["path"] == "/data/team/briefings.json")
        #expect(all["agents/log"]?["path"] == "/data/agents/everything.json")
        #expect(all["me"]?["value"]?["personId"] == "p-0042")
        #expect(all["places"]?["value"]?["places"]?.arrayValue?.count == 95)
        #expect(all.values.allSatisfy { $0["state"] != "failed" })
    }

    @Test("Issue 34: a pick's `at` in schedule --json is the same instant as the same pick in its document")
    func pickTimeAgreesWithTheDocument() async throws {
        let schedule = try #require(try await self.schedule("--add", "utc-z-middle")["value"])
        let pick = try #require(schedule["picks"]?.arrayValue?.first { $0["id"] == "utc-z-middle" })
        let stored = try #require(schedule["document"]?["picks"]?.arrayValue?.first { $0["id"] == "utc-z-middle" })
        let shown = try Timestamp.parse(try #require(pick["at"]?.stringValue))
        let written = try Timestamp.parse(try #require(stored["at"]?.stringValue))
        #expect(shown == written, "\(pick) \(stored)")
        #expect(pick["at"]?.stringValue?.hasSuffix("000Z") == true)
    }

    @Test("Issue 38 item 9: key set openrouter keeps the key from stdin in a 0600 file; it never reaches a team site")
    func openRouterKeyFromStdin() async throws {
        let key = "sk-or-v1-" + String(repeating: "7e", count: 32)
        let set = try await ProgramRun.run(
            program, ["promptugal", "key", "set", "openrouter", "--json"], environment: environment, input: key + "\n")
        #expect(set.status == 0, "\(set.errors)")
        let stored = set.output
        expectDocumentedShape(stored, "promptugal key")
        #expect(
            JSONValue(data: Data(set.output.utf8)) == [
                "key": "openrouter", "stored": true, "boundTo": "https://openrouter.ai",
            ])
        #expect(!set.output.contains(key) && !set.errors.contains(key))
        let file = home.url.appendingPathComponent(".companion/promptugal/keys/openrouter.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(key))
        // The terminal's next reads carry it nowhere but OpenRouter: the team site never sees it.
        let before = try await requests().count
        let me = try await rows("me")
        #expect(me["me"]?["state"] == "content")
        let seen = try await requests().dropFirst(before)
        #expect(!seen.isEmpty && !seen.contains { $0.jsonString().contains(key) })
        let journal = try String(
            contentsOf: home.url.appendingPathComponent(".companion/journal.jsonl"), encoding: .utf8)
        #expect(!journal.contains(key))
        // Without stdin there is nothing to keep; delete forgets it.
        let empty = try await ProgramRun.run(
            program, ["promptugal", "key", "set", "openrouter"], environment: environment, input: "")
        #expect(empty.status == 2)
        let delete = try await run(["promptugal", "key", "delete", "openrouter"])
        #expect(delete.status == 0 && !FileManager.default.fileExists(atPath: file.path))
        #expect(try await run(["promptugal", "key", "set", "vault"]).status == 2)
    }

    @Test("Issue 38 item 9: the Build panel shows this build's version and the commit of its checkout")
    func buildPanel() async throws {
        let on = try await run(["promptugal", "debug", "--on", "--json"])
        #expect(on.status == 0 && JSONValue(data: Data(on.output.utf8)) == ["debug": true], "\(on.output)")
        let switched = on.output
        expectDocumentedShape(switched, "promptugal debug switch")
        let result = try await run(["promptugal", "debug", "build", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        let panels = result.output
        expectDocumentedShape(panels, "promptugal debug")
        let rows = try #require(JSONValue(data: Data(result.output.utf8))?["panels"]?["build"]?.arrayValue)
        var shown: [String: String] = [:]
        for row in rows { shown[row["title"]?.stringValue ?? ""] = row["detail"]?.stringValue }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let git = try await ChildProcess.run("/usr/bin/env", ["git", "-C", root.path, "rev-parse", "HEAD"])
        let head = git.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(head.count == 40)
        #expect(shown.values.contains(head), "\(shown)")
        #expect(shown.values.contains("1.0.0") && shown.values.contains("debug"), "\(shown)")
    }

    @Test("Issue 38 items 2, 8: team me shows the people and counts; what the third shape could not read is said")
    func peopleAndSkipsInTheTerminal() async throws {
        let me = try #require(try await rows("me")["me"]?["value"])
        #expect(me["peopleCount"] == 6 && me["people"]?.arrayValue?.count == 6)
        #expect(me["people"]?.arrayValue?.first == ["id": "p-0042", "name": "Inês Duarte"])
        #expect(me["counts"] == ["badge": 4, "onlyYou": 1, "decide": 2, "overdue": 1])
        let text = try await run(["promptugal", "team", "me", "--team", site, "--news", site])
        #expect(text.output.contains("badge 4, only you 1, to decide 2, overdue 1, 6 people"), "\(text.output)")
        let third = try TestServers.url("PROMPTUGAL_C_URL").absoluteString
        let centre = try await run(["promptugal", "team", "command-centre", "--team", third, "--news", third])
        #expect(centre.status == 0 && centre.output.contains("9 tasks (3 done)"), "\(centre.output)")
        #expect(centre.output.contains("3 tasks skipped: no text field"), "\(centre.output)")
        let agenda = try await run(["promptugal", "team", "agenda", "--team", third, "--news", third, "--json"])
        let value = try #require(JSONValue(data: Data(agenda.output.utf8))?.arrayValue?.first?["value"])
        #expect(value["skips"] == [["what": "events", "count": 3, "reason": "no slug"]])
        #expect(value["events"]?.arrayValue?.count == 241)
    }

    @Test("P-SCHED-17, P-SCHED-18: schedule shows the picks' start times in Lisbon order")
    func scheduleInLisbonOrder() async throws {
        for event in [
            "https://promptugal.news/events/ai-doom-or-boom/index.html", "utc-z-middle", "lisbon-offset-early",
        ] {
            #expect(try await schedule("--add", event)["value"]?["picks"]?.arrayValue?.isEmpty == false)
        }
        let schedule = try await schedule()
        let picks = schedule["value"]?["picks"]?.arrayValue ?? []
        #expect(picks.map { $0["id"]?.stringValue } == ["lisbon-offset-early", "utc-z-middle", "ai-doom-or-boom"])
        #expect(
            picks.map { $0["lisbon"]?.stringValue } == [
                "2026-11-10 09:30 +00:00", "2026-11-10 09:45 +00:00", "2026-11-10 10:00 +00:00",
            ])
        #expect(picks.first?["start"] == "2026-11-10T09:30:00.000000Z" && schedule["state"] == "content")
        #expect(schedule["screen"] == "schedule" && schedule["reason"] == .null && schedule["age_seconds"] == 0)
    }

    @Test("P-TEAM-7: a garbage feed.xml keeps the last good feed, online and offline")
    func garbageFeedKeepsTheLastGood() async throws {
        let good = try #require(try await rows("news")["feed"])
        #expect(good["state"] == "content" && good["value"]?["format"] == "atom")
        let goodFeed = good.jsonString()
        expectDocumentedShape(goodFeed, "promptugal team feed")
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
        #expect(feed["state"] == "stale" && feed["value"]?["items"]?.arrayValue == items)
        #expect(feed["reason"]?.stringValue?.contains("could not read the news feed") == true)
        #expect(feed["age_seconds"]?.doubleValue.map { $0 >= 0 } == true && feed["fetched_at"] != .null)
        #expect(kept["newsletter"]?["state"] == "content")
        let offline = try #require(try await rows("news", offline: true)["feed"])
        #expect(offline["state"] == "offline")
        #expect(offline["value"]?["items"]?.arrayValue == items)
    }

    @Test("The command centre reads, then works offline from the saved copies")
    func commandCentreOnlineAndOffline() async throws {
        let online = try #require(try await rows("command-centre")["command-centre"])
        #expect(online["state"] == "content" && online["path"] == "/people/p-0042/app/data.json")
        #expect(online["value"]?["tasks"]?.arrayValue?.count == 25 && online["value"]?["today"]?.arrayValue?.count == 8)
        let offline = try #require(try await rows("command-centre", offline: true)["command-centre"])
        #expect(offline["state"] == "offline" && offline["value"] == online["value"])
    }

    @Test("Issue 34: destinations --json prints the documented shape for both widths")
    func destinationsShape() async throws {
        for width in ["--regular", "--compact"] {
            let result = try await run(["promptugal", "destinations", width, "--json"])
            #expect(result.status == 0, "\(result.errors)")
            let layout = result.output
            expectDocumentedShape(layout, "promptugal destinations")
            let value = JSONValue(data: Data(layout.utf8))
            #expect(value?["width"]?.stringValue == String(width.dropFirst(2)), "\(layout)")
        }
    }

    @Test("Issue 34: an agenda that cannot be read leaves the picks shown, stale, with the agenda's sentence")
    func scheduleWithoutAnAgenda() async throws {
        // The news site refuses connections (nothing listens on port 1) and nothing is saved: the agenda failed.
        let refused = "http://127.0.0.1:1"
        let result = try await run(
            ["promptugal", "schedule", "--add", "utc-z-middle", "--team", site, "--news", refused, "--json"])
        let text = try await run(["promptugal", "schedule", "--team", site, "--news", refused])
        #expect(result.status == 0, "\(result.errors)")
        let output = result.output
        expectDocumentedShape(output, "promptugal schedule")
        let report = try #require(JSONValue(data: Data(output.utf8)))
        #expect(report["state"] == "stale" && report["age_seconds"] == 0, "\(report)")
        #expect(report["reason"]?.stringValue?.isEmpty == false)
        #expect(report["value"]?["picks"]?.arrayValue?.map { $0["id"] } == ["utc-z-middle"])
        #expect(report["value"]?["picks"]?.arrayValue?.first?["start"] == nil)
        #expect(text.status == 0 && text.output.contains("(not in the agenda)  utc-z-middle"), "\(text.output)")
        #expect(text.errors.hasPrefix("Not up to date"), "\(text.errors)")
    }

    @Test("Issue 34: team me, places, agenda and command-centre print their documented values in the screen report")
    func teamPartsHaveTheirShapes() async throws {
        let me = try await teamOutput("me")
        expectDocumentedShape(me, "promptugal team me")
        let places = try await teamOutput("places")
        expectDocumentedShape(places, "promptugal team places")
        let agenda = try await teamOutput("agenda")
        expectDocumentedShape(agenda, "promptugal team agenda")
        let centre = try await teamOutput("command-centre")
        expectDocumentedShape(centre, "promptugal team command-centre")
        let report = try #require(JSONValue(data: Data(me.utf8))?.arrayValue?.first)
        #expect(report["screen"] == "me" && report["state"] == "content" && report["path"] == "/me.json", "\(report)")
        #expect(report["reason"] == .null && report["sign_in_required"] == false && report["age_seconds"] == 0)
        // A part that failed is a report too: `failed`, no value, the reason; the command fails only when all did.
        let refused = "http://127.0.0.1:1"
        let failed = try await run(["promptugal", "team", "me", "--team", refused, "--news", refused, "--json"])
        #expect(failed.status == 1, "\(failed.errors)")
        let failedOutput = failed.output
        expectDocumentedShape(failedOutput, "promptugal team")
        let failure = try #require(JSONValue(data: Data(failedOutput.utf8))?.arrayValue?.first)
        #expect(failure["state"] == "failed" && failure["value"] == .null && failure["fetched_at"] == .null)
        #expect(failure["reason"]?.stringValue?.isEmpty == false, "\(failure)")
    }
}
