#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the kit reads the current time.
///
/// Rule: no kit code calls `Date()` directly; it asks a `WallClock`, so a test can pin time and
/// every timestamp it asserts on is exact.
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The live clock: the system's wall time.
public struct SystemWallClock: WallClock {
    /// Creates the live clock.
    public init() {}

    /// The system's current instant.
    public func now() -> Date { Date() }
}

/// A clock that moves only when a test moves it.
public final class ManualWallClock: WallClock {
    private let current: Locked<Date>

    /// Creates a clock standing at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_764_400_000)) {
        current = Locked(start)
    }

    /// The instant the clock stands at.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

/// How the kit waits: retry backoff, reconnect delays, polling.
///
/// Rule: kit code never calls `Task.sleep` directly, so tests record the delays they would have
/// waited instead of waiting them.
public protocol Sleeper: Sendable {
    /// Suspends for `duration`, or throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The live sleeper: `Task.sleep` on the continuous clock.
public struct TaskSleeper: Sleeper {
    /// Creates the live sleeper.
    public init() {}

    /// Suspends the current task for `duration`.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A sleeper that returns at once and remembers every requested delay, for tests.
public final class RecordingSleeper: Sleeper {
    private let recorded = Locked<[Duration]>([])
    private let clock: ManualWallClock?
    private let onWait: (@Sendable (Int) async throws -> Void)?

    /// Creates a recording sleeper; when `clock` is given, each sleep advances it by the delay. `onWait`, if
    /// given, runs at each wait with its number (1 for the first): what happens elsewhere while the code waits.
    public init(advancing clock: ManualWallClock? = nil, onWait: (@Sendable (Int) async throws -> Void)? = nil) {
        self.clock = clock
        self.onWait = onWait
    }

    /// The delays asked for so far, in order.
    public var delays: [Duration] { recorded.withLock { $0 } }

    /// Records `duration`, advances the attached clock, runs `onWait`, and returns without waiting.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let count = recorded.withLock {
            $0.append(duration)
            return $0.count
        }
        clock?.advance(by: duration.seconds)
        try await onWait?(count)
    }
}

/// Where the kit gets non-secret randomness: backoff jitter, request ids, idempotency keys.
///
/// Keys and nonces for encryption come from `CompanionCrypto.SecureRandom`, never from here.
public protocol RandomSource: Sendable {
    /// A uniformly distributed 64-bit value.
    func next() -> UInt64
}

extension RandomSource {
    /// A value uniformly distributed in `0..<1`.
    public func unitInterval() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A random version-4 UUID built from this source, so ids are reproducible under a seeded source.
    public func uuid() -> UUID {
        let high = next()
        let low = next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (UInt64(index) * 8))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (UInt64(index) * 8))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// The live random source: the system generator (getrandom on Linux, arc4random on Apple).
public struct SystemRandomSource: RandomSource {
    /// Creates the live source.
    public init() {}

    /// A value from the system generator.
    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

/// A deterministic source (SplitMix64) for tests: the same seed gives the same sequence.
public final class SeededRandomSource: RandomSource {
    private let state: Locked<UInt64>

    /// Creates a source whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = Locked(seed) }

    /// The next value of the sequence.
    public func next() -> UInt64 {
        state.withLock { value in
            value &+= 0x9E37_79B9_7F4A_7C15
            var mixed = value
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var seconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
