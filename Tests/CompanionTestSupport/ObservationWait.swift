import CompanionCore
import Observation

/// Waits until `condition` holds, checking it now and again after every change to the observable state
/// it reads (`withObservationTracking`): an event-driven wait, no sleeping and no polling. Tests using it
/// carry a `.timeLimit`, which bounds the wait.
@MainActor
public func waitUntilObserved(_ condition: @escaping @MainActor () -> Bool) async {
    while !condition() {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = condition()
            } onChange: {
                continuation.resume()
            }
        }
    }
}

/// `waitUntilObserved`, bounded: checks `condition` now and after every change to the observable state it
/// reads, and gives up after `timeout` (a one-shot timer, not a sleep), so a rule that breaks fails the test
/// instead of holding the run. Returns whether the condition held.
@MainActor
public func waitUntilObserved(upTo timeout: Duration, _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let gate = ObservationGate()
    _ = Expiry(after: timeout) { gate.expire() }
    while !condition() {
        if gate.isExpired { return false }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = condition()
            } onChange: {
                gate.wake()
            }
            gate.park(continuation)
        }
    }
    return true
}

/// Where `waitUntilObserved(upTo:)` parks: woken by a change or by the deadline, each wait resumed once.
public final class ObservationGate: Sendable {
    private let state = Locked<(waiting: CheckedContinuation<Void, Never>?, changed: Bool, expired: Bool)>(
        (nil, false, false))

    /// A gate with no wait parked, no change and no deadline passed.
    public init() {}

    /// Whether the deadline passed.
    public var isExpired: Bool { state.withLock { $0.expired } }

    /// Parks `continuation` until the next change or the deadline (at once if either came already).
    public func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLock { state -> Bool in
            if state.changed || state.expired {
                state.changed = false
                return true
            }
            state.waiting = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    /// A change: resumes the parked wait, or marks one for the next park.
    public func wake() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiting = nil }
            if state.waiting == nil { state.changed = true }
            return state.waiting
        }
        waiting?.resume()
    }

    /// The deadline: every wait from now on returns at once.
    public func expire() {
        state.withLock { $0.expired = true }
        wake()
    }
}
