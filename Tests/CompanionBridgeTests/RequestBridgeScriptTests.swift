import CompanionBridge
import CompanionCore
import CompanionTestSupport
import Foundation
import Testing

/// The generic page script of a `request`-dialect bridge, run in Node.js, with names a made-up app registers.
struct RequestBridgeScriptTests {
    @Test("The global is frozen, lists the ops, posts {id, op, args} and settles on the app's replies")
    func callAndReply() throws {
        let script = RequestBridgeScript.bootstrap(
            global: "demoApp", handlerName: "demo", displayName: "Demo", version: "2 \"x\"</script>",
            ops: ["a.get", "b.set"])
        let success = RequestBridgeScript.reply(
            global: "demoApp", BridgeReply(id: .string("demo-1"), outcome: .success(.integer(7))))
        let failure = RequestBridgeScript.reply(
            global: "demoApp",
            BridgeReply(id: .string("demo-2"), outcome: .failure(BridgeOpError(code: "bad_args", message: "no"))))
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: ["demo"]) + script + """
                const out = { version: window.demoApp.version, ops: window.demoApp.ops,
                  frozen: Object.isFrozen(window.demoApp) };
                window.demoApp = null;
                window.demoApp.call("a.get").then((r) => { out.ok = r; });
                window.demoApp.call("b.set", { x: 1 }).catch((e) => { out.error = [e.code, e.message]; });
                \(success)
                \(failure)
                setImmediate(() => { out.posted = posted; console.log(JSON.stringify(out)); });
                """)
        let result = JSONValue(data: Data(output.utf8))
        #expect(result?["version"] == .string("2 \"x\"</script>"))
        #expect(result?["ops"] == .array([.string("a.get"), .string("b.set")]))
        #expect(result?["frozen"] == .bool(true))
        #expect(result?["ok"] == .integer(7))
        #expect(result?["error"] == .array([.string("bad_args"), .string("no")]))
        let posted = result?["posted"]?.arrayValue ?? []
        #expect(posted.count == 2)
        let first = try BridgeEnvelopeCodec.decode(try #require(posted.first), dialect: .request)
        #expect(first.id == .string("demo-1") && first.op == "a.get" && first.args == .null)
    }

    @Test("Without the handler a call rejects with the bridge's name instead of hanging")
    func missingHandler() throws {
        let script = RequestBridgeScript.bootstrap(
            global: "demoApp", handlerName: "demo", displayName: "Demo", version: "1", ops: [])
        let output = try NodeRunner.run(
            NodeRunner.prelude(handlers: []) + script + """
                window.demoApp.call("a.get").catch((e) => console.log(JSON.stringify(e.message)));
                """)
        #expect(JSONValue(data: Data(output.utf8)) == .string("Demo bridge unavailable"))
    }

    @Test("A registration carries exactly what the app gave")
    func registration() throws {
        let allowed = try ServerAddress(parsing: "https://app.example.com", policy: .httpsOnly)
        let registration = BridgeRegistration(
            handlerName: "demo", contentWorldName: "DemoBridge", bootstrapScript: "/* script */",
            allowList: OriginAllowList([allowed]))
        #expect(registration.handlerName == "demo")
        #expect(registration.contentWorldName == "DemoBridge")
        #expect(registration.allowList.origins == ["https://app.example.com"])
    }
}
