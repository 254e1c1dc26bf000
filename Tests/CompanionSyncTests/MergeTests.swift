import CompanionCore
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

@Suite("Merge rules and consistent reads")
struct MergeTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let rule = UnionByID()

    @Test func toggleAddsThenRemovesWithATombstone_PSCHED8_PSCHED9_PSCHED10() {
        var set = TimedSet()
        #expect(!set.contains("ai-doom-or-boom"))
        set.toggle("ai-doom-or-boom", at: t0)
        #expect(set.contains("ai-doom-or-boom") && set.members["ai-doom-or-boom"] == t0)
        set.toggle("ai-doom-or-boom", at: t0.addingTimeInterval(5))
        #expect(!set.contains("ai-doom-or-boom"))
        #expect(set.removals["ai-doom-or-boom"] == t0.addingTimeInterval(5))
    }

    @Test func unionAddsIncomingAndAbsenceRemovesNothing_PSCHED11_PSCHED12_PSCHED13() {
        let local = TimedSet(members: ["a": t0, "b": t0])
        let incoming = TimedSet(members: ["b": t0, "c": t0])
        let merged = rule.merge(local, incoming)
        #expect(Set(merged.members.keys) == ["a", "b", "c"])
        #expect(rule.merge(local, TimedSet()).members == local.members)
    }

    @Test func aRemovalWinsOnlyIfLaterThanTheAdd_PSCHED14() {
        let removedLater = TimedSet(removals: ["a": t0.addingTimeInterval(10)])
        #expect(!rule.merge(removedLater, TimedSet(members: ["a": t0])).contains("a"))
        let removedEarlier = TimedSet(removals: ["a": t0])
        let restored = rule.merge(removedEarlier, TimedSet(members: ["a": t0.addingTimeInterval(10)]))
        #expect(restored.contains("a") && restored.removals["a"] == nil)
        let tie = rule.merge(TimedSet(removals: ["a": t0]), TimedSet(members: ["a": t0]))
        #expect(tie.contains("a"))
    }

    @Test func mergeIsIdempotentAndOrderFree_PSCHED16() {
        let a = TimedSet(members: ["x": t0, "y": t0.addingTimeInterval(3)], removals: ["z": t0.addingTimeInterval(9)])
        let b = TimedSet(members: ["y": t0.addingTimeInterval(1), "z": t0.addingTimeInterval(2)])
        let c = TimedSet(members: ["x": t0.addingTimeInterval(20)], removals: ["y": t0.addingTimeInterval(2)])
        let base = TimedSet(members: ["w": t0])
        #expect(rule.merge(rule.merge(base, a), b) == rule.merge(rule.merge(base, b), a))
        #expect(rule.merge(rule.merge(base, a), a) == rule.merge(base, a))
        #expect(rule.merge(rule.merge(rule.merge(base, a), b), c) == rule.merge(rule.merge(rule.merge(base, c), b), a))
    }

    @Test func removalRecordsSurviveARestart_PSCHED15() async throws {
        let folder = try TemporaryFolder()
        let scope = testScope()
        var set = TimedSet()
        set.toggle("talk", at: t0)
        set.toggle("talk", at: t0.addingTimeInterval(60))
        let encoded = try JSONEncoder().encode(set)
        try await OfflineStore(scope: scope, location: .directory(folder.url)).write {
            transaction throws(StoreError) in try transaction.putDocument("schedule", body: encoded)
        }
        let reopened = try OfflineStore(scope: scope, location: .directory(folder.url))
        let stored = try #require(
            try await reopened.read { transaction throws(StoreError) in try transaction.document("schedule") })
        let restored = try JSONDecoder().decode(TimedSet.self, from: stored)
        #expect(!rule.merge(restored, TimedSet(members: ["talk": t0])).contains("talk"))
    }

    @Test func fieldwiseLastWriterWinsPerField() {
        let lww = FieldwiseLastWriterWins()
        let local = [
            "title": StampedField(.string("Mine"), at: t0.addingTimeInterval(10)),
            "pinned": StampedField(.bool(true), at: t0),
        ]
        let incoming = [
            "title": StampedField(.string("Theirs"), at: t0),
            "pinned": StampedField(.bool(false), at: t0.addingTimeInterval(5)),
            "labels": StampedField(.array([.string("x")]), at: t0),
        ]
        let merged = lww.merge(local, incoming)
        #expect(merged["title"]?.value == .string("Mine"))
        #expect(merged["pinned"]?.value == .bool(false))
        #expect(merged["labels"] != nil)
        let tieA = ["f": StampedField(.string("a"), at: t0)]
        let tieB = ["f": StampedField(.string("b"), at: t0)]
        #expect(lww.merge(tieA, tieB) == lww.merge(tieB, tieA))
    }

    struct GatePage: Sendable, Equatable {
        var heads: [String]
        var verdict: String
    }

    @Test func headMovedOnceIsReadAgain() async throws {
        let reads = Counter()
        let outcome = try await ConsistentRead.read(previous: nil as GatePage?, versions: \.heads) {
            let attempt = reads.increment()
            return attempt == 1
                ? GatePage(heads: ["h1", "h2"], verdict: "mixed") : GatePage(heads: ["h2", "h2"], verdict: "pass")
        }
        guard case .consistent(let page, let version, let attempts) = outcome else {
            Issue.record("expected a consistent page")
            return
        }
        #expect(page.verdict == "pass" && version == "h2" && attempts == 2)
    }

    @Test func headMovedTwiceKeepsThePreviousPageAndSaysSo() async throws {
        let previous = GatePage(heads: ["h0", "h0"], verdict: "fail")
        let reads = Counter()
        let outcome = try await ConsistentRead.read(previous: previous, versions: \.heads) {
            let attempt = reads.increment()
            return GatePage(heads: ["h\(attempt)", "h\(attempt + 1)"], verdict: "mixed")
        }
        guard case .moved(let kept, let seen) = outcome else {
            Issue.record("expected moved")
            return
        }
        #expect(kept == previous)
        #expect(seen.count == 2 && reads.value == 2)
    }
}

/// A thread-safe counter for read closures.
final class Counter: Sendable {
    private let state = Locked(0)
    func increment() -> Int {
        state.withLock {
            $0 += 1
            return $0
        }
    }
    var value: Int { state.withLock { $0 } }
}
