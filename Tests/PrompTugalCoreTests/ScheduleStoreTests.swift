import CompanionCore
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

@testable import PrompTugalCore

/// The schedule store: toggle, merge by the kit's union rules, removals kept, Lisbon-time order.
@MainActor
struct ScheduleStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_794_105_900)  // 2026-11-08T02:45:00Z

    static func doc(_ picks: [(String, TimeInterval)]) -> ScheduleDocument {
        ScheduleDocument(picks: picks.map { SchedulePick(id: $0.0, at: t0.addingTimeInterval($0.1)) })
    }

    @Test("P-SCHED-7: document is the current picks as {v:1, picks}, the value of nr.schedule.v1")
    func documentIsTheStoredValue() throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("a")
        #expect(store.document.jsonText == #"{"v":1,"picks":[{"id":"a","at":"2026-11-08T02:45:00.000Z"}]}"#)
        #expect(try ScheduleDocument(data: Data(store.document.jsonText.utf8)) == store.document)
    }

    @Test("P-SCHED-8/9/10: isPicked, toggle on adds at now, toggle off removes and records removedAt")
    func toggle() {
        let clock = ManualWallClock(Self.t0)
        let store = ScheduleStore(clock: clock)
        #expect(!store.isPicked("never-seen"))
        store.toggle("a")
        #expect(store.isPicked("a"))
        #expect(store.picks == [SchedulePick(id: "a", at: Self.t0)])
        clock.advance(by: 60)
        store.toggle("a")
        #expect(!store.isPicked("a"))
        #expect(store.removedAt("a") == Self.t0.addingTimeInterval(60))
        #expect(store.document.picks.isEmpty)
    }

    @Test("P-SCHED-11/12/13: union by id; one entry per id; absence removes nothing")
    func union() {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("local")
        let outcome = store.merge(Self.doc([("web", 10), ("local", 5)]))
        #expect(outcome.added == ["web"])
        store.merge(Self.doc([("web", 10)]))
        #expect(store.picks.map(\.id).sorted() == ["local", "web"])
        #expect(store.document.picks.count == 2)
        store.merge(.empty)
        #expect(store.isPicked("local") && store.isPicked("web"))
    }

    @Test("P-SCHED-14: a later removal wins; an equal or later pick restores and drops the removal")
    func removalAgainstPick() {
        let clock = ManualWallClock(Self.t0)
        let store = ScheduleStore(clock: clock)
        store.toggle("a")
        clock.advance(by: 100)
        store.toggle("a")  // removed at t0+100
        let kept = store.merge(Self.doc([("a", 99)]))
        #expect(!store.isPicked("a") && kept.keptRemoved == ["a"])
        store.merge(Self.doc([("a", 100)]))  // equal times go to the pick
        #expect(store.isPicked("a"))
        #expect(store.removedAt("a") == nil)
    }

    @Test("P-SCHED-14: a removal and a re-add racing from the web and the vault settle the same in either order")
    func racingSources() {
        // Local: picked at t0, removed at t0+50. The web re-adds at t0+60; the vault still has the t0 copy.
        func run(_ order: [ScheduleDocument]) -> ScheduleStore {
            let clock = ManualWallClock(Self.t0)
            let store = ScheduleStore(clock: clock)
            store.toggle("talk")
            clock.advance(by: 50)
            store.toggle("talk")
            for document in order { store.merge(document) }
            return store
        }
        let web = Self.doc([("talk", 60)])
        let vault = Self.doc([("talk", 0)])
        for store in [run([web, vault]), run([vault, web])] {
            #expect(store.picks == [SchedulePick(id: "talk", at: Self.t0.addingTimeInterval(60))])
        }
        let stale = run([vault])
        #expect(!stale.isPicked("talk"))
    }

    @Test("P-SCHED-16: merge is idempotent and order-free")
    func idempotentOrderFree() {
        let a = Self.doc([("x", 1), ("y", 2)])
        let b = Self.doc([("y", 5), ("z", 3)])
        let ab = ScheduleStore(clock: ManualWallClock(Self.t0))
        ab.merge(a)
        ab.merge(b)
        let ba = ScheduleStore(clock: ManualWallClock(Self.t0))
        ba.merge(b)
        ba.merge(a)
        ba.merge(a)
        #expect(ab.state == ba.state)
        #expect(ab.picks == ba.picks)
    }

    @Test("P-SCHED-17/18, P-OPEN-7: sorted by agenda start in Lisbon time; ties by id; unknown events last")
    func sortedByLisbonStart() throws {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        for id in ["unknown-b", "summer-10", "summer-0930z", "winter-10", "tie-b", "tie-a", "unknown-a"] {
            store.toggle(id)
        }
        store.setEventStarts([
            "winter-10": try LisbonTime.instant("2026-11-08T10:00"),  // WET: 10:00Z
            "summer-10": try LisbonTime.instant("2026-07-01T10:00"),  // WEST: 09:00Z
            "summer-0930z": try LisbonTime.instant("2026-07-01T09:30Z"),
            "tie-a": try LisbonTime.instant("2026-11-09T09:00"),
            "tie-b": try LisbonTime.instant("2026-11-09T09:00"),
        ])
        #expect(try LisbonTime.instant("2026-11-08T10:00") == Timestamp.parse("2026-11-08T10:00:00Z"))
        #expect(try LisbonTime.instant("2026-07-01T10:00") == Timestamp.parse("2026-07-01T09:00:00Z"))
        #expect(
            store.picks.map(\.id) == [
                "summer-10", "summer-0930z", "winter-10", "tie-a", "tie-b", "unknown-a", "unknown-b",
            ])
    }

    @Test(
        "P-SCHED-17, P-SCHED-18: an agenda event's slug is slug, else id, else its url; its start with or without an offset"
    )
    func agendaDecoder() throws {
        let text = """
            {"sessions": [
              {"slug": "by-slug", "id": "ignored", "start": "2026-07-01T10:00"},
              {"id": "by-id", "startsAt": "2026-07-01T09:30Z"},
              {"url": "https://promptugal.news/2026/events/by-url/index.html", "start_time": "2026-07-01T10:15:00+01:00"},
              {"id": "events/by-path", "start": "not a time"},
              {"title": "no slug at all", "start": "2026-07-01T08:00"},
              {"url": "/events/a/b/index.html"}
            ]}
            """
        let agenda = try TeamAgenda(json: try #require(JSONValue(data: Data(text.utf8))))
        #expect(agenda.events.map(\.slug) == ["by-slug", "by-id", "by-url", "by-path"] && agenda.skipped == 2)
        #expect(agenda.starts["by-slug"] == (try Timestamp.parse("2026-07-01T09:00:00Z")))
        #expect(agenda.starts["by-id"] == (try Timestamp.parse("2026-07-01T09:30:00Z")))
        #expect(agenda.starts["by-url"] == (try Timestamp.parse("2026-07-01T09:15:00Z")))
        #expect(agenda.starts["by-path"] == nil)
        #expect(throws: TeamDataError.missingList("agenda")) { try TeamAgenda(json: ["timezone": "Europe/Lisbon"]) }
        // An agenda made of events skipped none of them.
        let made = TeamAgenda(events: agenda.events)
        #expect(made.skipped == 0 && made.events == agenda.events)
    }

    @Test("P-SCHED-18, P-OPEN-7: a pick at 00:30 Lisbon time is on its Lisbon day, summer and winter")
    func halfPastMidnight() throws {
        let summer = try LisbonTime.instant("2026-07-02T00:30")
        let winter = try LisbonTime.instant("2026-11-09T00:30")
        #expect(summer == (try Timestamp.parse("2026-07-01T23:30:00Z")))
        #expect(winter == (try Timestamp.parse("2026-11-09T00:30:00Z")))
        #expect(LisbonTime.day(summer) == "2026-07-02")
        #expect(LisbonTime.day(winter) == "2026-11-09")
        #expect(LisbonTime.wallTime(summer) == "2026-07-02 00:30")
        #expect(LisbonTime.offset(at: summer) == "+01:00" && LisbonTime.offset(at: winter) == "+00:00")
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("late-summer")
        store.toggle("late-winter")
        store.toggle("evening-summer")
        store.setEventStarts([
            "late-summer": summer, "late-winter": winter,
            "evening-summer": try LisbonTime.instant("2026-07-01T23:45"),  // 22:45Z, before 23:30Z
        ])
        #expect(store.picks.map(\.id) == ["evening-summer", "late-summer", "late-winter"])
    }

    @Test("P-SCHED-15: removals survive a restart through the app's store")
    func removalsSurviveRestart() async throws {
        let folder = try TemporaryFolder(prefix: "pt-schedule")
        let clock = ManualWallClock(Self.t0)
        do {
            let first = try await Rig.make(folder: folder)
            let storage = StoreScheduleStorage(store: first.server.appStore)
            let store = try await ScheduleStore.load(from: storage, clock: clock)
            store.toggle("talk")
            clock.advance(by: 30)
            store.toggle("talk")
            store.toggle("kept")
            await store.saved()
            #expect(store.saveProblem == nil)
        }
        let storage = StoreScheduleStorage(store: try await Rig.make(folder: folder).server.appStore)
        let reloaded = try await ScheduleStore.load(from: storage, clock: clock)
        #expect(reloaded.isPicked("kept"))
        reloaded.merge(Self.doc([("talk", 0)]))
        #expect(!reloaded.isPicked("talk"))
    }

    /// Counts the states it is asked to save.
    final class CountingStorage: ScheduleStorage {
        let saves = Locked<[TimedSet]>([])
        func load() async throws(ScheduleStorageError) -> TimedSet? { nil }
        func save(_ state: TimedSet) async throws(ScheduleStorageError) { saves.withLock { $0.append(state) } }
    }

    @Test("Issue 38 item 1, P-SCHED-15: a removal on the page saves a removal record, only for a pick held here")
    func pageRemovalSavesOnlyAChange() async {
        let clock = ManualWallClock(Self.t0)
        let storage = CountingStorage()
        let store = ScheduleStore(clock: clock, storage: storage)
        store.toggle("talk")
        await store.saved()
        #expect(storage.saves.withLock { $0.count } == 1)
        store.removeAsOnPage(["never-picked", "other"])
        await store.saved()
        #expect(storage.saves.withLock { $0.count } == 1)  // nothing changed, nothing written (m-6cafd5059c)
        clock.advance(by: 5)
        store.removeAsOnPage(["talk", "never-picked"])
        await store.saved()
        #expect(storage.saves.withLock { $0.count } == 2)
        #expect(storage.saves.withLock { $0.last?.removals["talk"] } == Self.t0.addingTimeInterval(5))
        #expect(!store.isPicked("talk"))
    }

    @Test("P-SCHED-19: web and vault documents only merge; neither replaces the contents")
    func noWholesaleReplace() {
        let store = ScheduleStore(clock: ManualWallClock(Self.t0))
        store.toggle("mine")
        store.merge(Self.doc([("web-only", 1)]))  // from the web view
        store.merge(Self.doc([("vault-only", 2)]))  // from the vault
        #expect(store.picks.map(\.id).sorted() == ["mine", "vault-only", "web-only"])
    }
}

/// The schedule screen on the stand-in's agenda: part of `TeamDataTests`, which owns the agenda's fault switches.
extension TeamDataTests {
    @Test(
        "P-SCHED-17, P-SCHED-18: the schedule model joins the picks with the agenda read from the site, in start order",
        arguments: Fixture.allCases)
    @MainActor
    func orderedByTheAgenda(_ fixture: Fixture) async throws {
        let rig = try await Rig.make(bases: try fixture.bases())
        let agenda = try #require(await rig.team.agenda().value)
        let picks: [String]
        if fixture == .second {
            // A start with an offset (+01:00), one in UTC, and one in Lisbon wall time, slugs from `id` and `url`.
            picks = ["ai-doom-or-boom", "lisbon-offset-early", "utc-z-middle"]
            #expect(agenda.bySlug["ai-doom-or-boom"]?.url == "/events/ai-doom-or-boom/index.html")
        } else {
            let dated = agenda.events.filter { $0.start != nil }.sorted {
                ($0.start ?? .distantPast) < ($1.start ?? .distantPast)
            }
            picks = [try #require(dated.last?.slug), "ai-doom-or-boom", try #require(dated.first?.slug)]
        }
        let store = ScheduleStore(clock: rig.clock)
        for id in picks + ["not-in-the-agenda"] { #expect(store.toggle(id) != nil) }
        let model = ScheduleModel(store: store, team: rig.team)
        await model.load()
        #expect(model.agenda.kind == .content)
        let starts = model.rows.map(\.start)
        let expected = picks.sorted { (agenda.starts[$0] ?? .distantFuture) < (agenda.starts[$1] ?? .distantFuture) }
        #expect(model.rows.map(\.id) == expected + ["not-in-the-agenda"])
        #expect(expected != expected.sorted(), "the picks are chosen so that start order is not id order")
        #expect(starts.dropLast().allSatisfy { $0 != nil } && starts.last == .some(nil))
        if fixture == .second {
            #expect(
                model.rows.compactMap(\.lisbonTime) == ["2026-11-10 09:30", "2026-11-10 09:45", "2026-11-10 10:00"])
        }
        // Offline, from the saved agenda: the same order.
        let offline = ScheduleModel(store: ScheduleStore(state: store.state, clock: rig.clock), team: rig.team)
        await offline.load(offline: true)
        #expect(offline.rows.map(\.id) == model.rows.map(\.id) && offline.agenda.kind == .offline)
    }

}
