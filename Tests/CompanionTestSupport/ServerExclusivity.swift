import Testing

/// A suite trait that runs a whole suite while holding one server to itself: two suites in different test
/// targets that reset the same server's fixture never run at the same time (`.serialized` orders tests
/// only inside one suite).
///
/// Rule: the lock is per server name and process-wide; it is taken once around the suite it is applied
/// to, so nested tests run as their own suite's traits say. Waiting is on a continuation, never a sleep.
public struct ServerExclusivity: SuiteTrait, TestScoping {
    /// The server held, such as `certain`.
    public let server: String

    /// Wraps the suite in the server's lock.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await ServerLocks.shared.acquire(server)
        do {
            try await function()
        } catch {
            await ServerLocks.shared.release(server)
            throw error
        }
        await ServerLocks.shared.release(server)
    }
}

extension Trait where Self == ServerExclusivity {
    /// Runs the suite with `server` held exclusively.
    public static func exclusive(_ server: String) -> Self { ServerExclusivity(server: server) }
}

/// The process-wide locks behind `ServerExclusivity`.
actor ServerLocks {
    static let shared = ServerLocks()

    private var held: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ server: String) async {
        guard held.contains(server) else {
            held.insert(server)
            return
        }
        await withCheckedContinuation { waiting[server, default: []].append($0) }
    }

    func release(_ server: String) {
        if var queue = waiting[server], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[server] = queue
            next.resume()
        } else {
            held.remove(server)
        }
    }
}

/// One caller at a time through a server's slow step, process-wide: Home Assistant checks a password with bcrypt
/// (cost 12) on two cores shared with the whole suite, so thirty sign-ins sent at once each waited past the
/// client's 30 s timeout on a clean clone's CI. Callers queue here, before their request is sent, so a request's
/// timeout counts only its own time at the server. Waiting is on a continuation, never a sleep.
public enum ServerTurn {
    /// Runs `body` while holding `step`'s turn (a name of its own, apart from the suite locks' server names).
    public static func take<T, E: Error>(
        _ step: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        let key = "turn:" + step
        await ServerLocks.shared.acquire(key)
        do {
            let value = try await body()
            await ServerLocks.shared.release(key)
            return value
        } catch {
            await ServerLocks.shared.release(key)
            throw error
        }
    }
}
