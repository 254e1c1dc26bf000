import CompanionHTTP
import CompanionScreen
import CompanionStore
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
    /// The load's failure as the store and network layer reported it, when the load failed (a reply that did not
    /// decode, nothing stored to read offline, a store failure, or an HTTP failure), so an app can word it.
    public var cause: SyncError? = nil
}

/// A read that failed, as the app's wording hook (`AppProfile.sentence`) sees it: what failed, which read, and
/// whether the screen keeps a value.
public struct ReadFailure: Sendable, CustomStringConvertible {
    /// The failure as the store and network layer reported it; `nil` for another error (an app's own).
    public let cause: SyncError?
    /// What failed, in the error's own words.
    public let detail: String
    /// The key of the read in the store (a request's cache key, a group's name, a list's key), when known.
    public let key: String?
    /// Whether the screen keeps showing a value (stale or offline), or has nothing to show (failed).
    public let keepsValue: Bool

    /// Creates the context of a read that failed with `error`.
    public init(_ error: any Error, key: String? = nil, keepsValue: Bool) {
        self.cause =
            switch error {
            case let error as SyncError: error
            case let error as HTTPError: .http(error)
            case let error as StoreError: .store(error)
            default: nil
            }
        self.detail = String(describing: error)
        self.key = key
        self.keepsValue = keepsValue
    }

    /// The HTTP failure behind it, if it is one.
    public var http: HTTPError? { cause.flatMap { SyncError.httpFailure(in: $0) } }

    /// The kit's sentence: the HTTP failure's own (the server's words where it sent some), else the cause's, else
    /// the error's own.
    public var description: String { http?.description ?? cause?.description ?? detail }
}

extension ServerBundle {
    /// The state of a screen showing `current` after `error`: the kit's one failure rule.
    ///
    /// Rules: what is shown stays (`offline` when the server cannot be reached, `stale` with the sentence
    /// otherwise, aged by the clock); with nothing shown the screen is `failed`. The sentence is the app's
    /// (`AppProfile.sentence`, given the read's context). Only the app's revocation rule decides whether a refusal
    /// ends the sign-in (then `failed` says sign-in is required); under a wiping data policy that ending deletes
    /// what was shown too.
    ///
    /// - Parameters:
    ///   - current: What the screen shows now.
    ///   - error: What the read (or write) failed with.
    ///   - key: The read's key in the store, for the wording hook.
    public func failing<Value>(
        _ current: ScreenState<Value>, with error: any Error, reading key: String? = nil
    ) -> ScreenUpdate<Value> {
        let http = SyncError.httpFailure(in: error)
        let ends = http.map(endsSignIn) ?? false
        let value = ends && profile.data.wipesOnRevocation ? nil : current.value
        let context = ReadFailure(error, key: key, keepsValue: value != nil)
        let sentence = profile.sentence(context)
        let state: ScreenState<Value>
        if let value {
            let age = current.age(at: clock.now()) ?? 0
            state =
                http?.isConnectivity == true
                ? .offline(value, age: age, reason: sentence) : .stale(value, age: age, problem: sentence)
        } else {
            state = .failed(reason: sentence, signInRequired: ends)
        }
        return ScreenUpdate(state: state, failure: http, endsSignIn: ends, cause: context.cause)
    }

    /// The app's sentence for `error` outside a read (a write's refusal shown next to what the screen shows).
    public func sentence(for error: HTTPError) -> String {
        profile.sentence(ReadFailure(error, keepsValue: true))
    }

    /// The state a published value puts a screen in: a fresh answer is content (`empty` when `isEmpty` holds); a
    /// stored copy is `stale` with its age, and a stored copy shown because the network failed is `offline` or
    /// `stale` with the app's sentence for the failure.
    func update<Value>(
        for loaded: Published<Value>, isEmpty: (Value) -> Bool, key: String? = nil
    ) -> ScreenUpdate<Value> {
        let state: ScreenState<Value>
        if loaded.isFresh {
            state =
                isEmpty(loaded.value)
                ? .empty(loaded.value, fetchedAt: loaded.fetchedAt)
                : .content(loaded.value, fetchedAt: loaded.fetchedAt)
        } else {
            if let failure = loaded.failure {
                let sentence = profile.sentence(ReadFailure(failure, key: key, keepsValue: true))
                state =
                    failure.isConnectivity
                    ? .offline(loaded.value, age: loaded.age, reason: sentence)
                    : .stale(loaded.value, age: loaded.age, problem: sentence)
            } else {
                state = .stale(loaded.value, age: loaded.age, problem: nil)
            }
        }
        let ends = loaded.failure.map(endsSignIn) ?? false
        return ScreenUpdate(state: state, failure: loaded.failure, endsSignIn: ends)
    }

    /// Reads `request` for a screen through the store under `policy`: every published value and the load's end
    /// become states, starting from `current`. Not public: an app's one road to a screen is a feed (`feed(_:)`),
    /// which also observes the store; the kit's and the cores' tests read the state rules through this.
    package func read<Response: Sendable, Value: Sendable & Equatable>(
        _ request: Request<Response>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> AsyncStream<ScreenUpdate<Value>> {
        screen(
            Self.mapped(fetcher.load(request, policy: policy)) { Published($0).map(transform) },
            key: CachedFetcher.key(for: request),
            showing: current, isEmpty: isEmpty)
    }

    /// Reads `request` for a screen whose state is the reply itself.
    package func read<Value: Sendable & Equatable>(
        _ request: Request<Value>, policy: FetchPolicy = .staleWhileRevalidate, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false }
    ) -> AsyncStream<ScreenUpdate<Value>> {
        read(request, policy: policy, showing: current, isEmpty: isEmpty) { $0 }
    }

    /// Reads `snapshot` for a screen, all or nothing (the stored group with its one time, then a fresh one).
    package func read<Response: Sendable, Value: Sendable & Equatable>(
        _ snapshot: Snapshot<Response>, policy: FetchPolicy = .staleWhileRevalidate,
        showing current: ScreenState<Value>, isEmpty: @escaping @Sendable (Value) -> Bool = { _ in false },
        _ transform: @escaping @Sendable (Response) -> Value
    ) -> AsyncStream<ScreenUpdate<Value>> {
        screen(
            Self.mapped(snapshots.load(snapshot, policy: policy)) { Published($0).map(transform) }, key: snapshot.name,
            showing: current,
            isEmpty: isEmpty)
    }

    private func screen<Value: Sendable & Equatable>(
        _ loads: AsyncThrowingStream<Published<Value>, any Error>, key: String, showing current: ScreenState<Value>,
        isEmpty: @escaping @Sendable (Value) -> Bool
    ) -> AsyncStream<ScreenUpdate<Value>> {
        let (stream, continuation) = AsyncStream<ScreenUpdate<Value>>.makeStream()
        let bundle = self
        let task = Task {
            var shown = current
            do {
                for try await loaded in loads {
                    let update = bundle.update(for: loaded, isEmpty: isEmpty, key: key)
                    shown = update.state
                    continuation.yield(update)
                }
            } catch {
                continuation.yield(bundle.failing(shown, with: error, reading: key))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
