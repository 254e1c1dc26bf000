import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The live transports a real-server test runs over, so neither can regress.
enum TransportKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// FoundationNetworking / URLSession.
    case urlSession
    /// libcurl directly (Linux).
    case curl

    /// Every transport this platform has.
    static var available: [TransportKind] {
        #if os(Linux)
            return [.urlSession, .curl]
        #else
            return [.urlSession]
        #endif
    }

    /// A new transport of this kind.
    func make(redirectPolicy: RedirectPolicy = RedirectPolicy()) -> any Transport {
        switch self {
        case .urlSession: return URLSessionTransport(redirectPolicy: redirectPolicy)
        case .curl:
            #if os(Linux)
                return CurlTransport(redirectPolicy: redirectPolicy)
            #else
                return URLSessionTransport(redirectPolicy: redirectPolicy)
            #endif
        }
    }

    var testDescription: String { rawValue }
}

/// A method sent over a transport: the second argument of the fault matrix.
struct MethodOverTransport: Sendable, CustomTestStringConvertible {
    var method: HTTPMethod
    var transport: TransportKind

    /// GET and a keyed POST over every available transport.
    static let all: [MethodOverTransport] = TransportKind.available.flatMap { transport in
        [HTTPMethod.get, .post].map { MethodOverTransport(method: $0, transport: transport) }
    }

    var testDescription: String { "\(method.rawValue) over \(transport.rawValue)" }
}

/// A transport that claims the HTTP transport contract (docs/adding-a-transport.md) and so runs every case of
/// `TransportConformanceTests`: each platform transport, and each kit transport that wraps one (which must keep the
/// contract of the one inside). `ScriptedTransport` claims none of it: it answers from a script.
enum ConformingTransport: String, Sendable, CustomTestStringConvertible {
    /// FoundationNetworking / URLSession.
    case urlSession
    /// libcurl directly (Linux).
    case curl
    /// `ProxyGate` around the platform's transport, with a proxy credential for the fault server's origin.
    case proxyGate
    /// `FailoverTransport` around the platform's transport, its internal address the fault server itself (so every
    /// request to the fault server is moved to the internal address).
    case failover

    /// Every conforming transport this platform has.
    static var all: [ConformingTransport] {
        TransportKind.available.compactMap { ConformingTransport(rawValue: $0.rawValue) } + [.proxyGate, .failover]
    }

    /// Those that keep a POST's body across a 307: all but URLSession on Linux, whose FoundationNetworking drops it
    /// (docs/networks.md, "Where URLSession on Linux cannot").
    static var keepingBodiesAcross307: [ConformingTransport] {
        #if os(Linux)
            return all.filter { $0 != .urlSession }
        #else
            return all
        #endif
    }

    /// A new transport of this kind.
    func make(redirectPolicy: RedirectPolicy = RedirectPolicy()) throws -> any Transport {
        let platform = DefaultTransport.make(redirectPolicy: redirectPolicy)
        switch self {
        case .urlSession: return TransportKind.urlSession.make(redirectPolicy: redirectPolicy)
        case .curl: return TransportKind.curl.make(redirectPolicy: redirectPolicy)
        case .proxyGate:
            return ProxyGate(
                platform, addresses: [try TestServers.fault()],
                credential: ProxyCredential(user: "conformance", password: "not-a-secret"))
        case .failover:
            let fault = try TestServers.fault()
            return FailoverTransport(platform, failover: AddressFailover(external: fault, internal: fault))
        }
    }

    var testDescription: String { rawValue }
}
