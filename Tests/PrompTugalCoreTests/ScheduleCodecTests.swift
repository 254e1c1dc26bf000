import CompanionCore
import Foundation
import Testing

@testable import PrompTugalCore

/// The schedule wire format v1 `{v, picks}` and its strict time reader.
@MainActor
struct ScheduleCodecTests {
    static let instant = Date(timeIntervalSince1970: 1_794_105_900)  // 2026-11-08T02:45:00Z

    static func json(_ text: String) throws -> JSONValue {
        try #require(JSONValue(data: Data(text.utf8)))
    }

    @Test("P-SCHED-1: exactly v and picks; each pick exactly id and at; no removal records")
    func shape() throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.instant))
        store.toggle("ai-doom-or-boom")
        store.toggle("web3-summit")
        store.toggle("web3-summit")  // removed: a removal record exists, and never reaches the wire
        let value = store.document.json
        #expect(value.objectValue.map { Set($0.keys) } == ["v", "picks"])
        #expect(value["v"] == .integer(1))
        let picks = try #require(value["picks"]?.arrayValue)
        #expect(picks.count == 1)
        for pick in picks {
            #expect(pick.objectValue.map { Set($0.keys) } == ["id", "at"])
            #expect(pick["id"]?.stringValue != nil && pick["at"]?.stringValue != nil)
        }
        #expect(!store.document.jsonText.contains("web3-summit"))
    }

    @Test("P-SCHED-2: 2026-11-08 02:45:00 UTC is written as toISOString() writes it")
    func writesToISOString() throws {
        let document = ScheduleDocument(picks: [SchedulePick(id: "ai-doom-or-boom", at: Self.instant)])
        #expect(document.jsonText == #"{"v":1,"picks":[{"id":"ai-doom-or-boom","at":"2026-11-08T02:45:00.000Z"}]}"#)
        #expect(try ScheduleTime.write(Self.instant.addingTimeInterval(0.1234)) == "2026-11-08T02:45:00.123Z")
    }

    @Test("P-SCHED-3: an ISO string reads as its instant")
    func readsISO() throws {
        let document = try ScheduleDocument(
            json: Self.json(#"{"v":1,"picks":[{"id":"ai-doom-or-boom","at":"2026-11-08T02:45:00.000Z"}]}"#))
        #expect(document.picks == [SchedulePick(id: "ai-doom-or-boom", at: Self.instant)])
    }

    @Test("P-SCHED-4: a number is Unix milliseconds; re-encoding writes ISO, never milliseconds")
    func readsMilliseconds() throws {
        let document = try ScheduleDocument(
            json: Self.json(#"{"v":1,"picks":[{"id":"ai-doom-or-boom","at":1794105900000}]}"#))
        #expect(document.picks == [SchedulePick(id: "ai-doom-or-boom", at: Self.instant)])
        #expect(document.jsonText.contains(#""at":"2026-11-08T02:45:00.000Z""#))
        #expect(!document.jsonText.contains("1794105900000"))
    }

    struct AtRow: Sendable, CustomTestStringConvertible {
        let at: String
        let accepted: Bool
        var testDescription: String { at }
    }

    nonisolated static let atRows: [AtRow] = [
        AtRow(at: #""2026-11-08T02:45:00Z""#, accepted: true),
        AtRow(at: #""2026-11-08T03:45:00.000+01:00""#, accepted: true),
        AtRow(at: #""2026-11-08T02:45:00.123456789Z""#, accepted: true),
        AtRow(at: #""2026-11-08T02:45:00.000""#, accepted: false),  // no offset: whose clock?
        AtRow(at: #""2026-11-08T02:45""#, accepted: false),
        AtRow(at: #""1794105900000""#, accepted: false),  // digits in a string: seconds or milliseconds?
        AtRow(at: #""1794105900""#, accepted: false),
        AtRow(at: #""2026-11-08 02:45:00Z""#, accepted: false),
        AtRow(at: #""2026-11-08T02:45:00+0100""#, accepted: false),
        AtRow(at: #""2026-11-08T02:45:00.Z""#, accepted: false),
        AtRow(at: #""2026-02-30T02:45:00Z""#, accepted: false),
        AtRow(at: "true", accepted: false),
        AtRow(at: "null", accepted: false),
        AtRow(at: "1e300", accepted: false),
    ]

    @Test("P-OPEN-6, P-OPEN-4: the strict reader; a refused at skips its pick and keeps the rest", arguments: atRows)
    func strictReader(_ row: AtRow) throws {
        let text = #"{"v":1,"picks":[{"id":"a","at":\#(row.at)},{"id":"b","at":"2026-11-08T02:45:00.000Z"}]}"#
        let document = try ScheduleDocument(data: Data(text.utf8))
        #expect(document.picks.map(\.id) == (row.accepted ? ["a", "b"] : ["b"]))
        #expect(document.skipped == (row.accepted ? 0 : 1))
    }

    @Test("P-OPEN-6: an at that is neither a string nor a number is refused in a sentence that says what it must be")
    func anAtOfAnotherTypeIsRefusedSayingWhatItMustBe() {
        for value: JSONValue in [.bool(true), .null, .array([]), .object([:])] {
            #expect(throws: ScheduleTime.Problem.wrongType) { try ScheduleTime.read(value) }
        }
        #expect(
            ScheduleTime.Problem.wrongType.description
                == "A pick's time must be an ISO 8601 string or a number of Unix milliseconds.")
    }

    @Test("P-OPEN-6: a JSON number is milliseconds even when small (never seconds)")
    func smallNumbersAreMilliseconds() throws {
        #expect(try ScheduleTime.read(.integer(1_794_105_900)) == Date(timeIntervalSince1970: 1_794_105.9))
    }

    @Test("P-OPEN-3: v other than 1, or picks not an array, refuses the whole document")
    func refusesDocuments() throws {
        for text in [
            #"{"v":2,"picks":[]}"#, #"{"picks":[]}"#, #"{"v":"1","picks":[]}"#, #"{"v":1.5,"picks":[]}"#,
            #"{"v":1,"picks":{}}"#, #"{"v":1}"#, "[]", "not json",
        ] {
            #expect(throws: ScheduleDocumentError.self, "\(text)") { try ScheduleDocument(data: Data(text.utf8)) }
        }
        let error = ScheduleDocumentError.unsupportedVersion("2")
        #expect(error.description.contains("version 1"))
    }

    @Test("P-OPEN-4, P-OPEN-5: entries without a usable id are skipped; event paths become bare slugs")
    func normalizesIds() throws {
        let text = """
            {"v":1,"picks":[
              {"id":"events/a-talk","at":"2026-11-08T02:45:00.000Z"},
              {"id":"/2026/events/b-talk/index.html","at":"2026-11-08T02:45:00.000Z"},
              {"id":"c-talk","at":"2026-11-08T02:45:00.000Z"},
              {"id":"x/y","at":"2026-11-08T02:45:00.000Z"},
              {"id":7,"at":"2026-11-08T02:45:00.000Z"},
              {"at":"2026-11-08T02:45:00.000Z"},
              {"id":"","at":"2026-11-08T02:45:00.000Z"},
              "just text"
            ]}
            """
        let document = try ScheduleDocument(data: Data(text.utf8))
        #expect(document.picks.map(\.id) == ["a-talk", "b-talk", "c-talk"])
        #expect(document.skipped == 5)
    }

    @Test("P-OPEN-2: the same id twice keeps the later at")
    func duplicateKeepsLater() throws {
        let text = """
            {"v":1,"picks":[{"id":"a","at":"2026-11-08T02:45:00.000Z"},{"id":"a","at":"2026-11-09T02:45:00.000Z"},
            {"id":"a","at":"2026-11-07T02:45:00.000Z"}]}
            """
        let document = try ScheduleDocument(data: Data(text.utf8))
        #expect(document.picks == [SchedulePick(id: "a", at: Self.instant.addingTimeInterval(86_400))])
    }

    @Test("P-SCHED-1, P-OPEN-5: ids with quotes and line separators round-trip; an id holding / is a path")
    func escapes() throws {
        let odd = "a\"b'c\\d<script>\u{2028}\u{2029}"
        let document = ScheduleDocument(picks: [SchedulePick(id: odd, at: Self.instant)])
        #expect(try ScheduleDocument(data: Data(document.jsonText.utf8)).picks.map(\.id) == [odd])
        let closing = ScheduleDocument(picks: [SchedulePick(id: "x</script>", at: Self.instant)])
        #expect(JSONValue(data: Data(closing.jsonText.utf8))?["picks"]?[0]?["id"] == "x</script>")
        #expect(try ScheduleDocument(data: Data(closing.jsonText.utf8)).skipped == 1)
    }
}

/// Event ids from event page paths.
@MainActor
struct EventSlugTests {
    @Test("P-SCHED-5: the website's pattern, accepted and refused paths")
    func pattern() {
        #expect(EventSlug.extract(from: "events/ai-doom-or-boom/index.html") == "ai-doom-or-boom")
        #expect(EventSlug.extract(from: "/2026/events/ai-doom-or-boom/index.html") == "ai-doom-or-boom")
        for refused in [
            "myevents/a/index.html", "events/a/b/index.html", "events/a/index.htm", "events//index.html",
            "events/a/index.html?x=1", "", "index.html", "/events/index.html",
        ] {
            #expect(EventSlug.extract(from: refused) == nil, "\(refused)")
        }
    }

    @Test("P-SCHED-5: a full page address uses its path only")
    func fromURL() {
        #expect(
            EventSlug.extract(fromURL: "https://promptugal.news/events/ai-doom-or-boom/index.html") == "ai-doom-or-boom"
        )
        #expect(EventSlug.extract(fromURL: "https://promptugal.news/myevents/a/index.html") == nil)
    }

    @Test("P-SCHED-6: the store writes the bare slug, never events/<slug> or a path")
    func bareSlug() {
        let store = ScheduleStore(clock: ManualWallClock())
        store.merge(
            ScheduleDocument(picks: [
                SchedulePick(
                    id: EventSlug.normalize("events/ai-doom-or-boom") ?? "", at: Date(timeIntervalSince1970: 0))
            ]))
        #expect(store.toggle("/2026/events/web-3/index.html") == "web-3")
        #expect(store.toggle("events/ai-summit") == "ai-summit")
        // Anything else holding `/`, and empty, `.` or `..`, is not a slug: refused, nothing stored.
        for path in ["a/b", "events/a/b/index.html", "/", "", ".", ".."] {
            #expect(store.toggle(path) == nil, "\(path)")
        }
        #expect(store.document.picks.map(\.id).sorted() == ["ai-doom-or-boom", "ai-summit", "web-3"])
        #expect(store.state.removals.isEmpty && store.picks.allSatisfy { !$0.id.contains("/") })
        #expect(!store.document.jsonText.contains("events/"))
    }
}
