import CompanionBridge
import CompanionCore
import Foundation
import Testing

@testable import PrompTugalCore

/// PrompTugal's `pt` ops through the endpoint (P-BRIDGE-2..7, 13, 14).
struct PromptugalBridgeTests {
    final class FakeServices: PromptugalBridgeServices {
        let merged = Locked<[JSONValue]>([])
        let planned = Locked<[NotificationPlan]>([])

        func scheduleDocument() async -> JSONValue {
            .object([
                "v": .integer(1),
                "picks": .array([
                    .object([
                        "id": .string("ai-doom-or-boom"),
                        "at": .string("2026-11-08T02:45:00.000Z"),
                    ])
                ]),
            ])
        }

        func mergeSchedule(_ document: JSONValue) async throws -> JSONValue {
            guard document["v"] == .integer(1) else {
                throw BridgeOpError(code: "bad_document", message: "The schedule document is not version 1.")
            }
            merged.withLock { $0.append(document) }
            return document
        }

        func identity() async -> String? { "person-7" }

        func planNotification(_ plan: NotificationPlan) async throws {
            if plan.id == "explode" { throw CocoaError(.fileNoSuchFile) }
            planned.withLock { $0.append(plan) }
        }
    }

    static let source = BridgeSource(
        isMainFrame: true, frameOrigin: "https://promptugal.news", pageURL: "https://promptugal.news/agenda")

    static func endpoint(_ services: FakeServices, journal: Journal) -> BridgeEndpoint {
        PromptugalBridge.endpoint(
            services: services,
            allowed: ["https://promptugal.news", "http://localhost:8000"].compactMap {
                try? ServerAddress(parsing: $0, policy: .allowingInsecureLoopback)
            }, journal: journal)
    }

    static func json(_ text: String) -> JSONValue { JSONValue(data: Data(text.utf8)) ?? .string("bad fixture") }

    struct Row: Sendable, CustomTestStringConvertible {
        let body: String
        let reply: String
        var testDescription: String { body }
    }

    static let rows: [Row] = [
        Row(
            body: #"{"id":"1","op":"schedule.get"}"#,
            reply:
                #"{"id":"1","ok":true,"result":{"v":1,"picks":[{"id":"ai-doom-or-boom","at":"2026-11-08T02:45:00.000Z"}]}}"#
        ),
        Row(
            body: #"{"id":2,"op":"schedule.set","args":{"v":1,"picks":[]}}"#,
            reply: #"{"id":2,"ok":true,"result":{"v":1,"picks":[]}}"#),
        Row(
            body: #"{"id":3,"op":"schedule.set","args":{"v":2}}"#,
            reply:
                #"{"id":3,"ok":false,"error":{"code":"bad_document","message":"The schedule document is not version 1."}}"#
        ),
        Row(
            body: #"{"id":"4","op":"identity.get","args":null}"#,
            reply: #"{"id":"4","ok":true,"result":{"personId":"person-7"}}"#),
        Row(
            body: #"{"id":"5","op":"notify.plan","args":{"id":"n1","title":"Talk","at":"2026-11-08T10:00:00Z"}}"#,
            reply: #"{"id":"5","ok":true,"result":{"planned":"n1"}}"#),
        Row(
            body: #"{"id":"6","op":"notify.plan","args":{"id":"n1","title":"","at":"2026-11-08T10:00:00Z"}}"#,
            reply:
                #"{"id":"6","ok":false,"error":{"code":"bad_args","message":"notify.plan needs a non-empty id and title."}}"#
        ),
        Row(
            body: #"{"id":"7","op":"notify.plan","args":{"id":"n1","title":"T","at":"tomorrow"}}"#,
            reply:
                #"{"id":"7","ok":false,"error":{"code":"bad_args","message":"notify.plan needs `at` as an ISO 8601 time."}}"#
        ),
        Row(
            body: #"{"id":"8","op":"notify.plan","args":[1]}"#,
            reply:
                #"{"id":"8","ok":false,"error":{"code":"bad_args","message":"The arguments of notify.plan do not have the expected shape."}}"#
        ),
        Row(
            body: #"{"id":"9","op":"notify.plan","args":{"id":"explode","title":"T","at":"2026-11-08T10:00:00Z"}}"#,
            reply:
                #"{"id":"9","ok":false,"error":{"code":"failed","message":"The app could not complete notify.plan."}}"#),
        Row(
            body: #"{"id":"10","op":"meter.topup","args":{"amount":5}}"#,
            reply:
                #"{"id":"10","ok":false,"error":{"code":"not_available","message":"meter.topup is not available yet."}}"#
        ),
        Row(
            body: #"{"id":"11","op":"vault.read","args":{"path":"keys"}}"#,
            reply: #"{"id":"11","ok":false,"error":{"code":"unknown_op","message":"unknown op vault.read"}}"#),
    ]

    @Test("P-BRIDGE-5/6/7, P-OPEN-14/15: each op's reply", arguments: rows)
    func ops(_ row: Row) async {
        let journal = Journal(clock: ManualWallClock())
        let reply = await Self.endpoint(FakeServices(), journal: journal).receive(
            Self.json(row.body), from: Self.source)
        #expect(reply.map { $0.json.semanticallyEquals(Self.json(row.reply)) } == true, "\(String(describing: reply))")
        // P-BRIDGE-13: one inbound and one outbound entry.
        #expect(journal.events.map { $0.fields["direction"] } == ["page→app", "app→page"])
        #expect(journal.events.allSatisfy { $0.kind == .bridge })
    }

    @Test(
        """
        Issue 38 item 6: notify.plan reads a time without a zone as Lisbon wall time, never UTC, and refuses a number \
        written as text
        """)
    func notificationTimes() async throws {
        let utc = { (text: String) in try Timestamp.parse(text) }
        for (at, expected) in [
            ("2026-07-01T10:00", "2026-07-01T09:00:00Z"), ("2026-11-08T10:00:00", "2026-11-08T10:00:00Z"),
            ("2026-07-01T10:00:00Z", "2026-07-01T10:00:00Z"), ("2026-07-01T10:00:00+02:00", "2026-07-01T08:00:00Z"),
        ] {
            let services = FakeServices()
            let body = JSONValue.object([
                "id": "1", "op": "notify.plan", "args": ["id": "n1", "title": "Talk", "at": .string(at)],
            ])
            let reply = await Self.endpoint(services, journal: Journal()).receive(body, from: Self.source)
            #expect(reply?.json["ok"] == true, "\(at)")
            let plan = try #require(services.planned.withLock { $0.first })
            #expect(try plan.deliveryTime() == utc(expected), "\(at)")
        }
        for at in ["1794105900", "1794105900000", " 1794105900 ", "-1"] {
            let services = FakeServices()
            let body = JSONValue.object([
                "id": "1", "op": "notify.plan", "args": ["id": "n1", "title": "Talk", "at": .string(at)],
            ])
            let reply = await Self.endpoint(services, journal: Journal()).receive(body, from: Self.source)
            #expect(reply?.json["ok"] == false && reply?.json["error"]?["code"] == "bad_args", "\(at)")
            #expect(reply?.json["error"]?["message"]?.stringValue?.contains("seconds or milliseconds") == true)
            #expect(services.planned.withLock { $0.isEmpty }, "\(at)")
        }
    }

    @Test("P-BRIDGE-7: schedule.set merges through the service, it does not replace the store")
    func setMerges() async {
        let services = FakeServices()
        let endpoint = Self.endpoint(services, journal: Journal(clock: ManualWallClock()))
        _ = await endpoint.receive(
            Self.json(#"{"id":1,"op":"schedule.set","args":{"v":1,"picks":[]}}"#),
            from: Self.source)
        #expect(services.merged.withLock { $0 } == [Self.json(#"{"v":1,"picks":[]}"#)])
    }

    @Test("P-BRIDGE-2/3, P-OPEN-11: other origins, http, subframes and bad envelopes run nothing and get no reply")
    func rejected() async {
        let services = FakeServices()
        let journal = Journal(clock: ManualWallClock())
        let endpoint = Self.endpoint(services, journal: journal)
        let body = Self.json(#"{"id":"1","op":"schedule.set","args":{"v":1,"picks":[]}}"#)
        let sources = [
            BridgeSource(isMainFrame: true, frameOrigin: "http://promptugal.news", pageURL: "http://promptugal.news/"),
            BridgeSource(
                isMainFrame: true, frameOrigin: "https://sub.promptugal.news",
                pageURL: "https://sub.promptugal.news/"),
            BridgeSource(
                isMainFrame: false, frameOrigin: "https://promptugal.news", pageURL: "https://promptugal.news/"),
            BridgeSource(isMainFrame: true, frameOrigin: "https://promptugal.news", pageURL: "https://evil.example/"),
            // https only: the http loopback entry was dropped from the allow-list.
            BridgeSource(isMainFrame: true, frameOrigin: "http://localhost:8000", pageURL: "http://localhost:8000/"),
        ]
        for source in sources { #expect(await endpoint.receive(body, from: source) == nil) }
        #expect(await endpoint.receive(Self.json(#"{"op":"schedule.get"}"#), from: Self.source) == nil)
        #expect(services.merged.withLock { $0 }.isEmpty)
        #expect(journal.events.count == 6)
        #expect(journal.events.allSatisfy { $0.kind == .bridge && $0.fields["outcome"] == "rejected" })
    }

    @Test("P-BRIDGE-14: no reply or journal entry carries a registered secret")
    func noSecrets() async {
        let journal = Journal(clock: ManualWallClock())
        let secret = "sk-or-v1-0123456789abcdef0123456789abcdef"
        journal.register(secret: secret)
        let endpoint = Self.endpoint(FakeServices(), journal: journal)
        var texts: [String] = []
        for op in PromptugalBridge.phaseOneOps + ["other"] {
            let body = JSONValue.object([
                "id": .string("x"), "op": .string(op), "args": .object(["key": .string(secret)]),
            ])
            if let reply = await endpoint.receive(body, from: Self.source) { texts.append(reply.json.jsonString()) }
        }
        texts += journal.events.map { $0.message + $0.fields.description }
        #expect(texts.count == 6 + journal.events.count)
        #expect(texts.allSatisfy { !$0.contains(secret) })
    }
}
