import CertainCore
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

/// Certain's revocation rule against the fault server, through Certain's own profile and server type: only a 401
/// or 403 in Certain's JSON envelope with a credential code signs out; a reverse proxy's page never does, and
/// the offline data stays.
@Suite("Certain's revocation rule against the fault server")
struct RevocationRuleTests {
    /// The Certain core signed in (a device token) to the fault server, with offline data in a folder.
    static func signedIn(_ folder: TemporaryFolder) async throws -> (CertainServer, StoredCredential) {
        let environment = TestEnvironments.loopback(stores: .directory(folder.url), sleeper: RecordingSleeper())
        let address = try environment.address(try TestServers.fault().absoluteString)
        let stored = StoredCredential(
            account: AccountKey(address: address, userID: "1"), address: address,
            credential: .headerToken(header: CertainSignIn.tokenHeader, value: "ctk_fault-test-token"), serverID: "7",
            storedAt: environment.clock.now())
        try environment.secrets.save(stored)
        return (try await CertainServer.open(stored, environment: environment), stored)
    }

    static func last<Value>(_ stream: AsyncStream<ScreenUpdate<Value>>) async -> ScreenUpdate<Value>? {
        var last: ScreenUpdate<Value>?
        for await update in stream { last = update }
        return last
    }

    @Test("C-TOK-6 C-OFF-5: a proxy's HTML 403 or 401 keeps the sign-in, what is shown and the offline data")
    func aProxyPageKeepsTheSignIn() async throws {
        let folder = try TemporaryFolder()
        let (server, stored) = try await Self.signedIn(folder)
        let items = Request<JSONValue>.get("/items", query: ["limit": "2"])
        let shown = try #require(await Self.last(server.bundle.read(items, showing: ScreenState<JSONValue>.loading)))
        #expect(shown.state.kind == .content)
        for status in ["403", "401"] {
            let page = Request<JSONValue>.get("/status/\(status)", query: ["envelope": "html"])
            let after = try #require(await Self.last(server.bundle.read(page, policy: .fresh, showing: shown.state)))
            #expect(after.failure?.statusCode == Int(status))
            #expect(!after.endsSignIn, "\(status)")
            #expect(after.state.kind == .stale && after.state.value == shown.state.value, "\(status)")
            // The kit's sentence (status and the page's title), not a sign-in prompt.
            #expect(after.state.problem?.contains("status \(status)") == true, "\(after.state)")
            #expect(!after.state.signInRequired)
        }
        // Other envelopes without Certain's credential codes (the fault server's own, FastAPI's list) keep it too.
        for envelope in ["omnigent", "fastapi", "plain", "none"] {
            let refusal = Request<JSONValue>.get("/status/401", query: ["envelope": envelope])
            let after = try #require(await Self.last(server.bundle.read(refusal, policy: .fresh, showing: shown.state)))
            #expect(!after.endsSignIn, "\(envelope)")
        }
        #expect(await server.session?.credential == stored)
        #expect(try server.bundle.secrets.load(stored.account) == stored)
        #expect(try await server.bundle.store.resource(CachedFetcher.key(for: items)) != nil)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).contains { $0.hasSuffix(".sqlite") })
    }

    @Test("C-TOK-6: Certain's rule, status by status: which refusals end the sign-in")
    func theRuleNamesCertainsCodesOnly() {
        let rule = CertainServer.revocation
        func envelope(_ code: String?) -> ServerErrorEnvelope {
            ServerErrorEnvelope(code: code, message: "…", details: ["detail": "…"])
        }
        for code in ["not_authenticated", "session_expired", "token_revoked"] {
            #expect(rule.ends(status: 401, envelope: envelope(code)), "401 \(code)")
        }
        #expect(rule.ends(status: 403, envelope: envelope("token_revoked")))
        for code in ["token_cannot_mint", "cookie_required", "password_change_required", "mfa_setup_required", nil] {
            #expect(!rule.ends(status: 403, envelope: envelope(code)), "403 \(code ?? "none")")
        }
        #expect(!rule.ends(status: 403, envelope: ServerErrorEnvelope(message: "403 Forbidden")))  // an HTML title
        #expect(!rule.ends(status: 401, envelope: nil))
        #expect(!rule.ends(status: 410, envelope: envelope("token_revoked")))
        #expect(!rule.ends(status: 500, envelope: envelope("token_revoked")))
    }
}

extension CertainStandIn {
    /// The same rule through the Certain core's screens against the Certain stand-in: a proxy page in front of
    /// the API, and Certain's own refusals.
    @Suite struct RevocationTests {
        let server: ReferenceServer

        init() async throws {
            server = try ReferenceServer()
            try await server.reset()
        }

        /// Signed in with offline data in a folder of its own, the accounts tab loaded.
        @MainActor func signedIn() async throws -> (TemporaryFolder, Connected, AccountsModel) {
            let folder = try TemporaryFolder()
            let environment = TestEnvironments.loopback(stores: .directory(folder.url), sleeper: RecordingSleeper())
            let account = try await server.connect(environment: environment)
            let model = AccountsModel(server: account.server)
            await model.load()
            return (folder, account, model)
        }

        static let proxyPage = """
            <html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1></center>\
            <hr><center>nginx</center></body></html>
            """

        @Test(
            "C-TOK-6 C-OFF-5 C-ERR-1: a reverse proxy's 403 page is an error shown with the content kept; still signed in"
        )
        @MainActor func aProxyPageKeepsTheContentAndTheSignIn() async throws {
            let (folder, account, model) = try await signedIn()
            let accounts = try #require(model.state.value)
            try await server.post(
                "/_control/fail",
                [
                    "path": "/api/accounts", "status": 403, "times": 1, "body": .string(Self.proxyPage),
                    "content_type": "text/html",
                ])
            await model.load()
            guard case .stale(let kept, _, let problem?) = model.state else { throw Failure("\(model.state)") }
            #expect(kept == accounts)
            #expect(problem.contains("403") && problem.contains("403 Forbidden"), "\(problem)")
            #expect(!model.state.signInRequired)
            #expect(await account.session?.credential == account.stored)
            #expect(try account.secrets.load(account.stored.account) == account.stored)
            #expect(try await account.server.bundle.store.resource(CachedFetcher.key(for: CertainAPI.accounts)) != nil)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).contains {
                    $0.hasSuffix(".sqlite")
                })
            // Still signed in: the next load carries the token and is answered.
            await model.load()
            #expect(model.state.kind == .content)
        }

        @Test(
            "C-TOK-6 C-OFF-5: a 403 in Certain's envelope with token_revoked signs out and wipes; a permission 403 does not"
        )
        @MainActor func certainsOwn403() async throws {
            let (folder, account, model) = try await signedIn()
            // A 403 that only means "a device token may not do this" keeps everything.
            let refused = await #expect(throws: HTTPError.self) {
                try await account.server.bundle.client.send(Request<JSONValue>.get("/api/inbox/tokens"))
            }
            #expect(refused?.statusCode == 403 && refused?.envelope?.code == "cookie_required")
            #expect(await account.session?.credential != nil)
            // Certain's own envelope with a token code ends it: signed out, the offline data deleted.
            let body = #"{"detail": "Die Gerätemarke wurde widerrufen.", "code": "token_revoked"}"#
            try await server.post(
                "/_control/fail", ["path": "/api/accounts", "status": 403, "times": 1, "body": .string(body)])
            await model.load()
            #expect(model.state == .failed(reason: "Die Gerätemarke wurde widerrufen.", signInRequired: true))
            #expect(await account.session?.credential == nil)
            #expect(try account.secrets.load(account.stored.account) == nil)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            #expect(!files.contains { $0.contains(".sqlite") }, "\(files)")
        }
    }
}
