import CompanionHTTP
import CompanionScreen
import CompanionSync
import Foundation

/// One step of a screen's load: the state to show, and the failure behind it, if any.
public struct ScreenUpdate<Value: Sendable & Equatable>: Sendable {
    /// What the screen shows now.
    public let state: ScreenState<Value>
    /// The network failure behind this state (a cached fallback's, or the load's last), if any.
    public let failure: HTTPError?
    /// Whether `failure` is a refusal that the app's revocation rule says ends the sign-in.
    public let endsSignIn: Bool
}

extension ServerBundle {
    /// Reads `request` for a screen through the store under `policy`: every published value and the load's end
    /// become states, starting from `current` (what the screen shows now).
    ///
    /// Rules: a stored copy shows at once with its age; a failure keeps what is on screen (`offline` for
    /// connectivity, `stale` otherwise, with the app's sentence for it); a refusal the revocation rule says ends
    /// the sign-in keeps it too, unless the app's data policy deleted the data with the sign-in; a fresh answer
    /// for which `isEmpty` holds is `empty`. The stream never throws.
    public func read<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> AsyncStream<ScreenUpdate<Value>> {
        screen(fetcher.load(request, policy: policy), showing: current, isEmpty: isEmpty, transform)
    }

    /// Reads `request` for a screen whose state is the reply itself.
    public func read<Value: Sendable & Equatable>(
        _ request: Request<Value>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false }
    ) -> AsyncStream<ScreenUpdate<Value>> {
        read(request, policy: policy, showing: current, isEmpty: isEmpty) { $0 }
    }

    /// Reads `snapshot` for a screen, all or nothing (the stored group with its one time, then a fresh one).
    public func read<Response: Sendable, Value: Sendable & Equatable>(
        _ snapshot: Snapshot<Response>, policy: FetchPolicy = .staleWhileRevalidate,
        showing current: ScreenState<Value>, isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> AsyncStream<ScreenUpdate<Value>> {
        screen(snapshots.load(snapshot, policy: policy), showing: current, isEmpty: isEmpty, transform)
    }

    /// The last state `read` would publish: for a screen that waits for the whole load.
    public func state<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) async -> ScreenUpdate<Value> {
        var last = ScreenUpdate(state: current, failure: nil, endsSignIn: false)
        for await update in read(request, policy: policy, showing: current, isEmpty: isEmpty, transform) {
            last = update
        }
        return last
    }

    /// The state of a screen showing `current` after `error`, by the app's rules: the app's sentence, the
    /// revocation rule, and the data policy (content deleted with a wiping sign-out is not kept).
    public func failing<Value>(_ current: ScreenState<Value>, with error: any Error) -> ScreenUpdate<Value> {
        guard let http = SyncError.httpFailure(in: error) else {
            let sentence = String(describing: error)
            let state: ScreenState<Value> =
                current.value.map { .stale($0, age: current.age(at: clock.now()) ?? 0, problem: sentence) }
                ?? .failed(reason: sentence, signInRequired: false)
            return ScreenUpdate(state: state, failure: nil, endsSignIn: false)
        }
        let ends = endsSignIn(http)
        let state = current.failing(
            with: http, at: clock.now(), endsSignIn: ends, keepsContent: !(ends && profile.data.wipesOnRevocation),
            sentence: profile.sentence(http))
        return ScreenUpdate(state: state, failure: http, endsSignIn: ends)
    }

    private func screen<Response: Sendable, Value: Sendable & Equatable>(
        _ loads: AsyncThrowingStream<Loaded<Response>, any Error>, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool, _ transform: @escaping @Sendable (Response) -> Value
    ) -> AsyncStream<ScreenUpdate<Value>> {
        let (stream, continuation) = AsyncStream<ScreenUpdate<Value>>.makeStream()
        let bundle = self
        let task = Task {
            var shown = current
            do {
                for try await loaded in loads {
                    let value = loaded.map(transform)
                    var state = ScreenState(value, isEmpty: isEmpty)
                    if let failure = loaded.failure {
                        // A cached fallback: say it in the app's words.
                        let sentence = bundle.profile.sentence(failure)
                        state =
                            failure.isConnectivity
                            ? .offline(value.value, age: value.age, reason: sentence)
                            : .stale(value.value, age: value.age, problem: sentence)
                    }
                    shown = state
                    let ends = loaded.failure.map(bundle.endsSignIn) ?? false
                    continuation.yield(ScreenUpdate(state: state, failure: loaded.failure, endsSignIn: ends))
                }
            } catch {
                continuation.yield(bundle.failing(shown, with: error))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
