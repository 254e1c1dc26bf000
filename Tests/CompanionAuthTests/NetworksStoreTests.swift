import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// Network settings and client identities in the secret store, beside the credential (docs/networks.md,
/// NET-STORE-*), and the proxy's refusals never signing the app out (NET-PROXY-2).
@Suite("Self-hosted networks: settings in the secret store")
struct NetworksStoreTests {
    let server: ServerAddress
    let other: ServerAddress

    init() throws {
        server = try ServerAddress(parsing: "https://home.example.com:8443")
        other = try ServerAddress(parsing: "https://nas.example.com")
    }

    func identity() throws -> ClientIdentity {
        try ClientIdentity(
            importing: try NginxServer.clientP12(), passphrase: try NginxServer.p12Passphrase(),
            at: Date(timeIntervalSince1970: 1_764_400_000))
    }

    @Test(
        "NET-STORE-1: pins, CAs, the identity assignment, proxy credentials and the internal address are stored per server key, sealed, beside the credential"
    )
    func settingsRoundTripSealed() throws {
        let folder = SignInFixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileSecretStore(folder: folder)
        let credential = StoredCredential(
            account: AccountKey(address: server, userID: "7"), address: server,
            credential: .bearer(accessToken: "network-store-access", refreshToken: nil, expiresAt: nil),
            storedAt: Date(timeIntervalSince1970: 1_764_400_000))
        try store.save(credential)
        let settings = NetworkSettings(store: store, clock: ManualWallClock())
        let certificate = try ServerCertificate(
            der: try #require(try ServerCertificate.certificates(in: try NginxServer.pkiFile("selfsigned.pem")).first))
        let identity = try identity()
        try settings.pin(certificate, for: server)
        try settings.trustCA(try NginxServer.rootDER(), for: server)
        try settings.assign(identity, to: [server, other])
        try settings.update(server) {
            $0.proxyCredential = ProxyCredential(user: "home", password: "proxy-password-in-the-store")
            $0.internalAddress = try? ServerAddress(parsing: "https://127.0.0.1:8443")
        }

        // A new handle on the same folder reads the same settings back.
        let reopened = NetworkSettings(store: FileSecretStore(folder: folder))
        let network = try reopened.network(for: server)
        #expect(network.trust.pins.map(\.pin) == [certificate.publicKeyPin])
        #expect(network.trust.anchors == [try NginxServer.rootDER()])
        #expect(network.identityID == identity.id)
        #expect(network.proxyCredential?.password == "proxy-password-in-the-store")
        #expect(network.internalAddress?.serverKey == "https://127.0.0.1:8443")
        #expect(try reopened.network(for: other).identityID == identity.id)
        #expect(try reopened.identities().map(\.id) == [identity.id], "one identity stored once for two servers")
        #expect(try reopened.identity(identity.id)?.passphrase == identity.passphrase)
        // The credential is untouched and still the only account; nothing is readable on disk.
        #expect(try store.accounts() == [credential.account])
        #expect(try store.load(credential.account) == credential)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let text = String(decoding: data, as: UTF8.self)
            for secret in ["proxy-password-in-the-store", identity.passphrase, "network-store-access", "PRIVATE KEY"] {
                #expect(!text.contains(secret), "\(name) holds a secret in clear")
            }
            #expect(data.range(of: identity.pkcs12.prefix(64)) == nil)
            let mode =
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[
                    .posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // Nothing set: no record at all.
        try reopened.save(ServerNetwork(server: server))
        #expect(try store.loadRecord(SecretRecordKey(.network, server.serverKey)) == nil)
    }

    @Test("NET-STORE-2: a record sealed for one key does not open under another; damage is typed and local")
    func recordsAreBoundToTheirKeys() throws {
        let folder = SignInFixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileSecretStore(folder: folder)
        let first = SecretRecordKey(.network, server.serverKey)
        let second = SecretRecordKey(.network, other.serverKey)
        try store.saveRecord(Data("{}".utf8), for: first)
        try store.saveRecord(Data("{}".utf8), for: second)
        let firstFile = folder.appendingPathComponent(first.storageName + ".secret")
        let secondFile = folder.appendingPathComponent(second.storageName + ".secret")
        try FileManager.default.removeItem(at: secondFile)
        try FileManager.default.copyItem(at: firstFile, to: secondFile)
        #expect(throws: SecretStoreError.damaged(account: second.description)) { try store.loadRecord(second) }
        #expect(try store.loadRecord(first) == Data("{}".utf8))
        #expect(try store.recordKeys(.network).count == 2)
        #expect(try store.recordKeys(.identity).isEmpty)
        #expect(try store.accounts().isEmpty, "records are never listed as accounts")
        let memory = InMemorySecretStore()
        memory.saveRecord(Data("x".utf8), for: first)
        #expect(memory.loadRecord(first) == Data("x".utf8))
        #expect(memory.recordKeys(.network) == [first])
    }

    @Test(
        "NET-PROXY-2: a proxy's Basic challenge and its sign-in pages never sign the app out"
    )
    func proxyRefusalsNeverSignOut() async throws {
        let fault = try NginxServer.url(.fault)
        let address = try ServerAddress(parsing: fault.absoluteString)
        let stored = StoredCredential(
            account: AccountKey(address: address, userID: "1"), address: address,
            credential: .sessionToken("app-session-not-signed-out"), storedAt: Date())
        let store = InMemorySecretStore()
        store.save(stored)
        let session = CredentialSession(stored: stored, store: store)
        let transport = ServerNetwork(server: address, trust: ServerTrust(anchors: [try NginxServer.rootDER()]))
            .transport(identity: nil)
        let client = Client(
            baseURL: fault,
            configuration: Client.Configuration(
                retryPolicy: .never, middlewares: [AuthenticationMiddleware(session: session)]),
            transport: transport)
        for path in ["/basic/ok", "/sso/ok", "/sso-page/ok"] {
            do {
                _ = try await client.send(Request<JSONValue>.get(path))
                Issue.record("\(path) answered")
            } catch {
                guard case .proxySignInRequired = error else {
                    Issue.record("\(path): expected proxySignInRequired, got \(error)")
                    continue
                }
            }
        }
        #expect(await session.status == .signedIn(stored.account))
        #expect(store.load(stored.account) == stored)
        // The app's own 401 still signs out, as before.
        _ = try? await client.send(Request<JSONValue>.get("/status/401"))
        guard case .signedOut = await session.status else {
            Issue.record("the app's own 401 must sign out")
            return
        }
    }
}
