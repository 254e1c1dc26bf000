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
