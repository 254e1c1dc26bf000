import CompanionCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Fans committed store changes out to every subscriber.
///
/// Rule: a change is published only after its transaction committed, so a screen that reloads on
/// a change always reads the new state. Subscribers that stop iterating are dropped.
final class ChangeFeed: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<StoreChange>.Continuation]>([:])

    func subscribe() -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations {
            for change in changes { continuation.yield(change) }
        }
    }
}
