import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// `OAuthClient.exchange` with an `IDTokenVerifier`: the ID token from a real OpenID provider on loopback
/// (`Servers/oidc`) is checked in full (signature with the provider's JWKS, iss, aud, exp, nonce), not
/// only its nonce.
@Suite("OAuth sign-in with the ID token verified", .serialized)
struct OAuthIDTokenVerificationTests {
    /// The provider's sign-in form, answered headlessly: a POST of `sub` to the authorization URL, whose
    /// `Location` is the app's callback.
    struct ProviderForm: BrowserStep {
        var subject: String
        var rewrite: @Sendable (URL) -> URL = { $0 }

        func authorize(_ url: URL, callbackScheme: String) async throws(AuthError) -> URL {
            let headers: String
            do {
                let run = try await ProgramRun.run(
                    URL(fileURLWithPath: "/usr/bin/curl"),
                    [
                        "-s", "-o", "/dev/null", "-D", "-", "-X", "POST", "-d", "sub=\(subject)",
                        rewrite(url).absoluteString,
                    ],
                    environment: ["PATH": "/usr/bin:/bin"], limit: .seconds(20))
                headers = run.output
            } catch {
                throw .unexpectedReply("curl failed: \(error)")
            }
            for line in headers.split(whereSeparator: \.isNewline) where line.lowercased().hasPrefix("location:") {
                let value = line.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
                if let callback = URL(string: value), callback.scheme == callbackScheme { return callback }
            }
            throw .cancelled
        }
    }

    struct Provider {
        var address: ServerAddress
        var issuer: String
        var configuration: OAuthConfiguration
        var keys: JSONWebKeySet
    }

    let journal = Journal()

    func provider(clientID: String = "companion-tests") async throws -> Provider {
        let url = try TestServers.url("OIDC_PROVIDER_URL")
        let plain = TestClients.loopback(url, retry: RetryPolicy())
        let discovery = try await plain.send(Request<JSONValue>.get("/.well-known/openid-configuration"))
        func path(_ name: String) throws -> String {
            try #require(discovery[name]?.stringValue.flatMap(URL.init(string:))?.path, "\(name) in the discovery")
        }
        let jwks = try await plain.send(Request<JSONValue>.get(try path("jwks_uri")))
        return Provider(
            address: try ServerAddress(parsing: url.absoluteString, policy: .allowingInsecureLoopback),
            issuer: try #require(discovery["issuer"]?.stringValue),
            configuration: OAuthConfiguration(
                authorizationPath: try path("authorization_endpoint"), tokenPath: try path("token_endpoint"),
                clientID: clientID, redirectURI: "companionkit-test:/oauth/callback", scopes: ["openid", "email"]),
            keys: try JSONWebKeySet(json: Data(jwks.jsonString().utf8)))
    }

    func client(_ provider: Provider, verifier: IDTokenVerifier?) -> OAuthClient {
        OAuthClient(
            address: provider.address,
            client: TestClients.loopback(provider.address.url, journal: journal),
            configuration: provider.configuration, idTokenVerifier: verifier)
    }

    /// The sentence of a refused sign-in, or `nil` when it went through.
    func refusal(_ oauth: OAuthClient, _ browser: ProviderForm) async -> String? {
        do {
            _ = try await oauth.signIn(browser: browser)
            return nil
        } catch {
            guard case .callbackRejected(let reason) = error else { return "unexpected: \(error)" }
            return reason
        }
    }

    @Test("a real provider's ID token passes the full check in the exchange: signature, iss, aud, exp, nonce")
    func verifiedSignIn() async throws {
        let provider = try await provider()
        let verifier = IDTokenVerifier(issuer: provider.issuer, clientID: "companion-tests", keys: provider.keys)
        let tokens = try await client(provider, verifier: verifier).signIn(
            browser: ProviderForm(subject: "verified@example.com"))
        #expect(tokens.idClaims?["sub"]?.stringValue == "verified@example.com")
        #expect(tokens.idClaims?["iss"]?.stringValue == provider.issuer)
        let idToken = try #require(tokens.idToken)
        expectNoSecrets([idToken, tokens.accessToken], journal: journal)
    }

    @Test("the exchange refuses an ID token for another audience, from another issuer, or past its expiry")
    func refusedTokens() async throws {
        let provider = try await provider(clientID: "another-app")
        let browser = ProviderForm(subject: "mallory@example.com")
        // The provider issues the token to `another-app`; this app is `companion-tests`.
        let wrongAudience = IDTokenVerifier(issuer: provider.issuer, clientID: "companion-tests", keys: provider.keys)
        #expect(
            await refusal(client(provider, verifier: wrongAudience), browser)
                == IDTokenError.wrongAudience(expected: "companion-tests").description)
        let wrongIssuer = IDTokenVerifier(
            issuer: "https://login.example.com", clientID: "another-app", keys: provider.keys)
        #expect(
            await refusal(client(provider, verifier: wrongIssuer), browser)
                == IDTokenError.wrongIssuer(expected: "https://login.example.com", actual: provider.issuer).description)
        // A clock past the token's expiry.
        let late = IDTokenVerifier(
            issuer: provider.issuer, clientID: "another-app", keys: provider.keys,
            clock: ManualWallClock(Date().addingTimeInterval(86_400 * 30)))
        #expect(await refusal(client(provider, verifier: late), browser) == IDTokenError.expired.description)
        // Without a verifier the same sign-in goes through on the nonce alone: the check is the verifier's.
        #expect(await refusal(client(provider, verifier: nil), browser) == nil)
    }

    @Test("the exchange refuses an ID token whose nonce is not this sign-in's")
    func replayedNonce() async throws {
        let provider = try await provider()
        let verifier = IDTokenVerifier(issuer: provider.issuer, clientID: "companion-tests", keys: provider.keys)
        // An attacker in the middle swaps the nonce the provider sees.
        let browser = ProviderForm(subject: "alice@example.com") { url in
            guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
            parts.queryItems = (parts.queryItems ?? []).map {
                $0.name == "nonce" ? URLQueryItem(name: "nonce", value: "another-nonce") : $0
            }
            return parts.url ?? url
        }
        #expect(await refusal(client(provider, verifier: verifier), browser) == IDTokenError.nonceMismatch.description)
    }
}
