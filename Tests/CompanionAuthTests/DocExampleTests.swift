import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

// The example of docs/sign-in.md, compiled here so the article cannot rot.
actor AcmeSignIn: SignInServer {  // second factor and password change: default "not offered"
    let address: ServerAddress
    let client: Client
    var issued: StoredCredential?
    init(address: ServerAddress, policy: TransportPolicy) {
        (self.address, client) = (address, Client(baseURL: address.url, configuration: .init(transportPolicy: policy)))
    }

    func probe() async throws(AuthError) {
        do { _ = try await client.send(Request<JSONValue>.get("/api/version")) } catch {
            throw .notRecognized(reason: error.description)
        }
    }
    func signIn(username: String, password: String) async throws(AuthError) -> ServerStep {
        let login = Request<JSONValue>.post("/api/login", body: ["user": username, "password": password])
        guard let reply = try? await client.send(login), let token = reply["token"]?.stringValue
        else { return .refused(.wrongCredentials(serverSentence: nil)) }
        issued = StoredCredential(
            account: AccountKey(address: address, userID: reply["id"]?.stringValue ?? username), address: address,
            credential: .bearer(accessToken: token, refreshToken: nil, expiresAt: nil), storedAt: .now)
        return .authenticated
    }
    func issueCredential() async throws(AuthError) -> StoredCredential {
        guard let issued else { throw .invalidStep("not signed in") }
        return issued
    }
}

/// The docs example drives the same machine: it probes Certain's /api/version and is refused at a login
/// path Certain does not have.
@Suite struct DocExampleTests {
    @Test @MainActor func theDocumentedServerRunsThroughTheMachine() async throws {
        let url = try TestServers.url("CERTAIN_URL")
        let model = SignInModel(policy: .allowingInsecureLoopback, store: InMemorySecretStore()) {
            AcmeSignIn(address: $0, policy: .allowingInsecureLoopback)
        }
        await model.submitAddress(url.absoluteString)
        #expect(model.state == .enteringPassword(try SignInFixture.address(url), problem: nil))
        await model.submitPassword(username: "plain", password: "irrelevant-Passw0rd")
        guard case .enteringPassword(_, .wrongCredentials?) = model.state else {
            Issue.record("expected a refusal, got \(model.state)")
            return
        }
        await model.submitCode("123456")
        #expect(model.state.problem != nil)
    }
}
