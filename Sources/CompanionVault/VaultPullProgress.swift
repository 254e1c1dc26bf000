import CompanionCore
import Foundation

/// How far a pull has come, for a progress line.
public struct VaultPullProgress: Sendable, Hashable {
    /// Objects fetched so far (loose objects and pack members).
    public let objects: Int
    /// Bytes fetched so far.
    public let bytes: Int
    /// Seconds since the pull started.
    public let elapsed: Double

    /// Creates a progress value.
    public init(objects: Int, bytes: Int, elapsed: Double) {
        self.objects = objects
        self.bytes = bytes
        self.elapsed = elapsed
    }
}

/// Counts fetched objects and bytes across concurrent fetches and reports progress at most 10 times a second.
final class ProgressCounter: Sendable {
    private struct Counts {
        var objects = 0
        var bytes = 0
        var lastReport: ContinuousClock.Instant?
    }
    private let counts = Locked(Counts())
    private let started: ContinuousClock.Instant
    private let progress: (@Sendable (VaultPullProgress) -> Void)?

    init(started: ContinuousClock.Instant, progress: (@Sendable (VaultPullProgress) -> Void)?) {
        self.started = started
        self.progress = progress
    }

    func add(objects: Int, bytes: Int) {
        let now = ContinuousClock.now
        let report: VaultPullProgress? = counts.withLock { counts in
            counts.objects += objects
            counts.bytes += bytes
            if let last = counts.lastReport, now - last < .milliseconds(100) { return nil }
            counts.lastReport = now
            return VaultPullProgress(objects: counts.objects, bytes: counts.bytes, elapsed: (now - started).seconds)
        }
        if let report { progress?(report) }
    }

    func finish() {
        let now = ContinuousClock.now
        let report = counts.withLock {
            VaultPullProgress(objects: $0.objects, bytes: $0.bytes, elapsed: (now - started).seconds)
        }
        progress?(report)
    }
}
