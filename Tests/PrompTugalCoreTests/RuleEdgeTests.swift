import CompanionApp
import CompanionBridge
import CompanionCore
import CompanionHTTP
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// Each rule at its edges, on pure values: the limit and one past it, every layout the strict time reader refuses,
/// every sentence word for word. Written for issue 38's kill-rate gate (docs/reliability.md): each assertion fails
/// for a change a person could not tell from a passing suite before.
struct RuleEdgeTests {
    @Test(
        "P-OPEN-6: the strict shape, each part of `dddd-dd-ddThh:mm:ss[.f{1,9}](Z|±hh:mm)` at its edge",
        arguments: [
            ("2026-11-08T02:45:00Z", true), ("2026-11-08T02:45:00.1Z", true), ("2026-11-08T02:45:00.123456789Z", true),
            ("2026-11-08T02:45:00.1234567890Z", false), ("2026-11-08T02:45:00.Z", false),
            ("2026-11-08T02:45:00+01:00", true), ("2026-11-08T02:45:00-01:00", true),
            ("2026-11-08T02:45:00.5-01:00", true), ("2026-11-08T02:45:00*01:00", false),
            ("2026-11-08T02:45:00+01:00x", false), ("2026-11-08T02:45:00+01:0", false),
            ("2026-11-08T02:45:00+0100", false), ("2026-11-08T02:45:00+01x00", false),
            ("2026-11-08T02:45:00+0a:00", false), ("2026-11-08T02:45:00+01:a0", false),
            ("2026-11-08T02:45:00Zx", false), ("2026-11-08T02:45:00", false), ("2026-11-08T02:45:00.000", false),
            ("2026-11-08T02:45", false), ("2026-11-08 02:45:00Z", false), ("1794105900000", false), ("", false),
        ])
    func strictShape(_ text: String, _ accepted: Bool) {
        #expect(ScheduleTime.hasStrictShape(Array(text.utf8)) == accepted)
    }

    @Test("P-OPEN-6: Unix milliseconds from year 0000 (included) to year 10000 (excluded); the sentence says so")
    func millisecondBounds() throws {
        let first = -62_167_219_200_000.0
        let end = 253_402_300_800_000.0
        #expect(try ScheduleTime.read(milliseconds: first) == Date(timeIntervalSince1970: first / 1_000))
        #expect(throws: ScheduleTime.Problem.outOfRange(String(describing: first - 1))) {
            try ScheduleTime.read(milliseconds: first - 1)
        }
        #expect(try ScheduleTime.read(milliseconds: end - 1) == Date(timeIntervalSince1970: (end - 1) / 1_000))
        #expect(throws: ScheduleTime.Problem.outOfRange(String(describing: end))) {
            try ScheduleTime.read(milliseconds: end)
        }
        #expect(
            ScheduleTime.Problem.outOfRange("1e+300").description
                == "1e+300 is not a time in Unix milliseconds between the years 0000 and 9999.")
        #expect(
            ScheduleTime.Problem.notISO8601("2026-11-08T02:45").description
                == "\"2026-11-08T02:45\" is not an ISO 8601 time with an offset such as 2026-11-08T02:45:00.000Z; "
                + "a pick's time needs Z or ±hh:mm.")
    }

    @Test("P-SCHED-2: an instant past the year 9999 is not written; the refusal names it in milliseconds")
    func writeRefusesTheYear10000() {
        let tooLate = Date(timeIntervalSince1970: 253_402_300_800)
        #expect(throws: ScheduleTime.Problem.outOfRange(String(describing: 253_402_300_800_000.0))) {
            try ScheduleTime.write(tooLate)
        }
        #expect(ScheduleTime.kept(tooLate) == tooLate)
    }

    @Test("P-TEAM-8: a host name is labels of letters, digits and hyphens, a port only of digits")
    func hostNameEdges() {
        for host in ["x.ai", "team.example:8080", "a-b.example", "1.2.3.4", "WEB-SUMMIT.SGIT.AI"] {
            #expect(ReadSentence.isHostName(host), "\(host)")
        }
        for word in [
            "team.example:abc", "team.example:80a", "a..example", ".example", "example.", "café.example", "x.a",
            "agenda.json", "page.HTML", "1.2.3", "1.2.3.4.5", "example", "a.b1",
        ] {
            #expect(!ReadSentence.isHostName(word), "\(word)")
        }
    }

    static let sites = TeamDataBases.production

    static func failure(_ error: any Error, _ key: String? = "GET /api/v1/places.json", keeps: Bool) -> String {
        ReadSentence(sites: sites)(ReadFailure(error, key: key, keepsValue: keeps))
    }

    static func status(_ code: Int) -> HTTPError {
        .status(HTTPError.StatusFailure(method: "GET", url: "https://news.example/x", status: code))
    }

    @Test("P-TEAM-6, P-TEAM-7: each failure said word for word, with and without a saved copy")
    func sentences() {
        #expect(
            Self.failure(Self.status(503), keeps: true) == "PrompTugal could not refresh places: the site answered 503."
        )
        #expect(
            Self.failure(Self.status(404), keeps: false)
                == "PrompTugal could not load places and has no saved copy: the site answered 404.")
        let undecodable = HTTPError.undecodable(
            .init(type: "Places", path: "$", detail: "not JSON", url: "https://news.example/x"))
        #expect(
            Self.failure(undecodable, keeps: true)
                == "PrompTugal could not read the places it received; the last good copy is kept.")
        #expect(
            Self.failure(undecodable, keeps: false)
                == "PrompTugal could not read the places it received and has no saved copy.")
        #expect(
            Self.failure(SyncError.undecodable(key: "k", detail: "x"), keeps: false)
                == "PrompTugal could not read the places it received and has no saved copy.")
        #expect(
            Self.failure(SyncError.notCached(key: "k"), keeps: false)
                == "PrompTugal has no saved copy of places yet; connect once to load it.")
        let store = StoreError.busy(sql: "SELECT 1")
        #expect(
            Self.failure(StoreError.busy(sql: "SELECT 1"), keeps: true)
                == "PrompTugal could not use its saved data: \(ReadSentence(sites: Self.sites).hide(store.description))"
        )
        #expect(
            Self.failure(HTTPError.offline(detail: "down"), keeps: true)
                == "PrompTugal could not refresh places: the connection failed.")
        #expect(
            ReadSentence(sites: Self.sites).reason(Self.status(500)) == "the site answered 500"
                && ReadSentence(sites: Self.sites).reason(undecodable) == "what it sent could not be read")
    }

    @Test("P-TEAM-7: the part a sentence names comes from the read's key, else the key's last path segment")
    func partNames() {
        #expect(ReadSentence.part(nil) == "this part")
        #expect(ReadSentence.part("GET /api/v1/live/agenda.json?x=1") == "agenda")
        #expect(ReadSentence.part("GET " + TeamEndpoint.feed.path) == "news feed")
        #expect(ReadSentence.part("GET " + TeamEndpoint.llmsTxt.path) == "the team index")
        #expect(ReadSentence.part("GET /people/pid-1/app/data.json") == "your command centre")
        #expect(ReadSentence.part("GET /people/pid-1/other.json") == "other.json")
        #expect(ReadSentence.part("GET /x/app/data.json") == "data.json")
        #expect(ReadSentence.part("GET /agents/wakes.json") == "wakes.json")
        #expect(ReadSentence.part("GET /") == "this part")
    }

    @Test("Sentences of the server bundle and of the schedule's storage, word for word")
    func storageSentences() {
        #expect(
            PrompTugalServerError.address("ftp://x", "not http").description
                == "PrompTugal cannot use the address ftp://x: not http")
        #expect(
            PrompTugalServerError.store("disk full").description
                == "PrompTugal could not open its saved data: disk full")
        #expect(
            ScheduleStorageError.store("disk full").description == "The schedule could not be saved or read: disk full")
        #expect(
            ScheduleStorageError.unreadable.description
                == "The saved schedule could not be read; it was left untouched. Pick again or restore a backup.")
    }

    @Test("P-TEAM-4: a link whose path holds a `.` or `..` segment is not the site's file, whatever it resolves to")
    func dotSegmentsAreRefused() throws {
        let site = try #require(URL(string: "https://team.example/team"))
        let address = try #require(URL(string: "https://team.example/team/llms.txt"))
        #expect(
            TeamDiscovery.path(of: "https://team.example/team/pulse.json", address: address, site: site)
                == "/pulse.json")
        for target in [
            "https://team.example/team/../pulse.json", "https://team.example/team/./pulse.json",
            "https://team.example/team/a/../../x/pulse.json", "https://user@team.example/team/pulse.json",
            "https://u:p@team.example/team/pulse.json",
        ] {
            #expect(TeamDiscovery.path(of: target, address: address, site: site) == nil, "\(target)")
        }
    }

    @Test("P-TEAM-4: stand-ups, briefings and heartbeats name their kinds; an agent kind is listed under agents/")
    func kindWords() {
        #expect(TeamFeedKind.named(in: "Daily Stand-ups") == .meetings)
        #expect(TeamFeedKind.named(in: "Morning briefing") == .meetings)
        #expect(TeamFeedKind.named(in: "Heartbeat") == .pulse)
        #expect(TeamFeedKind.named(in: "Wake-ups") == .wakes)
        #expect(TeamFeedKind.named(in: "Logbook") == nil && TeamFeedKind.named(in: "People") == nil)
        #expect(
            TeamFeedKind.allCases.map(\.endpointName) == [
                "meetings", "agents/wakes", "agents/reports", "agents/pulse", "agents/log",
            ])
    }

    @Test("P-KEY-2: deleting a file key removes it; deleting one never saved is no error")
    func fileKeyDelete() throws {
        let temporary = try TemporaryFolder(prefix: "pt-keydel")
        let store = FileKeyStore(folder: temporary.url.appendingPathComponent("state/keys"))
        try store.delete(.openRouter)
        try store.save("sk-or-v1-test", as: .openRouter, protection: .openRouter(biometric: false))
        #expect(try store.load(.openRouter) == "sk-or-v1-test")
        try store.delete(.openRouter)
        #expect(try store.load(.openRouter) == nil)
        #expect(try store.entries().isEmpty)
    }

    @Test("P-VLOG-8, P-DEBUG-4: without a traffic log, Vault traffic shows the journal's vault events, newest first")
    func vaultTrafficFromTheJournal() async {
        let journal = Journal()
        journal.record(.vault, "request bare/refs/a", fields: ["bytes": "69", "durationMs": "3.5", "status": "200"])
        journal.record(.request, "GET https://news.example/x", fields: ["bytesOut": "0"])
        journal.record(.vault, "decrypt obj-b", fields: ["detail": "GCM ok"])
        let sources = DebugSources(
            journal: journal, vaultLog: nil, stores: [], vaultCaches: nil, keyStore: InMemoryKeyStore(),
            build: BuildInfo(version: "1", build: "1", commit: "c"), clock: ManualWallClock())
        #expect(
            await sources.rows(.vaultTraffic) == [
                DebugRow("decrypt obj-b", "0 B, 0 ms, GCM ok"), DebugRow("request bare/refs/a", "69 B, 3.5 ms, 200"),
            ])
    }

    @Test("P-DEBUG-5: a cache folder that does not exist measures nothing")
    func missingFolderMeasuresNothing() throws {
        let temporary = try TemporaryFolder(prefix: "pt-measure")
        let (bytes, newest) = DebugSources.measure(temporary.url.appendingPathComponent("absent"))
        #expect(bytes == 0 && newest == nil)
    }

    @Test("P-OPEN-5: `.` and `..` are not bare ids; a dotted slug is")
    func dotIDs() {
        #expect(EventSlug.normalize(".") == nil && EventSlug.normalize("..") == nil)
        #expect(EventSlug.normalize("a.b") == "a.b" && EventSlug.normalize("events/x/") == "x")
    }

    @Test("P-OPEN-7: Lisbon's offset is +00:00 in winter and +01:00 in summer; its wall time is written whole")
    func lisbonOffsets() throws {
        let winter = try LisbonTime.instant("2026-11-08T10:00")
        let summer = try LisbonTime.instant("2026-07-01T10:00")
        #expect(LisbonTime.offset(at: winter) == "+00:00" && LisbonTime.offset(at: summer) == "+01:00")
        #expect(LisbonTime.wallTime(winter) == "2026-11-08 10:00" && LisbonTime.wallTime(summer) == "2026-07-01 10:00")
    }

    @Test("Issue 38 item 2: an item's time found by evidence is the member that reads as an instant")
    func commandCentreTimeByEvidence() throws {
        let text = #"{"today": [{"what": "Talk", "begins": "2026-11-10T09:00:00Z", "room": "A"}, {"what": "Lunch"}]}"#
        let centre = try CommandCentre(json: try #require(JSONValue(data: Data(text.utf8))))
        #expect(centre.today.map(\.at) == ["2026-11-10T09:00:00Z", nil] && centre.today.map(\.id) == ["0", "1"])
        #expect(centre.skipped == 0 && centre.skips.isEmpty && centre.tasks.isEmpty)
    }

    @Test("Issue 38 item 8: counts are empty only when none is known; each count alone makes them known")
    func countsKnown() {
        #expect(TeamMe.Counts(badge: nil, onlyYou: nil, decide: nil, overdue: nil).isEmpty)
        #expect(!TeamMe.Counts(badge: 1, onlyYou: nil, decide: nil, overdue: nil).isEmpty)
        #expect(!TeamMe.Counts(badge: nil, onlyYou: 0, decide: nil, overdue: nil).isEmpty)
        #expect(!TeamMe.Counts(badge: nil, onlyYou: nil, decide: 2, overdue: nil).isEmpty)
        #expect(!TeamMe.Counts(badge: nil, onlyYou: nil, decide: nil, overdue: 3).isEmpty)
        let made = TeamMe(
            personID: "p", name: nil, counts: TeamMe.Counts(badge: nil, onlyYou: nil, decide: nil, overdue: nil))
        #expect(made.skippedPeople == 0 && made.skips.isEmpty && made.people.isEmpty && made.peopleCount == nil)
    }

    @Test("Issue 38 item 8: people without an id or a name are skipped and counted, one by one")
    func peopleSkipped() throws {
        let text = #"{"personId": "p1", "people": [{"id": "a"}, {"name": "Bea"}, {"role": "x"}, {}]}"#
        let me = try TeamMe(json: try #require(JSONValue(data: Data(text.utf8))))
        #expect(me.people == [TeamMe.Person(id: "a", name: nil), TeamMe.Person(id: "Bea", name: "Bea")])
        #expect(me.skippedPeople == 2)
    }

    @Test("P-OPEN-3: each refusal of a whole schedule said word for word; a version is cut after 20 characters")
    func documentSentences() {
        #expect(ScheduleDocumentError.notJSON.description == "The schedule is not JSON; nothing was changed.")
        #expect(
            ScheduleDocumentError.notADocument.description
                == #"The schedule is not a {"v": 1, "picks": [...]} object; nothing was changed."#)
        #expect(
            ScheduleDocumentError.picksNotAnArray.description
                == "The schedule's picks are not a list; nothing was changed.")
        let twenty = String(repeating: "9", count: 20)
        #expect(
            ScheduleDocumentError.unsupportedVersion(twenty).description
                == "The schedule has version \(twenty); this app reads version 1 only, so nothing was changed.")
        #expect(
            ScheduleDocumentError.unsupportedVersion(twenty + "9").description
                == "The schedule has version \(twenty)…; this app reads version 1 only, so nothing was changed.")
        #expect(ScheduleDocument(picks: [SchedulePick(id: "a", at: Date(timeIntervalSince1970: 0))]).skipped == 0)
    }

    @Test("P-KEY-1, P-SECRET-1, P-KEY-3: each key's kind and protection as the Keys panel says them")
    func keyKindsAndProtections() {
        #expect(
            [StoredKeyName.vaultRead(vaultID: "v1"), .vault(vaultID: "v1"), .openRouter].map(\.kind) == [
                "vault read key", "vault key (read and write)", "OpenRouter key",
            ])
        #expect(KeyProtection.vaultKey == KeyProtection(biometryCurrentSet: true, thisDeviceOnly: true))
        #expect(
            KeyProtection.openRouter(biometric: false) == KeyProtection(biometryCurrentSet: false, thisDeviceOnly: true)
        )
        #expect(
            KeyProtection.openRouter(biometric: true) == KeyProtection(biometryCurrentSet: true, thisDeviceOnly: true))
    }

    @Test("P-KEY-3: the memory key store counts every value read, from none")
    func memoryReadsCounted() throws {
        let store = InMemoryKeyStore()
        #expect(store.valueReads == 0)
        store.save("k", as: .openRouter, protection: .openRouter(biometric: false))
        #expect(try store.load(.openRouter) == "k" && store.valueReads == 1)
        #expect(try store.load(.vault(vaultID: "none")) == nil && store.valueReads == 2)
        #expect(store.entries().map(\.available) == [true] && store.valueReads == 2)
    }

    @Test("Issue 38 item 2, P-SCHED-17: one instant found by evidence is a start, two a start and an end")
    func agendaTimesByEvidence() throws {
        let text = """
            {"events": [{"slug": "a", "when": "2026-11-10T09:00:00Z"},
              {"slug": "b", "t1": "2026-11-10T11:00:00Z", "t0": "2026-11-10T10:00:00Z"},
              {"slug": "a", "start": "2026-11-11T09:00:00Z"}]}
            """
        let agenda = try TeamAgenda(json: try #require(JSONValue(data: Data(text.utf8))))
        let nine = try Timestamp.parse("2026-11-10T09:00:00Z")
        let ten = try Timestamp.parse("2026-11-10T10:00:00Z")
        let eleven = try Timestamp.parse("2026-11-10T11:00:00Z")
        #expect(agenda.events.map(\.start) == [nine, ten, try Timestamp.parse("2026-11-11T09:00:00Z")])
        #expect(agenda.events.map(\.end) == [nil, eleven, nil])
        #expect(agenda.starts == ["a": nine, "b": ten] && agenda.skipped == 0 && agenda.skips.isEmpty)
        #expect(TeamAgenda(events: []).skipped == 0)
    }

    @Test("P-DEBUG-4: a request's address is everything after its method; a reply without a size is 0 B")
    func networkEntryParts() {
        let journal = Journal()
        journal.record(.request, "GET https://news.example/a b", fields: [:])
        journal.record(.response, "GET https://news.example/a b", fields: ["status": "204"])
        let entries = NetworkEntry.entries(in: journal)
        #expect(entries.map(\.method) == ["GET"] && entries.map(\.url) == ["https://news.example/a b"])
        #expect(entries.map(\.bytes) == [0] && entries.map(\.status) == [204] && entries.map(\.failure) == [nil])
    }

    @Test("P-BRIDGE-8: a stored schedule of exactly the envelope's limit is read; one byte more is malformed")
    func storedScheduleAtTheLimit() {
        let head = #"{"v":1,"picks":[],"pad":""#
        let tail = #""}"#
        let fill = BridgeEnvelopeCodec.maximumBytes - head.utf8.count - tail.utf8.count
        let exact = head + String(repeating: "a", count: fill) + tail
        if case .malformed(let reason) = ScheduleSync.interpret(exact) {
            Issue.record("refused at the limit: \(reason)")
        }
        #expect(ScheduleSync.interpret(exact + " ") == .malformed("The stored schedule is not JSON."))
        #expect(ScheduleSync.interpret(nil) == .document(.object(["v": .integer(1), "picks": .array([])])))
        #expect(ScheduleSync.interpret("null") == .document(.object(["v": .integer(1), "picks": .array([])])))
    }

    @Test("P-BRIDGE-2: a page address without an origin is never allowed; the news site is")
    func allowListEdges() throws {
        let configuration = PrompTugalBridgeConfiguration(version: "1.0.0")
        #expect(!configuration.allows(try #require(URL(string: "about:blank"))))
        #expect(configuration.userScripts(for: try #require(URL(string: "about:blank"))).isEmpty)
        #expect(configuration.allows(try #require(URL(string: "https://promptugal.news/events/x/index.html"))))
        #expect(!configuration.allows(try #require(URL(string: "http://promptugal.news/"))))
    }

    @Test("P-TEAM-3: a place needs a name or an id; the others are skipped and counted")
    func placesSkipped() throws {
        let text = #"{"places": [{"name": "Stage A", "lat": 38.77, "lon": -9.09}, {}, {"capacity": 40}, {"id": "p9"}]}"#
        let places = try TeamPlaces(json: try #require(JSONValue(data: Data(text.utf8))))
        #expect(places.places.count == 2 && places.located.count == 1 && places.skipped == 2)
    }

    static func value(_ text: String) throws -> JSONValue { try #require(JSONValue(data: Data(text.utf8))) }

    @Test("Issue 38 item 2: a list found by evidence is a non-empty list of objects, at most two levels down")
    func listByEvidenceEdges() throws {
        let row: JSONValue = .object(["id": .integer(1)])
        #expect(TeamFields.list(try Self.value(#"{"tags": ["a", "b", "c"], "rows": [{"id": 1}]}"#), []) == [row])
        #expect(TeamFields.list(try Self.value(#"{"data": {"rows": [{"id": 1}]}}"#), []) == [row])
        #expect(TeamFields.list(try Self.value(#"{"a": {"b": {"rows": [{"id": 1}]}}}"#), []) == nil)
        #expect(TeamFields.list(try Self.value(#"{"rows": [], "tags": ["a"]}"#), []) == nil)
    }

    @Test("Issue 38 item 2: an instant by evidence is at least 16 characters starting with a digit; a text one letter")
    func instantAndTextEdges() throws {
        let sixteen = "2026-11-10T09:00"
        #expect(TeamFields.instant(.string(sixteen)) == (try LisbonTime.instant(sixteen)))
        #expect(TeamFields.instant(.string("T2026-11-10T09:00")) == nil && TeamFields.instant(.integer(5)) == nil)
        #expect(TeamFields.text(try Self.value(#"{"x": "a", "id": "longer-id"}"#), []) == "a")
        #expect(TeamFields.text(try Self.value(#"{"at": "2026-11-10T09:00", "s": "2026-11-10T09:00"}"#), []) == nil)
        #expect(
            TeamSkip.notes([("tasks", 1), ("places", 0)], reason: "r").map(\.description) == ["1 tasks skipped: r"])
    }
}
