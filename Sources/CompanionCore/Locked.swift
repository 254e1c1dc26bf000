#if COMPANION_TSAN
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif
#else
    import Synchronization
#endif

/// A value only one thread at a time can read or change: the kit's lock for shared mutable state.
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["pulls", default: 0] += 1 }
/// let pulls = counts.withLock { $0["pulls"] }
/// ```
///
/// Every normal build backs it with `Synchronization.Mutex`. A ThreadSanitizer build (`scripts/tsan` compiles with
/// `-DCOMPANION_TSAN`) backs it with a `pthread_mutex_t`, because ThreadSanitizer on Linux does not see a contended
/// `Mutex` hand its lock from one thread to the next (the hand-off is a priority-inheritance futex inside the
/// uninstrumented standard library), so it would report every critical section of a busy `Mutex` as a race
/// (`scripts/tsan --mutex-proof` shows it). It does intercept `pthread_mutex_lock`, so under that build a
/// critical section is ordered, and a real race (an access outside `withLock`) is still reported.
public final class Locked<Value>: Sendable {
    #if COMPANION_TSAN
        // Sendable without a checker: `value` is read and written only inside `withLock`, between
        // `pthread_mutex_lock` and `pthread_mutex_unlock` on `mutex`, which is allocated once, never moves and is
        // destroyed only in `deinit`, when no other thread can hold a reference.
        @usableFromInline nonisolated(unsafe) let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline nonisolated(unsafe) var value: Value
    #else
        @usableFromInline let mutex: Mutex<Value>
    #endif

    /// Creates a lock guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        #if COMPANION_TSAN
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            value = initialValue
        #else
            mutex = Mutex(initialValue)
        #endif
    }

    #if COMPANION_TSAN
        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    #endif

    /// Runs `body` with the value while holding the lock, and returns what `body` returns.
    ///
    /// `body` must not call `withLock` on the same lock: the lock is not recursive.
    @inlinable
    public func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if COMPANION_TSAN
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value)
        #else
            return try mutex.withLock(body)
        #endif
    }
}
