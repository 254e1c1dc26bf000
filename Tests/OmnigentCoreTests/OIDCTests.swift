import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import OmnigentCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real OpenID provider on loopback (`Servers/oidc`, oidc-provider-mock): a sign-in run headlessly
/// (authorization code + PKCE + nonce), then its RS256 ID token checked with the kit's crypto
/// (`IDTokenVerifier`: signature from the provider's JWKS, iss, aud, exp, nonce).
@Suite(.serialized) struct OIDCTests {
    /// Base64url without padding, as JOSE writes it (for tampering with tokens).
    enum Base64URL {
        static func decode(_ text: String) -> Data? {
            var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base.count % 4 != 0 { base += "=" }
            return Data(base64Encoded: base)
        }

        static func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    let provider: URL

    init() throws {
        provider = try TestServers.url("OIDC_PROVIDER_URL")
    }

    struct SignIn {
        var issuer: String
        var keys: JSONWebKeySet
        var keysJSON: Data
        var idToken: String
        var nonce: String
        var clientID: String
    }

    /// One sign-in as the system browser would run it: the provider's form is answered with `sub`, its
    /// redirect lands on the fault server's `/echo` (which shows the code), the code is exchanged.
    func signIn(subject: String = "alice@example.com", clientID: String = "companion-tests") async throws -> SignIn {
        let discovery = try await get(provider.appendingPathComponent(".well-known/openid-configuration"))
        let issuer = try #require(discovery["issuer"]?.stringValue)
        let authorize = try #require(discovery["authorization_endpoint"]?.stringValue.flatMap(URL.init(string:)))
        let tokenURL = try #require(discovery["token_endpoint"]?.stringValue.flatMap(URL.init(string:)))
        let jwksURL = try #require(discovery["jwks_uri"]?.stringValue.flatMap(URL.init(string:)))
        let pkce = try PKCE.generate()
        let nonce = UUID().uuidString
        let state = UUID().uuidString
        let redirect = try TestServers.fault().appendingPathComponent("echo").absoluteString
        var components = try #require(URLComponents(url: authorize, resolvingAgainstBaseURL: false))
        components.queryItems = [
            .init(name: "client_id", value: clientID), .init(name: "redirect_uri", value: redirect),
            .init(name: "response_type", value: "code"), .init(name: "scope", value: "openid email"),
            .init(name: "state", value: state), .init(name: "nonce", value: nonce),
            .init(name: "code_challenge", value: pkce.challenge), .init(name: "code_challenge_method", value: "S256"),
        ]
        var form = URLRequest(url: try #require(components.url))
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.httpBody = FormEncoding.encode(["sub": subject])
        let (landed, _) = try await URLSession.shared.data(for: form)
        let echo = try #require(JSONValue(data: landed), "the provider did not redirect to the app")
        #expect(echo["query"]?["state"]?.stringValue == state)
        let code = try #require(echo["query"]?["code"]?.stringValue)
        var exchange = URLRequest(url: tokenURL)
        exchange.httpMethod = "POST"
        exchange.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        exchange.httpBody = FormEncoding.encode([
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": clientID,
            "code_verifier": pkce.verifier,
        ])
        let (tokens, _) = try await URLSession.shared.data(for: exchange)
        let idToken = try #require(
            JSONValue(data: tokens)?["id_token"]?.stringValue, "\(String(decoding: tokens, as: UTF8.self))")
        let (keysJSON, _) = try await URLSession.shared.data(from: jwksURL)
        return SignIn(
            issuer: issuer, keys: try JSONWebKeySet(json: keysJSON), keysJSON: keysJSON, idToken: idToken,
            nonce: nonce, clientID: clientID)
    }

    func get(_ url: URL) async throws -> JSONValue {
        let (data, _) = try await URLSession.shared.data(from: url)
        return try #require(JSONValue(data: data))
    }

    func verifier(_ signIn: SignIn, clock: any WallClock = SystemWallClock()) -> IDTokenVerifier {
        IDTokenVerifier(issuer: signIn.issuer, clientID: signIn.clientID, keys: signIn.keys, clock: clock)
    }

    func refusal(_ body: () throws(IDTokenError) -> VerifiedIDToken) -> IDTokenError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("a real provider's RS256 ID token verifies: signature, iss, aud, exp, nonce")
    func validTokenVerifies() async throws {
        let signIn = try await signIn()
        #expect(!signIn.keys.keys.isEmpty)
        let verified = try verifier(signIn).verify(signIn.idToken, nonce: signIn.nonce)
        #expect(verified.subject == "alice@example.com")
        #expect(verified.claims["aud"] != nil)
    }

    @Test("a bad signature is refused: a flipped signature byte, or a payload changed under the signature")
    func badSignatureIsRefused() async throws {
        let signIn = try await signIn()
        let parts = signIn.idToken.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.startIndex + 10] ^= 0x40
        let flipped = [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")
        #expect(
            refusal { () throws(IDTokenError) in try verifier(signIn).verify(flipped, nonce: signIn.nonce) }
                == .badSignature)
        let payloadData = try #require(Base64URL.decode(parts[1]))
        var claims = try #require(JSONValue(data: payloadData)?.objectValue)
        claims["sub"] = "mallory@example.com"
        let forged = [parts[0], Base64URL.encode(Data(JSONValue.object(claims).jsonString().utf8)), parts[2]]
            .joined(separator: ".")
        #expect(
            refusal { () throws(IDTokenError) in try verifier(signIn).verify(forged, nonce: signIn.nonce) }
                == .badSignature)
        // alg "none" (an unsigned token) is never accepted.
        let none = [Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)), parts[1], ""].joined(separator: ".")
        #expect(
            refusal { () throws(IDTokenError) in try verifier(signIn).verify(none, nonce: signIn.nonce) }
                == .unsupportedAlgorithm("none"))
        // Another provider's key set does not know the token's key.
        var other = try #require(JSONValue(data: signIn.keysJSON))
        if case .object(var document) = other, case .array(var keys)? = document["keys"],
            case .object(var key) = keys[0]
        {
            key["kid"] = "another-key"
            keys[0] = .object(key)
            document["keys"] = .array(keys)
            other = .object(document)
        }
        var swapped = verifier(signIn)
        swapped.keys = try JSONWebKeySet(json: Data(other.jsonString().utf8))
        guard
            case .unknownKey? = refusal({ () throws(IDTokenError) in
                try swapped.verify(signIn.idToken, nonce: signIn.nonce)
            })
        else {
            Issue.record("expected an unknown key")
            return
        }
    }

    @Test("wrong aud or iss is refused")
    func wrongAudienceOrIssuerIsRefused() async throws {
        let signIn = try await signIn()
        var otherClient = verifier(signIn)
        otherClient.clientID = "another-app"
        #expect(
            refusal { () throws(IDTokenError) in try otherClient.verify(signIn.idToken, nonce: signIn.nonce) }
                == .wrongAudience(expected: "another-app"))
        var otherIssuer = verifier(signIn)
        otherIssuer.issuer = "https://login.example.com"
        #expect(
            refusal { () throws(IDTokenError) in try otherIssuer.verify(signIn.idToken, nonce: signIn.nonce) }
                == .wrongIssuer(expected: "https://login.example.com", actual: signIn.issuer))
    }

    @Test("an expired token is refused (a clock past exp plus the skew); one dated in the future too")
    func expiredTokenIsRefused() async throws {
        let signIn = try await signIn()
        let payload = try #require(Base64URL.decode(signIn.idToken.split(separator: ".").map(String.init)[1]))
        let claims = JSONValue(data: payload)
        let exp = try #require(claims?["exp"]?.doubleValue)
        let iat = try #require(claims?["iat"]?.doubleValue)
        let late = ManualWallClock(Date(timeIntervalSince1970: exp + 61))
        #expect(
            refusal { () throws(IDTokenError) in
                try verifier(signIn, clock: late).verify(signIn.idToken, nonce: signIn.nonce)
            }
                == .expired)
        let withinSkew = ManualWallClock(Date(timeIntervalSince1970: exp + 30))
        #expect(throws: Never.self) {
            try verifier(signIn, clock: withinSkew).verify(signIn.idToken, nonce: signIn.nonce)
        }
        let early = ManualWallClock(Date(timeIntervalSince1970: iat - 120))
        #expect(
            refusal { () throws(IDTokenError) in
                try verifier(signIn, clock: early).verify(signIn.idToken, nonce: signIn.nonce)
            }
                == .issuedInTheFuture)
    }

    @Test("a nonce other than the sign-in's is refused")
    func nonceMismatchIsRefused() async throws {
        let signIn = try await signIn()
        #expect(
            refusal { () throws(IDTokenError) in try verifier(signIn).verify(signIn.idToken, nonce: "another-nonce") }
                == .nonceMismatch)
        #expect(IDTokenError.nonceMismatch.description.contains("Sign in again"))
        #expect(!IDTokenError.badSignature.description.contains(signIn.idToken))
    }
}

/// The system browser, headless: `curl` follows Omnigent's `/auth/login` to the provider, answers the
/// provider's form with `sub`, and brings the state cookie back to Omnigent's callback, which redirects
/// to the app's scheme. Records every URL it was asked to open.
final class HeadlessBrowser: BrowserStep {
    let subject: String
    let provider: URL
    let jar: URL
    private let log = Locked<[URL]>([])

    init(subject: String, provider: URL) {
        self.subject = subject
        self.provider = provider
        jar = FileManager.default.temporaryDirectory.appendingPathComponent("companion-jar-\(UUID().uuidString)")
    }

    var opened: [URL] { log.withLock { $0 } }

    /// `curl` without following redirects; returns where the answer points.
    func curl(_ arguments: [String]) async throws -> String {
        let result = try await ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            ["-s", "-o", "/dev/null", "-w", "%{redirect_url}", "-b", jar.path, "-c", jar.path] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], limit: .seconds(20))
        guard result.status == 0 else { throw OwnServerError(description: "curl exited \(result.status)") }
        return result.output
    }

    func authorize(_ url: URL, callbackScheme: String) async throws(AuthError) -> URL {
        log.withLock { $0.append(url) }
        defer { try? FileManager.default.removeItem(at: jar) }
        do {
            let toCallback = try await signInAtProvider(url, subject: subject, provider: provider) {
                try await curl($0)
            }
            let toApp = try await curl([toCallback])
            guard let landed = URL(string: toApp), landed.scheme == callbackScheme else { throw AuthError.cancelled }
            return landed
        } catch {
            throw .cancelled
        }
    }
}

/// Omnigent 0.19.1 in OIDC mode (`Servers/omnigent-oidc`) against the real provider: the native sign-in
/// in its O-AUTH-12 order, the web-view cookie (O-AUTH-10), the mount prefix (O-AUTH-13).
@Suite(.serialized) struct OmnigentOIDCTests {
    let url: URL
    let provider: URL
    let journal = Journal()

    init() throws {
        (url, provider) = try omnigentOIDCServers()
    }

    func signIn() throws -> OmnigentOIDCSignIn {
        OmnigentOIDCSignIn(
            address: try OmnigentFixture.address(url), environment: OmnigentFixture.environment(journal: journal))
    }

    func me(_ cookie: OmnigentSessionCookie) async throws -> JSONValue {
        let client = OmnigentFixture.environment().client(
            for: url,
            profile: AppProfile(userAgent: "CompanionKit-Tests", headers: ["Cookie": "\(cookie.name)=\(cookie.value)"]))
        return try await client.send(Request<JSONValue>.get("/v1/me"))
    }

    @Test(
        "O-AUTH-12/7/10: nothing stored → the system browser, the code exchanged at /auth/native-token; then reuse, then refresh"
    )
    func nativeSignInInItsOrder() async throws {
        let flow = try signIn()
        let subject = "alice-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        // Step 3: no cookie, no grant.
        let browser = HeadlessBrowser(subject: subject, provider: provider)
        let first = try await flow.signIn(storedToken: nil, storedGrant: nil, browser: browser)
        #expect(first.source == .browser)
        #expect(first.userID == subject)
        let opened = try #require(browser.opened.first)
        #expect(opened.path == "/auth/login")
        let query = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains { $0.name == "native_redirect_uri" && $0.value == "ai.omnigent.ios:/oauth/callback" })
        #expect(query.contains { $0.name == "code_challenge_method" && $0.value == "S256" })
        // O-AUTH-10 on http: ap_session, Path=/, not Secure, no Domain, the server's 8 hours.
        #expect(first.cookie.name == "ap_session")
        #expect(first.cookie.path == "/" && !first.cookie.secure && first.cookie.domain == nil)
        #expect(abs(first.cookie.expiresAt.timeIntervalSinceNow - 28_800) < 120)
        #expect(!first.cookie.description.contains(first.cookie.value))
        #expect(try await me(first.cookie)["user_id"]?.stringValue == subject)
        let grant = try #require(first.refreshToken, "Omnigent issues a grant with the native token")

        // Step 1: the stored cookie still works → reused, no browser.
        let idle = HeadlessBrowser(subject: subject, provider: provider)
        let reused = try await flow.signIn(storedToken: first.cookie.value, storedGrant: grant, browser: idle)
        #expect(reused.source == .reused)
        #expect(reused.userID == subject)
        #expect(idle.opened.isEmpty)

        // Step 2: the cookie is refused → the grant is renewed at /oauth/token, no browser.
        let sentBefore = journal.events.filter { $0.kind == .request && $0.message.hasSuffix("/v1/me") }.count
        let renewed = try await flow.signIn(storedToken: "not-a-session", storedGrant: grant, browser: idle)
        #expect(renewed.source == .refreshed)
        // A stored token that is not JWT-shaped is never sent: the one `/v1/me` asked is the renewed token's.
        #expect(journal.events.filter { $0.kind == .request && $0.message.hasSuffix("/v1/me") }.count == sentBefore + 1)
        #expect(idle.opened.isEmpty)
        #expect(try await me(renewed.cookie)["user_id"]?.stringValue == subject)
        expectNoSecrets([first.cookie.value, grant, renewed.cookie.value], journal: journal)
    }

    /// A browser step that comes back to the app with the request's own state and a code the server never
    /// issued (a stale or forged reply).
    struct ForgedCodeBrowser: BrowserStep {
        func authorize(_ url: URL, callbackScheme: String) async throws(AuthError) -> URL {
            let state =
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "native_state" }?.value ?? ""
            guard let callback = URL(string: "ai.omnigent.ios:/oauth/callback?code=never-issued&state=\(state)") else {
                throw .cancelled
            }
            return callback
        }
    }

    @Test("O-AUTH-12: a code 0.19.1 refuses at /auth/native-token (400 invalid_grant) ends the sign-in with its words")
    func aRefusedCodeEndsTheSignInWithTheServersWords() async throws {
        let flow = try signIn()
        do {
            _ = try await flow.signIn(storedToken: nil, storedGrant: nil, browser: ForgedCodeBrowser())
            Issue.record("a code the server never issued signed in")
        } catch {
            #expect(error == .callbackRejected(reason: "the server refused the sign-in code (invalid_grant)"))
        }
    }

    @Test(
        "O-AUTH-13/10: routes keep the mount; on https the cookie is __Host-ap_session, Secure, Path=/, no Domain, 8 h by default"
    )
    func mountAndHTTPSCookie() throws {
        let address = try ServerAddress(parsing: "https://workspace.example.com/omnigent")
        let flow = OmnigentOIDCSignIn(address: address, environment: OmnigentFixture.environment(policy: .httpsOnly))
        let request = try flow.begin()
        #expect(request.url.absoluteString.hasPrefix("https://workspace.example.com/omnigent/auth/login?"))
        let now = Date(timeIntervalSince1970: 1_764_400_000)
        let cookie = try OmnigentSessionCookie(token: "aaa.bbb.ccc", address: address, expiresIn: nil, now: now)
        #expect(cookie.name == "__Host-ap_session")
        #expect(cookie.secure && cookie.path == "/" && cookie.domain == nil)
        #expect(cookie.expiresAt == now.addingTimeInterval(28_800))
        let short = try OmnigentSessionCookie(token: "aaa.bbb.ccc", address: address, expiresIn: 600, now: now)
        #expect(short.expiresAt == now.addingTimeInterval(600))
    }

    @Test("the callback: state checked, Omnigent's ai.omnigent.ios:// spelling accepted, a refusal is cancelled")
    func callbackChecks() throws {
        let ok = try #require(URL(string: "ai.omnigent.ios://oauth/callback?code=abc&state=s1"))
        #expect(try OmnigentOIDCSignIn.code(from: ok, state: "s1") == "abc")
        let plain = try #require(URL(string: "ai.omnigent.ios:/oauth/callback?code=abc&state=s1"))
        #expect(try OmnigentOIDCSignIn.code(from: plain, state: "s1") == "abc")
        #expect(throws: AuthError.self) { try OmnigentOIDCSignIn.code(from: ok, state: "other") }
        let denied = try #require(URL(string: "ai.omnigent.ios://oauth/callback?error=access_denied&state=s1"))
        #expect(throws: AuthError.cancelled) { try OmnigentOIDCSignIn.code(from: denied, state: "s1") }
        let elsewhere = try #require(URL(string: "https://evil.example/oauth/callback?code=abc&state=s1"))
        #expect(throws: AuthError.self) { try OmnigentOIDCSignIn.code(from: elsewhere, state: "s1") }
        // O-AUTH-12: any other refusal is said with the server's words (its description, else its code).
        let failed = try #require(
            URL(string: "ai.omnigent.ios://oauth/callback?error=server_error&error_description=Boom&state=s1"))
        #expect(throws: AuthError.callbackRejected(reason: "the server said: Boom")) {
            try OmnigentOIDCSignIn.code(from: failed, state: "s1")
        }
        let bare = try #require(URL(string: "ai.omnigent.ios://oauth/callback?error=server_error&state=s1"))
        #expect(throws: AuthError.callbackRejected(reason: "the server said: server_error")) {
            try OmnigentOIDCSignIn.code(from: bare, state: "s1")
        }
        let empty = try #require(URL(string: "ai.omnigent.ios://oauth/callback?code=&state=s1"))
        #expect(throws: AuthError.callbackRejected(reason: "it carries no code")) {
            try OmnigentOIDCSignIn.code(from: empty, state: "s1")
        }
    }

    @Test("O-AUTH-7, O-OPEN-17: the browser step asks with the redirect, the state and an S256 PKCE challenge")
    func browserStepQuery() throws {
        let address = try ServerAddress(parsing: "https://workspace.example.com/omnigent")
        let flow = OmnigentOIDCSignIn(address: address, environment: OmnigentFixture.environment(policy: .httpsOnly))
        let request = try flow.begin()
        let parts = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        #expect(parts.path == "/omnigent/auth/login")
        var query: [String: String] = [:]
        for item in parts.queryItems ?? [] { query[item.name] = item.value }
        #expect(
            query == [
                "native_redirect_uri": OmnigentOIDCSignIn.redirectURI, "native_state": request.state,
                "code_challenge": request.pkce.challenge, "code_challenge_method": "S256",
            ])
        #expect(!request.state.isEmpty && request.state != request.pkce.verifier)
    }
}
