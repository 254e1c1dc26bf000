import CompanionCore
import CompanionHTTP
import Foundation

/// Clients for the local test servers. They talk plain http to 127.0.0.1, so each opts in to
/// `.allowingInsecureLoopback` explicitly (the default policy is https only).
public enum TestClients {
    /// A client for `url` that does not retry unless told to.
    public static func loopback(
        _ url: URL, retry: RetryPolicy = .never, timeout: Duration = .seconds(30), journal: Journal = Journal(),
        sleeper: any Sleeper = TaskSleeper(), transport: (any Transport)? = nil
    ) -> Client {
        let configuration = Client.Configuration(
            timeout: timeout, retryPolicy: retry, transportPolicy: .allowingInsecureLoopback, journal: journal,
            sleeper: sleeper)
        if let transport { return Client(baseURL: url, configuration: configuration, transport: transport) }
        return Client(baseURL: url, configuration: configuration)
    }

    /// A client for the fault server.
    public static func fault(retry: RetryPolicy = .never, journal: Journal = Journal()) throws -> Client {
        loopback(try TestServers.fault(), retry: retry, journal: journal)
    }
}
