#if os(Linux) && canImport(CCurl)
    import CompanionCore

    /// The messages a `CurlWebSocket` read and its reader has not taken yet: what its `messages` stream yields.
    ///
    /// Why not `AsyncThrowingStream`'s continuation: each `yield` and each `next` there goes through its generic
    /// storage, which looks type metadata up at run time (`yield` alone took about 3,900 instructions a message in
    /// P11's profile). Here the
    /// connection's thread hands over every message it read in one go (`push`, one lock), and the reader takes
    /// them one at a time under a lock of its own, waiting (once) only when none is left.
    ///
    /// Rules (those of the continuation it replaces): messages come out in the order pushed; after `finish` the
    /// messages already pushed still come out, then the error once (if any), then the end. A reader's task
    /// cancelled while it waits ends the stream (`nil`, the rest dropped) and calls `onCancel` once.
    final class CurlWebSocketInbox: Sendable {
        private struct State {
            var messages: [ChannelMessage] = []
            /// The next message to hand out (`messages` is emptied when it reaches the end).
            var head = 0
            var waiters: [CheckedContinuation<Void, Never>] = []
            var finished = false
            /// The error to throw once the messages are all taken (`nil` once thrown).
            var error: (any Error)?
            var cancelled = false
            var onCancel: (@Sendable () -> Void)?
        }

        /// What a reader finds.
        private enum Taken {
            case message(ChannelMessage)
            case failure(any Error)
            case end
            case none
        }

        private let state = Locked(State())

        /// Sets what a cancelled reader calls (once): closing the connection.
        func onCancel(_ action: @escaping @Sendable () -> Void) {
            state.withLock { $0.onCancel = action }
        }

        /// Adds `messages` in order, and wakes a waiting reader.
        func push(_ messages: [ChannelMessage]) {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                guard !state.finished, !state.cancelled else { return [] }
                state.messages.append(contentsOf: messages)
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Ends the stream after the messages already pushed: with `error`, or cleanly.
        func finish(_ error: (any Error)?) {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                guard !state.finished else { return [] }
                state.finished = true
                state.error = error
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// The next message; `nil` at the end. The stream's `unfolding` closure.
        func next() async throws -> ChannelMessage? {
            while true {
                switch state.withLock({ Self.take(&$0) }) {
                case .message(let message): return message
                case .failure(let error): throw error
                case .end: return nil
                case .none: break
                }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                        let ready = state.withLock { state in
                            if state.head < state.messages.count || state.finished || state.cancelled { return true }
                            state.waiters.append(waiter)
                            return false
                        }
                        if ready { waiter.resume() }
                    }
                } onCancel: {
                    cancel()
                }
            }
        }

        private static func take(_ state: inout State) -> Taken {
            if state.cancelled { return .end }
            if state.head < state.messages.count {
                let message = state.messages[state.head]
                state.head += 1
                if state.head == state.messages.count {
                    state.messages.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return .message(message)
            }
            guard state.finished else { return .none }
            if let error = state.error {
                state.error = nil
                return .failure(error)
            }
            return .end
        }

        /// The reader's task was cancelled: the stream ends, waiting readers wake, and `onCancel` runs once.
        private func cancel() {
            let (waiters, action) = state.withLock {
                state -> ([CheckedContinuation<Void, Never>], (@Sendable () -> Void)?) in
                guard !state.cancelled, !state.finished else { return ([], nil) }
                state.cancelled = true
                state.messages.removeAll()
                state.head = 0
                defer {
                    state.waiters.removeAll()
                    state.onCancel = nil
                }
                return (state.waiters, state.onCancel)
            }
            for waiter in waiters { waiter.resume() }
            action?()
        }
    }
#endif
