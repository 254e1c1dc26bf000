import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Synchronization
import Testing

@testable import PrompTugalCore

/// PrompTugal's bridge configuration, its ops over the real schedule store, and the interim web sync in Node.js.
@MainActor
struct BridgeTests {
    static let t0 = Date(timeIntervalSince1970: 1_794_105_900)
    static let news = URL(string: "https://promptugal.news/agenda") ?? URL(fileURLWithPath: "/")
    static let configuration = PrompTugalBridgeConfiguration(version: "1.4 \"beta\"</script>")

    static func source(_ origin: String, page: String? = nil, mainFrame: Bool = true) -> BridgeSource {
        BridgeSource(isMainFrame: mainFrame, frameOrigin: origin, pageURL: page ?? origin + "/")
    }

    static func services(_ store: ScheduleStore) -> AppBridgeServices {
        AppBridgeServices(store: store, person: { "p-0042" }, planner: { _ in })
    }

    @Test(
        "P-BRIDGE-1, P-BRIDGE-4: pt in its own world; ptApp (version, the five ops) in the page's; DOM events between")
    func contentWorlds() async throws {
        #expect(PrompTugalBridgeConfiguration.handlerName == "pt")
        #expect(PrompTugalBridgeConfiguration.contentWorldName != "page")
        let scripts = Self.configuration.userScripts(for: Self.news)
        #expect(scripts.allSatisfy(\.mainFrameOnly) && Set(scripts.map(\.world)) == [.bridge, .page])
        // Two worlds sharing one DOM, as WebKit's do. Each has its own `window.webkit.messageHandlers`; the `pt`
        // handler is added to the world the configuration names, and each script runs in the world it names.
        let worldOf = { (world: PrompTugalBridgeConfiguration.World) in world == .page ? "page" : "bridge" }
        let install = scripts.map { script in
            "new Function(\"window\", \(JavaScriptLiteralText.quote(script.source)))(worlds.\(worldOf(script.world)));"
        }.joined(separator: "\n")
        let setup = """
            const dom = new EventTarget();
            const world = () => ({ addEventListener: dom.addEventListener.bind(dom),
              dispatchEvent: dom.dispatchEvent.bind(dom), webkit: { messageHandlers: {} },
              location: { origin: "https://promptugal.news" } });
            const worlds = { page: world(), bridge: world() };
            const posted = [];
            worlds.\(worldOf(PrompTugalBridgeConfiguration.handlerWorld)).webkit.messageHandlers.pt =
              { postMessage: (m) => posted.push(m) };
            \(install)
            const page = worlds.page, bridge = worlds.bridge;
            const call = page.ptApp.call("schedule.get");
            """
        let first = try NodeRunner.output(
            setup + """
                let direct = "posted";
                try { page.webkit.messageHandlers.pt.postMessage({ id: "x", op: "schedule.get" }); }
                catch (e) { direct = "refused"; }
                console.log(JSON.stringify({ posted, pageSeesHandler: page.webkit.messageHandlers.pt !== undefined,
                  direct, bridgeHasPtApp: bridge.ptApp !== undefined, version: page.ptApp.version,
                  ops: page.ptApp.ops, frozen: Object.isFrozen(page.ptApp) && Object.isFrozen(page.ptApp.ops) }));
                """)
        let seen = try #require(JSONValue(data: Data(first.utf8)))
        #expect(seen["pageSeesHandler"] == false && seen["direct"] == "refused")
        #expect(seen["bridgeHasPtApp"] == false && seen["frozen"] == true)
        #expect(seen["version"] == "1.4 \"beta\"</script>")
        // P-BRIDGE-4: exactly the five ops.
        #expect(seen["ops"] == .array(PrompTugalBridgeConfiguration.ops.map(JSONValue.string)))
        #expect(
            PrompTugalBridgeConfiguration.ops == [
                "schedule.get", "schedule.set", "identity.get", "notify.plan", "meter.topup",
            ])
        // The page's call reached the handler once, through the relay.
        #expect(seen["posted"]?.arrayValue?.count == 1)
        let message = try #require(seen["posted"]?[0])
        #expect(message == .object(["id": "pt-1", "op": "schedule.get", "args": .null]))

        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("ai-doom-or-boom")
        let endpoint = Self.configuration.endpoint(services: Self.services(store), journal: Journal())
        let reply = try #require(await endpoint.receive(message, from: Self.source("https://promptugal.news")))
        let second = try NodeRunner.output(
            setup + """
                globalThis.location = { origin: "https://promptugal.news" };
                bridge.location = globalThis.location;
                new Function("window", \(JavaScriptLiteralText.quote(Self.configuration.replyScript(reply))))(bridge);
                call.then((result) => console.log(JSON.stringify(result)));
                """)
        #expect(JSONValue(data: Data(second.utf8)) == store.document.json)
    }

    @Test("P-OPEN-12, P-OPEN-11: scripts only for allowed https origins; none anywhere else")
    func scriptsOnlyWhereAllowed() throws {
        #expect(!Self.configuration.userScripts(for: Self.news).isEmpty)
        for other in [
            "http://promptugal.news/", "https://evil.example/", "https://sub.promptugal.news/",
            "https://promptugal.news:8443/", "https://promptugal.news.evil.example/",
        ] {
            #expect(Self.configuration.userScripts(for: try #require(URL(string: other))).isEmpty, "\(other)")
        }
        #expect(Self.configuration.allowList.origins == ["https://promptugal.news"])
    }

    @Test("P-OPEN-12: the scripts on a page of another origin define no window.ptApp and relay nothing")
    func ptAppOnlyOnAllowedOrigins() throws {
        let scripts = Self.configuration.userScripts(for: Self.news)
        for (origin, defined) in [
            ("https://promptugal.news", true), ("https://evil.example", false), ("http://promptugal.news", false),
            ("https://promptugal.news:8443", false), ("null", false),
        ] {
            // Both scripts in one world whose page shows `origin`, as a page that navigated after the check would.
            let install = scripts.map { "new Function(\"window\", \(JavaScriptLiteralText.quote($0.source)))(window);" }
                .joined(separator: "\n")
            let output = try NodeRunner.output(
                """
                const dom = new EventTarget(); const posted = [];
                const window = { addEventListener: dom.addEventListener.bind(dom),
                  dispatchEvent: dom.dispatchEvent.bind(dom), location: { origin: \(JavaScriptLiteralText.quote(origin)) },
                  webkit: { messageHandlers: { pt: { postMessage: (m) => posted.push(m) } } } };
                \(install)
                window.dispatchEvent(new CustomEvent("pt:call", { detail: '{"id":"x","op":"schedule.get"}' }));
                console.log(JSON.stringify({ ptApp: window.ptApp !== undefined, relayed: posted.length }));
                """)
            let seen = try #require(JSONValue(data: Data(output.utf8)))
            #expect(seen["ptApp"] == .bool(defined), "\(origin)")
            #expect(seen["relayed"] == (defined ? 1 : 0), "\(origin)")
        }
        // Without a location at all, nothing is defined either.
        let bare = try NodeRunner.output(
            """
            const window = {};
            new Function("window", \(JavaScriptLiteralText.quote(Self.configuration.pageScript)))(window);
            console.log(JSON.stringify(window.ptApp === undefined));
            """)
        #expect(bare.trimmingCharacters(in: .whitespacesAndNewlines) == "true")
    }

    @Test("P-BRIDGE-2, P-BRIDGE-3, P-BRIDGE-13: other origins run nothing, get no reply, and are logged as rejected")
    func rejectedOrigins() async {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        let journal = Journal()
        let endpoint = Self.configuration.endpoint(services: Self.services(store), journal: journal)
        let set: JSONValue = [
            "id": "1", "op": "schedule.set",
            "args": ["v": 1, "picks": [["id": "x", "at": "2026-11-08T02:45:00.000Z"]]],
        ]
        for source in [
            Self.source("http://promptugal.news"), Self.source("https://promptugal.news.evil.example"),
            Self.source("https://sub.promptugal.news"), Self.source("https://promptugal.news:8443"),
            Self.source("https://promptugal.news", mainFrame: false),
        ] {
            #expect(await endpoint.receive(set, from: source) == nil)
        }
        #expect(store.picks.isEmpty)
        #expect(journal.events.count == 5)
        #expect(journal.events.allSatisfy { $0.kind == .bridge && $0.fields["outcome"] == "rejected" })
        #expect(await endpoint.receive(set, from: Self.source("https://PROMPTUGAL.news:443")) != nil)
        #expect(store.isPicked("x"))
    }

    @Test("P-BRIDGE-5, P-BRIDGE-6, P-BRIDGE-7, P-BRIDGE-13: the ops over the real store; set merges, never replaces")
    func opsOverTheStore() async throws {
        let clock = ManualWallClock(Self.t0)
        let store = ScheduleStore(clock: clock)
        store.toggle("mine")
        store.toggle("gone")
        clock.advance(by: 10)
        store.toggle("gone")
        let journal = Journal()
        let endpoint = Self.configuration.endpoint(services: Self.services(store), journal: journal)
        let page = Self.source("https://promptugal.news")
        let get = await endpoint.receive(["id": "1", "op": "schedule.get"], from: page)
        #expect(get?.json["result"] == store.document.json)
        let set: JSONValue = [
            "id": "2", "op": "schedule.set",
            "args": [
                "v": 1,
                "picks": [
                    ["id": "web", "at": "2026-11-08T02:45:05.000Z"], ["id": "gone", "at": "2026-11-08T02:45:05.000Z"],
                ],
            ],
        ]
        let merged = await endpoint.receive(set, from: page)
        #expect(store.picks.map(\.id).sorted() == ["mine", "web"])  // "gone" was removed later than the web's pick
        #expect(merged?.json["result"] == store.document.json)
        let bad = await endpoint.receive(["id": "3", "op": "schedule.set", "args": ["v": 2]], from: page)
        #expect(bad?.json["error"]?["code"] == "bad_document")
        let unknown = await endpoint.receive(["id": "4", "op": "vault.read"], from: page)
        #expect(unknown?.json["error"]?["code"] == "unknown_op")
        let identity = await endpoint.receive(["id": "5", "op": "identity.get"], from: page)
        #expect(identity?.json["result"] == ["personId": "p-0042"])
        #expect(store.picks.map(\.id).sorted() == ["mine", "web"])
        #expect(journal.events.filter { $0.kind == .bridge }.count == 10)
    }

    @Test("P-BRIDGE-8, P-BRIDGE-9, P-BRIDGE-12, P-BRIDGE-13: read, merge, write back; the page's own listener sees it")
    func interimSync() async throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("from-app")
        let page = NodePage(stored: #"{"v":1,"picks":[{"id":"from-web","at":"2026-11-08T01:00:00.000Z"}]}"#)
        let journal = Journal()
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: journal)
        let outcome = await sync.sync(page: Self.news, scripting: page)
        #expect(outcome == .synced(added: ["from-web"]), "\(outcome)")
        #expect(store.picks.map(\.id).sorted() == ["from-app", "from-web"])
        let written = try ScheduleDocument(data: Data(try #require(page.stored).utf8))
        #expect(Set(written.picks) == Set(store.picks) && written.picks.count == 2)
        #expect(page.seenByPage == [page.stored])
        #expect(journal.events.map { $0.fields["op"] } == ["schedule.read", "schedule.write"])
        #expect(journal.events.allSatisfy { $0.kind == .bridge && $0.fields["origin"] == "https://promptugal.news" })
    }

    @Test("P-BRIDGE-8: an absent value is an empty document; the app's picks are written")
    func absentValue() async throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("from-app")
        let page = NodePage()
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: Journal())
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: []))
        #expect(page.stored == store.document.jsonText)
    }

    @Test("P-OPEN-9: a malformed stored value is reported and not overwritten")
    func malformedNotOverwritten() async {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("from-app")
        let page = NodePage(stored: #"{"v":2,"picks":"the website's newer format"}"#)
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: Journal())
        guard case .malformed = await sync.sync(page: Self.news, scripting: page) else {
            Issue.record("expected malformed")
            return
        }
        #expect(page.stored == #"{"v":2,"picks":"the website's newer format"}"#)
        #expect(page.scriptCount == 1)
    }

    @Test("P-BRIDGE-11: pages not on the allow-list are never read or written")
    func notAllowedNeverTouched() async throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("from-app")
        let page = NodePage(stored: #"{"v":1,"picks":[]}"#)
        let journal = Journal()
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: journal)
        for other in ["https://evil.example/", "http://promptugal.news/", "https://sub.promptugal.news/"] {
            #expect(await sync.sync(page: try #require(URL(string: other)), scripting: page) == .notAllowed)
        }
        #expect(page.scriptCount == 0 && page.stored == #"{"v":1,"picks":[]}"#)
        #expect(journal.events.allSatisfy { $0.fields["outcome"] == "rejected" })
    }

    @Test("P-BRIDGE-11: each script checks location.origin when it runs; a page that navigated away gets nothing")
    func everyScriptChecksTheOrigin() async throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("from-app")
        let evil = "https://evil.example"
        let theirs = #"{"v":1,"picks":[{"id":"evil-pick","at":"2026-11-08T01:00:00.000Z"}]}"#
        // The page was allowed when the sync began; by the time the read runs it shows another origin.
        let page = NodePage(stored: #"{"v":1,"picks":[]}"#)
        page.navigate(to: evil, storing: theirs)
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: Journal())
        guard case .failed = await sync.sync(page: Self.news, scripting: page) else {
            Issue.record("the read ran on another origin")
            return
        }
        #expect(!store.isPicked("evil-pick") && page.stored(at: evil) == theirs)
        // Each script on its own, on the other origin: the sync stores nothing, the reply dispatches nothing.
        let origins = Self.configuration.allowList.origins
        await #expect(throws: NodePage.ScriptError.self) {
            _ = try await page.evaluate(
                ScheduleSync.syncScript(picks: store.document, removals: [:], allowed: origins))
        }
        #expect(page.stored(at: evil) == theirs && page.seenByPage.isEmpty)
        #expect(page.state.withLock { $0.storages[evil]?[ScheduleSync.seenKey] } == nil)
        let reply = BridgeReply(id: "1", outcome: .success(store.document.json))
        await #expect(throws: NodePage.ScriptError.self) {
            _ = try await page.evaluate(Self.configuration.replyScript(reply))
        }
        // Back on the allowed origin, the same scripts run.
        page.navigate(to: "https://promptugal.news")
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: []))
        #expect(page.stored == store.document.jsonText)
    }

    @Test(
        """
        Issue 38 item 1: one script call per sync keeps every member and entry the app does not own, never re-adds \
        a pick the page removed after the app's last write, and keeps a pick the page made meanwhile
        """)
    func syncKeepsThePagesValue() async throws {
        let clock = ManualWallClock(Self.t0)
        let store = ScheduleStore(clock: clock)
        store.toggle("app-old")
        // The website's value: members the app does not know (its own removal records among them), an entry with
        // an extra field, and two entries the strict reader skips.
        let page = NodePage(
            stored: """
                {"v":1,"picks":[{"id":"web-1","at":"2026-11-08T01:00:00.000Z","note":"kept"},\
                {"id":42,"at":"2026-11-08T01:00:00.000Z"},{"id":"bad-time","at":"yesterday"}],\
                "removed":[{"id":"old-talk","at":"2026-11-07T00:00:00.000Z"}],"updatedAt":1794100000000}
                """)
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: Journal())
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: ["web-1"]))
        #expect(page.scriptCount == 1)
        let first = try #require(JSONValue(data: Data((page.stored ?? "").utf8)))
        #expect(first["removed"] == [["id": "old-talk", "at": "2026-11-07T00:00:00.000Z"]])
        #expect(first["updatedAt"] == 1_794_100_000_000)
        #expect(
            first["picks"]?.arrayValue?.prefix(3) == [
                ["id": "web-1", "at": "2026-11-08T01:00:00.000Z", "note": "kept"],
                ["id": 42, "at": "2026-11-08T01:00:00.000Z"], ["id": "bad-time", "at": "yesterday"],
            ])
        #expect(first["picks"]?[3] == ["id": "app-old", "at": "2026-11-08T02:45:00.000Z"])
        #expect(store.picks.map(\.id).sorted() == ["app-old", "web-1"])

        // On the website the person removes `app-old` (the site records it its own way) and picks `web-2`; in the
        // app, a minute later, they pick `app-new`.
        _ = try await page.evaluate(
            """
            (function () {
              var value = JSON.parse(localStorage.getItem("nr.schedule.v1"));
              value.picks = value.picks.filter(function (p) { return p.id !== "app-old"; });
              value.picks.push({ id: "web-2", at: "2026-11-08T03:00:00.000Z" });
              value.removed.push({ id: "app-old", at: "2026-11-08T03:00:00.000Z" });
              localStorage.setItem("nr.schedule.v1", JSON.stringify(value));
              return null;
            })();
            """)
        clock.advance(by: 60)
        store.toggle("app-new")
        let before = page.scriptCount
        #expect(
            await sync.sync(page: Self.news, scripting: page)
                == .synced(added: ["web-2"], removedOnPage: ["app-old"]))
        #expect(page.scriptCount == before + 1)
        let second = try #require(JSONValue(data: Data((page.stored ?? "").utf8)))
        #expect(
            second["removed"] == [
                ["id": "old-talk", "at": "2026-11-07T00:00:00.000Z"],
                ["id": "app-old", "at": "2026-11-08T03:00:00.000Z"],
            ])
        #expect(second["updatedAt"] == 1_794_100_000_000)
        let ids = (second["picks"]?.arrayValue ?? []).map { $0["id"] ?? .null }
        #expect(ids == ["web-1", 42, "bad-time", "web-2", "app-new"])
        #expect(!store.isPicked("app-old") && store.removedAt("app-old") == clock.now())
        #expect(store.picks.map(\.id).sorted() == ["app-new", "web-1", "web-2"])

        // A later sync does not bring it back; picking it again in the app does.
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: []))
        let storedPicks = { JSONValue(data: Data((page.stored ?? "").utf8))?["picks"]?.arrayValue ?? [] }
        #expect(!storedPicks().contains { $0["id"] == "app-old" })
        clock.advance(by: 60)
        store.toggle("app-old")
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: []))
        #expect(storedPicks().contains { $0["id"] == "app-old" })
        // An app removal later than the page's pick drops that entry only.
        store.toggle("web-1")
        #expect(await sync.sync(page: Self.news, scripting: page) == .synced(added: []))
        let last = try #require(JSONValue(data: Data((page.stored ?? "").utf8)))
        #expect(!(last["picks"]?.arrayValue ?? []).contains { $0["id"] == "web-1" })
        #expect((last["picks"]?.arrayValue ?? []).contains { $0["id"] == 42 } && last["updatedAt"] != nil)
    }

    @Test("P-BRIDGE-10: ids with quotes, backslashes, </script>, U+2028 and U+2029 survive the sync both ways")
    func nastyIDs() async throws {
        let nasty = "a\"b'c\\d<script>\u{2028}\u{2029}e"
        let closing = "x</script><script>alert(1)"
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        #expect(store.toggle(nasty) == nasty)
        // An id holding `/` is a path, not a slug: the store never takes it (P-SCHED-6).
        #expect(store.toggle(closing) == nil && !store.isPicked(closing))
        let page = NodePage()
        let sync = WebScheduleSync(store: store, configuration: Self.configuration, journal: Journal())
        let outcome = await sync.sync(page: Self.news, scripting: page)
        #expect(outcome == .synced(added: []), "\(outcome)")
        #expect(JSONValue(data: Data((page.stored ?? "").utf8)) == store.document.json)
        let back = ScheduleStore(clock: ManualWallClock(Self.t0))
        #expect(
            await WebScheduleSync(store: back, configuration: Self.configuration, journal: Journal())
                .sync(page: Self.news, scripting: page) == .synced(added: [nasty]))
        #expect(back.picks.map(\.id) == [nasty])
        // The script layer on its own: a stored document holding `</script>` is read and kept unchanged.
        let origins = Self.configuration.allowList.origins
        let raw: JSONValue = ["v": 1, "picks": [["id": .string(closing), "at": "2026-11-08T02:45:00.000Z"]]]
        page.navigate(to: "https://promptugal.news", storing: raw.jsonString())
        let result = try await page.evaluate(ScheduleSync.syncScript(picks: .empty, removals: [:], allowed: origins))
        let read = JSONValue(data: Data((result ?? "").utf8))?["stored"]?.stringValue
        #expect(JSONValue(data: Data((read ?? "").utf8)) == raw)
        #expect(JSONValue(data: Data((page.stored ?? "").utf8)) == raw)
    }

    @Test("P-BRIDGE-14: no op reply carries a key, whatever op is called, with the app's keys in use and in the args")
    func noKeysInReplies() async throws {
        let fixture = try VaultTests.Fixture()
        // The app's keys are in use: the vault is pulled with FX's key, the OpenRouter key is stored.
        let vault = try await VaultTests.VaultRig.make()
        try await vault.session.importKey(fixture.readKeyString, server: try StandIn.url())
        vault.keys.save(KeyTests.openRouterKey, as: .openRouter, protection: .openRouter(biometric: false))
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("a")
        let journal = vault.journal
        let endpoint = Self.configuration.endpoint(
            services: Self.services(store), journal: journal)
        var texts: [String] = []
        let secrets = [KeyTests.openRouterKey, fixture.readKeyString, fixture.readKeyHex, fixture.vaultKey]
        for op in PrompTugalBridgeConfiguration.ops + ["keys.get", "vault.key"] {
            // A page asking with keys in its arguments, in every field an op does not keep.
            let args: JSONValue = [
                "key": .string(KeyTests.openRouterKey), "readKey": .string(fixture.readKeyString),
                "vaultKey": .string(fixture.vaultKey), "v": 1, "picks": [], "id": "n1", "title": "T",
                "at": "2026-11-08T10:00:00Z",
            ]
            let body: JSONValue = ["id": "x", "op": .string(op), "args": args]
            if let reply = await endpoint.receive(body, from: Self.source("https://promptugal.news")) {
                texts.append(reply.json.jsonString())
                texts.append(Self.configuration.replyScript(reply))
            }
        }
        texts += journal.events.map { $0.message + $0.fields.description }
        #expect(texts.count > 14 && texts.contains { $0.contains("unknown_op") })
        #expect(SecretScan.leaks(in: texts, secrets: secrets).isEmpty)
    }
}
