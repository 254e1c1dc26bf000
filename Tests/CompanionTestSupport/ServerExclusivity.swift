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
