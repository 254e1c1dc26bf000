import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// A proxy in front (docs/networks.md, NET-PROXY-*): HTTP Basic at nginx, forward auth with a sign-in redirect to
/// another origin or a sign-in page in place. The `ProxyGate` works over any transport; on Linux the URLSession
/// transport reaches the private-CA server only through a pinned key it cannot apply, so these run over libcurl
/// there (and over URLSession on Apple platforms).
@Suite("Self-hosted networks: a proxy in front")
struct NetworksProxyTests {
    static var kinds: [TransportKind] { TransportKind.available.filter(\.appliesServerSecurity) }

    func gate(_ kind: TransportKind, credential: ProxyCredential? = nil) throws -> ProxyGate {
        let url = try NginxServer.url(.fault)
        return ProxyGate(
            kind.make(security: ConnectionSecurity(trust: try privateCATrust(), scope: [url])), addresses: [url],
            credential: credential)
    }

    func credential(password: String? = nil) throws -> ProxyCredential {
        ProxyCredential(user: try NginxServer.basicUser(), password: try password ?? NginxServer.basicPassword())
    }

    @Test(
        "NET-PROXY-1: Basic credentials go to the server's addresses only, before anything of the app's",
        arguments: kinds)
    func basicGoesOnlyToTheServersOrigin(_ kind: TransportKind) async throws {
        let url = try NginxServer.url(.fault)
        let credential = try credential()
        let client = networkClient(url.appendingPathComponent("basic"), try gate(kind, credential: credential))
        let echoed = try await client.send(Request<JSONValue>.get("/echo-headers"))
        #expect(echoed["headers"]?["authorization"]?.stringValue == credential.authorization)
        // Another origin through the same transport gets no Basic header: the fault server's second origin
        // echoes what it received.
        let other = networkClient(try TestServers.faultSecondOrigin(), try gate(kind, credential: credential))
        let elsewhere = try await other.send(Request<JSONValue>.get("/echo-headers"))
        #expect(elsewhere["headers"]?["authorization"] == nil)
        #expect(!credential.description.contains(credential.password))
    }

    @Test(
        "NET-PROXY-2: a 401 with WWW-Authenticate: Basic is the proxy's sign-in, told apart from the app's 401",
        arguments: kinds)
    func basicChallengeIsTheProxysNotTheApps(_ kind: TransportKind) async throws {
        let base = try NginxServer.url(.fault)
        let origin = base.absoluteString
        let missing = networkClient(base.appendingPathComponent("basic"), try gate(kind))
        let error = await failure(missing, "/ok")
        #expect(
            error
                == .proxySignInRequired(
                    .init(kind: .basic(realm: "CompanionKit test proxy", attempt: .notConfigured), address: origin)),
            "\(String(describing: error))")
        let wrong = networkClient(
            base.appendingPathComponent("basic"), try gate(kind, credential: try credential(password: "wrong")))
        let refused = await failure(wrong, "/ok")
        #expect(
            refused
                == .proxySignInRequired(
                    .init(kind: .basic(realm: "CompanionKit test proxy", attempt: .refused), address: origin)))
        // The app's bearer token occupies the header: the proxy's refusal says the two collide.
        let right = networkClient(base.appendingPathComponent("basic"), try gate(kind, credential: try credential()))
        let displaced = await failure(right, "/ok", headers: ["Authorization": "Bearer app-token"])
        #expect(
            displaced
                == .proxySignInRequired(
                    .init(
                        kind: .basic(realm: "CompanionKit test proxy", attempt: .displacedByAppCredential),
                        address: origin)))
        // The app's own 401 (a JSON envelope, no Basic challenge) stays a status the app handles.
        let own = await failure(right, "/status/401")
        #expect(own?.statusCode == 401)
        #expect(own?.envelope?.code == "unauthorized")
    }

    @Test(
        "NET-PROXY-3: a forward-auth redirect to another origin is \"sign in to the proxy first\" with its address",
        arguments: kinds)
    func forwardAuthRedirectIsTyped(_ kind: TransportKind) async throws {
        let client = networkClient(try NginxServer.url(.fault).appendingPathComponent("sso"), try gate(kind))
        let error = await failure(client, "/ok")
        guard case .proxySignInRequired(let signIn) = error else {
            Issue.record("expected proxySignInRequired, got \(String(describing: error))")
            return
        }
        #expect(signIn.kind == .page)
        #expect(
            signIn.address.hasPrefix(try NginxServer.url(.login).absoluteString + "/login?rd="), "\(signIn.address)")
        #expect(error?.description.hasPrefix("Sign in to the proxy first") == true)
        // Signed in at the proxy (its cookie), the same request reaches the server.
        let cookie = "sso=" + (try NginxServer.ssoCookie())
        let passed = try await client.send(Request<JSONValue>(method: .get, path: "/ok", headers: ["Cookie": cookie]))
        #expect(passed["ok"]?.boolValue == true)
    }

    @Test(
        "NET-PROXY-3: a sign-in page answering 200 text/html where JSON was asked for is the proxy's, a plain HTML page is not",
        arguments: kinds)
    func forwardAuthPageIsTyped(_ kind: TransportKind) async throws {
        let base = try NginxServer.url(.fault)
        let client = networkClient(base.appendingPathComponent("sso-page"), try gate(kind))
        let error = await failure(client, "/ok")
        #expect(
            error == .proxySignInRequired(.init(kind: .page, address: base.absoluteString + "/sso-page/ok")),
            "\(String(describing: error))")
        // HTML asked for is passed through, and HTML that is not a sign-in stays the wrong content type.
        let page = try await client.send(Request<Data>.raw(.get, "/ok", headers: ["Accept": "text/html"]))
        #expect(String(decoding: page, as: UTF8.self).contains("Sign in to the proxy"))
        let plain = await failure(networkClient(base, try gate(kind)), "/wrong-content-type")
        guard case .unexpectedContentType = plain else {
            Issue.record("expected unexpectedContentType, got \(String(describing: plain))")
            return
        }
    }

    @Test("NET-PROXY-4: the gate recognises challenges and sign-in pages as text (no network)")
    func gateRecognisesChallengesAndPages() {
        #expect(ProxyGate.isBasic("Basic realm=\"x\""))
        #expect(ProxyGate.isBasic("Bearer realm=\"api\", basic realm=\"proxy\""))
        #expect(!ProxyGate.isBasic("Bearer realm=\"api\""))
        #expect(ProxyGate.realm(of: "Basic realm=\"Home proxy\", charset=\"UTF-8\"") == "Home proxy")
        #expect(ProxyGate.realm(of: "Basic realm=home") == "home")
        #expect(ProxyGate.looksLikeSignIn("<form><input type=\"password\" name=p></form>"))
        #expect(ProxyGate.looksLikeSignIn("<html><head><title>Login - Authelia</title></head><body><div id=root>"))
        #expect(!ProxyGate.looksLikeSignIn("<html><body>not json</body></html>"))
        #expect(ProxyGate.clientCertificateSentence("<center>No required SSL certificate was sent</center>") != nil)
    }
}
