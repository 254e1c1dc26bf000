import CompanionHTTP
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
