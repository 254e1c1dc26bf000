import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation

/// What the self-hosted-network tests share: transports with one server's TLS settings, and which transport can
/// apply them here.
extension TransportKind {
    /// A transport of this kind with `security`.
    func make(security: ConnectionSecurity, redirectPolicy: RedirectPolicy = RedirectPolicy()) -> any Transport {
        switch self {
        case .urlSession: return URLSessionTransport(redirectPolicy: redirectPolicy, security: security)
        case .curl:
            #if os(Linux)
                return CurlTransport(redirectPolicy: redirectPolicy, security: security)
            #else
                return URLSessionTransport(redirectPolicy: redirectPolicy, security: security)
            #endif
        }
    }

    /// Whether this transport applies a server's own trust and client certificate on this platform: libcurl
    /// always, URLSession on Apple platforms (the Security glue), never FoundationNetworking on Linux.
    var appliesServerSecurity: Bool {
        #if canImport(Security)
            return true
        #else
            return self == .curl
        #endif
    }
}

/// The sentence a Linux URLSession transport refuses server security with.
let foundationNetworkingCannot = "URLSession on Linux (FoundationNetworking) cannot use this server's own trust"

/// A client for `url` over `transport`, no retries, the given journal.
func networkClient(_ url: URL, _ transport: any Transport, journal: Journal = Journal()) -> Client {
    Client(
        baseURL: url,
        configuration: Client.Configuration(
            retryPolicy: .never, transportPolicy: .allowingInsecureLoopback, journal: journal), transport: transport)
}

/// A GET that must fail; returns the error (a success records an issue).
func failure(_ client: Client, _ path: String, headers: HTTPHeaders = HTTPHeaders()) async -> HTTPError? {
    do {
        let value = try await client.send(Request<JSONValue>(method: .get, path: path, headers: headers))
        return .invalidRequest("expected a failure, got \(value.jsonString())")
    } catch {
        return error
    }
}

/// The private CA as the trust of a server.
func privateCATrust() throws -> ServerTrust { ServerTrust(anchors: [try NginxServer.rootDER()]) }

/// The client identity signed by the intermediate (`legacy`: the RC2 export of it).
func testIdentity(legacy: Bool = false) throws -> ClientIdentity {
    try ClientIdentity(
        importing: legacy ? try NginxServer.clientLegacyP12() : try NginxServer.clientP12(),
        passphrase: try NginxServer.p12Passphrase(), at: Date(timeIntervalSince1970: 1_764_400_000))
}

/// How many requests carrying `key` as their idempotency key reached the fault server (through any proxy).
func faultAttempts(_ key: String) async throws -> Int {
    try await FaultMatrixTests.stats(key: key).attempts
}
