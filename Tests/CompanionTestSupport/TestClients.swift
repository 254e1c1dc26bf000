import CompanionCore
import CompanionHTTP
import Foundation

/// Clients for the local test servers. They talk plain http to 127.0.0.1, so each opts in to
/// `.allowingInsecureLoopback` explicitly (the default policy is https only).
public enum TestClients {
    /// A client for `url` (by default the fault server) that does not retry unless told to.
    public static func loopback(
        _ url: URL? = nil, retry: RetryPolicy = .never, journal: Journal = Journal(),
        transport: (any Transport)? = nil
    ) throws -> Client {
        let configuration = Client.Configuration(
            retryPolicy: retry, transportPolicy: .allowingInsecureLoopback, journal: journal)
        let base = try url ?? TestServers.fault()
        if let transport { return Client(baseURL: base, configuration: configuration, transport: transport) }
        return Client(baseURL: base, configuration: configuration)
    }
}
