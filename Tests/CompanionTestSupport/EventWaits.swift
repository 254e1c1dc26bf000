import CompanionCore
import Dispatch
import Synchronization

/// A signal that shared test state changed: whoever changes the state calls `changed()`, and a test awaits a
/// condition over that state with `wait(upTo:until:)`, which checks it now and again after every change. An
/// event-driven wait: no sleeping and no polling; the deadline is a one-shot timer that fails the wait loudly.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Creates a signal with nobody waiting.
    public init() {}

    /// Wakes every waiter, which checks its condition again.
    public func changed() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            guard !state.waiters.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until `condition` holds, checking it now and after every `changed()`; returns `false` when
    /// `timeout` passes first (the caller records the failure).
    public func wait(upTo timeout: Duration, until condition: () async throws -> Bool) async rethrows -> Bool {
        // The deadline: one timer, which marks the wait expired and wakes it for a last check.
        let expiry = Expiry(after: timeout) { [self] in self.changed() }
        while true {
            let seen = state.withLock { $0.generation }
            if try await condition() { return true }
            if expiry.isExpired { return false }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let missed = state.withLock { state -> Bool in
                    // A change between the check and here must not be lost: check again at once.
                    if state.generation != seen { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if missed { continuation.resume() }
            }
        }
    }
}

/// Runs `operation` in a task of its own and cancels that task when `timeout` passes first: a bound on a wait
/// for an event (a stream's first element, say), kept by a one-shot timer, not a sleep. Returns what
/// `operation` returned, or `nil` when the deadline cancelled it.
public func withDeadline<Value: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value?
) async throws -> Value? {
    let task = Task { try await operation() }
    let expiry = Expiry(after: timeout) { task.cancel() }
    do {
        let value = try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
        return expiry.isExpired ? nil : value
    } catch  where expiry.isExpired {
        return nil
    }
}

/// A one-shot timer on a Dispatch queue: after `timeout` it marks itself expired and runs `action` once.
public final class Expiry: Sendable {
    private let expired = Atomic<Bool>(false)

    /// Arms the timer.
    public init(after timeout: Duration, _ action: @escaping @Sendable () -> Void) {
        let deadline = DispatchTime.now() + .nanoseconds(Int(timeout / .nanoseconds(1)))
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in
            expired.store(true, ordering: .sequentiallyConsistent)
            action()
        }
    }

    /// Whether the timeout has passed.
    public var isExpired: Bool { expired.load(ordering: .sequentiallyConsistent) }
}
