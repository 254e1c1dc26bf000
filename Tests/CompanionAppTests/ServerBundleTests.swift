import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionScreen
import CompanionStore
import CompanionSync
import CompanionTestSupport
import Foundation
import Testing

/// The kit's one road for reading: a `ServerBundle` reads through its store into `ScreenState`s, and the app's
/// revocation rule and data policy decide what a refusal does. Every case runs against the fault server.
@Suite("Server bundle: reading a screen through the kit")
struct ServerBundleTests {
    static let profile = AppProfile(userAgent: "BundleTests/1.0", retryPolicy: .never)
    static let ada = AccountKey(serverKey: "bundle-tests", userID: "ada")

    static func bundle(
        _ url: URL, profile: AppProfile = profile, account: AccountKey = ada, session: CredentialSession? = nil,
        environment: AppEnvironment
    ) async throws -> ServerBundle {
        try await ServerBundle.open(url, account: account, profile: profile, session: session, environment: environment)
    }

    static func updates<Value>(_ stream: AsyncStream<ScreenUpdate<Value>>) async -> [ScreenUpdate<Value>] {
        var all: [ScreenUpdate<Value>] = []
        for await update in stream { all.append(update) }
        return all
    }

    static var dead: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }

    @Test("the stored copy shows at once with its age, then the server's answer")
    func storedThenFresh() async throws {
        let clock = ManualWallClock()
        let environment = TestEnvironments.loopback(clock: clock)
        let online = try await Self.bundle(try TestServers.fault(), environment: environment)
        let request = Request<JSONValue>.get("/items", query: ["limit": "2"])
        let first = await Self.updates(online.read(request, showing: ScreenState<JSONValue>.loading))
        #expect(first.map(\.state.kind) == [.content])
        clock.advance(by: 90)
        let second = await Self.updates(online.read(request, showing: ScreenState<JSONValue>.loading))
        #expect(second.map(\.state.kind) == [.stale, .content])
        #expect(second.first?.state.age == 90)
        #expect(second.first?.state.value == first.first?.state.value)
    }

    @Test("a failed refresh keeps what is shown, aged by the clock, offline when the server cannot be reached")
    func failureKeepsContentWithItsAge() async throws {
        let clock = ManualWallClock()
        let environment = TestEnvironments.loopback(clock: clock)
        let online = try await Self.bundle(try TestServers.fault(), environment: environment)
        let request = Request<JSONValue>.get("/items", query: ["limit": "2"])
        let shown = try #require(
            await Self.updates(online.read(request, showing: ScreenState<JSONValue>.loading)).last?.state)
        #expect(shown.kind == .content)
        clock.advance(by: 42)
        // The same account on an address where nothing listens: the same store, no server.
        let offline = try await Self.bundle(Self.dead, environment: environment)
        let after = await Self.updates(offline.read(request, policy: .fresh, showing: shown))
        let state = try #require(after.last?.state)
        #expect(state.kind == .offline)
        #expect(state.age == 42)
        #expect(state.value == shown.value)
        #expect(after.last?.failure?.isConnectivity == true)
    }

    @Test("an answer with nothing in it is `empty` with its value, not content")
    func emptyAnswer() async throws {
        let environment = TestEnvironments.loopback()
        let online = try await Self.bundle(try TestServers.fault(), environment: environment)
        let request = Request<JSONValue>.get("/items", query: ["total": "0"])
        let states = await Self.updates(
            online.read(request, showing: ScreenState<[JSONValue]>.loading, isEmpty: { $0.isEmpty }) {
                $0["data"]?.arrayValue ?? []
            })
        #expect(states.map(\.state.kind) == [.empty])
        #expect(states.last?.state.value == [])
        #expect(states.last?.state.fetchedAt != nil)
    }

    @Test("a refusal the app's rule says ends the sign-in signs out and keeps what is shown (data kept)")
    func revocationKeepsContent() async throws {
        let environment = TestEnvironments.loopback()
        let fault = try TestServers.fault()
        let request = Request<JSONValue>.get("/auth/required")
        let good = try await Self.signedIn(token: "good-token", fault, environment)
        let goodBundle = try await Self.bundle(fault, session: good, environment: environment)
        let shown = try #require(
            await Self.updates(goodBundle.read(request, policy: .fresh, showing: ScreenState<JSONValue>.loading)).last)
        #expect(shown.state.kind == .content)

        let bad = try await Self.signedIn(token: "spent-token", fault, environment)
        let refused = try await Self.bundle(fault, session: bad, environment: environment)
        let after = try #require(await Self.updates(refused.read(request, policy: .fresh, showing: shown.state)).last)
        #expect(after.endsSignIn)
        #expect(after.failure?.statusCode == 401)
        #expect(after.state.kind == .stale)
        #expect(after.state.value == shown.state.value)
        #expect(after.state.problem?.contains("Authentication required") == true)
        #expect(await bad.credential == nil)
        #expect(try await refused.store.resource(CachedFetcher.key(for: request)) != nil)
    }

    @Test("under a wiping data policy the same refusal deletes the account's data and empties the screen")
    func revocationWipesUnderItsPolicy() async throws {
        let environment = TestEnvironments.loopback()
        let fault = try TestServers.fault()
        var wiping = Self.profile
        wiping.data = DataPolicy(storage: .offline, wipesOnRevocation: true)
        let request = Request<JSONValue>.get("/auth/required")
        let good = try await Self.signedIn(token: "good-token", fault, environment)
        let online = try await Self.bundle(fault, profile: wiping, session: good, environment: environment)
        let shown = try #require(
            await Self.updates(online.read(request, policy: .fresh, showing: ScreenState<JSONValue>.loading)).last)
        _ = try await online.store.saveDraft("kept?", body: Data("draft".utf8))

        let bad = try await Self.signedIn(token: "spent-token", fault, environment)
        let refused = try await Self.bundle(fault, profile: wiping, session: bad, environment: environment)
        let after = try #require(await Self.updates(refused.read(request, policy: .fresh, showing: shown.state)).last)
        #expect(after.state == .failed(reason: try #require(after.failure).description, signInRequired: true))
        #expect(try await online.store.resource(CachedFetcher.key(for: request)) == nil)
        #expect(try await online.store.draft("kept?") == nil)
    }

    @Test("a refusal outside the app's rule (a proxy's HTML 403) keeps the sign-in and what is shown")
    func refusalOutsideTheRuleKeepsTheSignIn() async throws {
        let environment = TestEnvironments.loopback()
        let fault = try TestServers.fault()
        var profile = Self.profile
        profile.revocation = RevocationRule(statuses: [401, 403], endingCodes: [403: ["forbidden"]])
        profile.data = DataPolicy(storage: .offline, wipesOnRevocation: true)
        let session = try await Self.signedIn(token: "good-token", fault, environment)
        let bundle = try await Self.bundle(fault, profile: profile, session: session, environment: environment)
        let shown = ScreenState<JSONValue>.content(["kept": true], fetchedAt: environment.clock.now())
        let request = Request<JSONValue>.get("/status/403", query: ["envelope": "html"])
        let after = try #require(await Self.updates(bundle.read(request, policy: .fresh, showing: shown)).last)
        #expect(after.failure?.statusCode == 403)
        #expect(!after.endsSignIn)
        #expect(after.state.kind == .stale)
        #expect(after.state.value == ["kept": true])
        #expect(await session.credential != nil)
        // The same status in the server's own JSON envelope, with a code the rule names, does end it.
        let coded = Request<JSONValue>.get("/status/403", query: ["envelope": "omnigent"])
        let ended = try #require(await Self.updates(bundle.read(coded, policy: .fresh, showing: shown)).last)
        #expect(ended.endsSignIn)
        #expect(await session.credential == nil)
    }

    @Test("a snapshot shows the stored group with its one time; a failing member stores nothing of the attempt")
    func snapshotAllOrNothing() async throws {
        let clock = ManualWallClock()
        let environment = TestEnvironments.loopback(clock: clock)
        let online = try await Self.bundle(try TestServers.fault(), environment: environment)
        let items = Request<JSONValue>.get("/items", query: ["limit": "1"])
        let json = Request<JSONValue>.get("/json")
        let pair = Snapshot<[JSONValue]>("pair", members: ["items": items, "json": json]) { members throws(HTTPError) in
            [try members.value(items), try members.value(json)]
        }
        let first = try #require(
            await Self.updates(online.read(pair, showing: ScreenState<[JSONValue]>.loading) { $0 }).last)
        #expect(first.state.kind == .content)
        let storedAt = try #require(try await online.snapshots.stored(pair)?.fetchedAt)
        clock.advance(by: 30)

        let broken = Request<JSONValue>.get("/status/500")
        let failing = Snapshot<[JSONValue]>("pair", members: ["items": items, "json": broken]) {
            members throws(HTTPError) in
            [try members.value(items), try members.value(broken)]
        }
        let after = try #require(
            await Self.updates(online.read(failing, policy: .fresh, showing: first.state) { $0 }).last)
        #expect(after.state.kind == .stale)
        #expect(after.state.value == first.state.value)
        #expect(try await online.snapshots.stored(pair)?.fetchedAt == storedAt)
        #expect(try await online.snapshots.stored(pair)?.age == 30)
    }

    /// A session holding a bearer token for the fault server's `/auth/required`.
    static func signedIn(token: String, _ fault: URL, _ environment: AppEnvironment) async throws -> CredentialSession {
        let address = try environment.address(fault.absoluteString)
        let stored = StoredCredential(
            account: ada, address: address, credential: .bearer(accessToken: token, refreshToken: nil, expiresAt: nil),
            storedAt: environment.clock.now())
        let session = CredentialSession(stored: stored, store: environment.secrets, journal: environment.journal)
        try await session.use(stored)
        return session
    }

    @Test("a client with a redirect rule of its own follows what the rule allows and never requests what it refuses")
    func redirectRestrictedClient() async throws {
        let fault = try TestServers.fault()
        guard let host = fault.host, let port = fault.port else { throw TestFailure("the fault server has no origin") }
        let sameOrigin = RedirectPolicy(maxRedirects: 5) { $0.host == host && $0.port == port }
        let environment = TestEnvironments.loopback()
        let client = environment.client(for: fault, profile: Self.profile, redirects: sameOrigin)
        // Within the origin: followed.
        let followed = try await client.send(Request<JSONValue>.get("/redirect", query: ["to": "/ok"]))
        #expect(followed["ok"] == .bool(true))
        // To the second origin: refused before any request reaches it.
        let log = TestClients.loopback(fault)
        let before = try await log.send(Request<JSONValue>.get("/_secondary_log")).arrayValue?.count ?? 0
        await #expect(throws: HTTPError.self) {
            _ = try await client.send(
                Request<JSONValue>.get("/redirect-cross-origin", query: ["path": "/echo-headers?bundle-test=1"]))
        }
        let after = try await log.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        #expect(!after.dropFirst(before).contains { $0["path"]?.stringValue?.contains("bundle-test") == true })
        // The environment's own client follows that hop (its rule is only the transport policy).
        let plain = environment.client(for: fault, profile: Self.profile)
        let elsewhere = try await plain.send(
            Request<JSONValue>.get("/redirect-cross-origin", query: ["path": "/echo-headers?bundle-test=2"]))
        #expect(elsewhere["path"] == .string("/echo-headers"))
        let last = try await log.send(Request<JSONValue>.get("/_secondary_log")).arrayValue ?? []
        #expect(last.contains { $0["path"]?.stringValue?.contains("bundle-test=2") == true }, "the log sees such hops")
    }
}

/// A failed precondition of a test.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
