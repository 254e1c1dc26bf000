import CompanionCore
import Foundation
import Testing

@Suite struct DependenciesTests {
    @Test func seededRandomSourceIsDeterministic() {
        let one = SeededRandomSource(seed: 42)
        let two = SeededRandomSource(seed: 42)
        let other = SeededRandomSource(seed: 43)
        let first = (0..<100).map { _ in one.next() }
        #expect(first == (0..<100).map { _ in two.next() })
        #expect(first != (0..<100).map { _ in other.next() })
        #expect(Set(first).count == 100)
        // SplitMix64's published first output for seed 0.
        #expect(SeededRandomSource(seed: 0).next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func seededUUIDsAreReproducibleVersion4() {
        let one = SeededRandomSource(seed: 9)
        let two = SeededRandomSource(seed: 9)
        for _ in 0..<50 {
            let uuid = one.uuid()
            #expect(uuid == two.uuid())
            let text = uuid.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
        }
    }

    @Test func unitIntervalStaysInRange() {
        let source = SeededRandomSource(seed: 1)
        for _ in 0..<10_000 {
            let value = source.unitInterval()
            #expect(value >= 0 && value < 1)
        }
    }

    @Test func manualWallClockMovesOnlyWhenTold() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 100))
        #expect(clock.now() == Date(timeIntervalSince1970: 100))
        #expect(clock.now() == Date(timeIntervalSince1970: 100))
        clock.advance(by: 1.5)
        #expect(clock.now() == Date(timeIntervalSince1970: 101.5))
        clock.set(Date(timeIntervalSince1970: 7))
        #expect(clock.now() == Date(timeIntervalSince1970: 7))
        #expect(ManualWallClock().now() == Date(timeIntervalSince1970: 1_764_400_000))
    }

    @Test func recordingSleeperRecordsAndAdvances() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 0))
        let sleeper = RecordingSleeper(advancing: clock)
        // The recording sleeper returns at once; nothing here waits.
        let record: @Sendable (Duration) async throws -> Void = sleeper.sleep
        try await record(.seconds(2))
        try await record(.milliseconds(250))
        #expect(sleeper.delays == [.seconds(2), .milliseconds(250)])
        #expect(clock.now() == Date(timeIntervalSince1970: 2.25))
        let detached = RecordingSleeper()
        let recordDetached: @Sendable (Duration) async throws -> Void = detached.sleep
        try await recordDetached(.seconds(30))
        #expect(detached.delays == [.seconds(30)])
    }

    @Test func recordingSleeperHonoursCancellation() async {
        let sleeper = RecordingSleeper()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let record: @Sendable (Duration) async throws -> Void = sleeper.sleep
            try await record(.seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(sleeper.delays.isEmpty)
    }

    @Test func durationSeconds() {
        #expect(Duration.seconds(3).seconds == 3)
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(abs(Duration.microseconds(1).seconds - 1e-6) < 1e-15)
    }
}
