import CompanionAuth
import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
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
    let client = Client(
        baseURL: URL(fileURLWithPath: "/"), configuration: .init(transportPolicy: .allowingInsecureLoopback))

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
