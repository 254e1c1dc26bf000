import CompanionCore

/// Where a managed configuration came from.
public enum ManagedConfigurationChannel: String, Sendable, Hashable {
    /// `com.apple.configuration.app.managed` (declarative device management, iOS 18.4+): validated, and
    /// errors are reported back to the administrator.
    case declarative
    /// `com.apple.configuration.managed` in the app's defaults: any MDM, no error reporting.
    case classic
    /// Neither channel offers servers.
    case none
}

/// The presets in effect after reading both channels, and the error to report to the administrator.
public struct ManagedConfigurationOutcome: Sendable, Equatable {
    /// The preset servers to offer (empty when rejected or absent).
    public let servers: [ServerAddress]
    /// The channel the presets came from.
    public let channel: ManagedConfigurationChannel
    /// The error to report through the declarative channel; the classic channel never reports.
    public let reportedError: ManagedConfigurationError?
}

/// Chooses between the two delivery channels.
///
/// Rules: the declarative payload wins when its `serverUrls` is present and not `[]`; then it alone decides,
/// and if it is invalid its error is reported and no presets apply, with no fallback to classic (O-OPEN-7).
/// Otherwise the classic payload is used, and a bad classic payload (not a dictionary, or invalid) silently
/// counts as empty because that channel cannot report errors. Presets are offered, never enforced: this
/// decision starts no connection and no request. The configuration is re-read whenever the app becomes active.
public enum ManagedConfigurationResolver {
    /// The outcome for the two payloads (each `nil` when that channel delivered nothing); recorded in
    /// `journal` (kind `.link`) when one is given.
    public static func resolve(
        declarative: ManagedValue?, classic: ManagedValue?, journal: Journal? = nil
    ) -> ManagedConfigurationOutcome {
        let outcome = decide(declarative: declarative, classic: classic)
        var fields = ["channel": outcome.channel.rawValue, "servers": String(outcome.servers.count)]
        if let error = outcome.reportedError { fields["code"] = String(error.code) }
        journal?.record(.link, "managed configuration", fields: fields)
        return outcome
    }

    private static func decide(declarative: ManagedValue?, classic: ManagedValue?) -> ManagedConfigurationOutcome {
        if case .dictionary(let payload) = declarative, let list = payload[ManagedConfiguration.serverURLsKey],
            list != .array([])
        {
            do {
                let configuration = try ManagedConfiguration(validating: payload)
                return ManagedConfigurationOutcome(
                    servers: configuration.servers, channel: .declarative, reportedError: nil)
            } catch {
                return ManagedConfigurationOutcome(servers: [], channel: .declarative, reportedError: error)
            }
        }
        if case .dictionary(let payload) = classic,
            let configuration = try? ManagedConfiguration(validating: payload), !configuration.servers.isEmpty
        {
            return ManagedConfigurationOutcome(servers: configuration.servers, channel: .classic, reportedError: nil)
        }
        return ManagedConfigurationOutcome(servers: [], channel: .none, reportedError: nil)
    }
}
