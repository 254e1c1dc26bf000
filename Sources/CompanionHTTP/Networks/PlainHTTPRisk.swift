import CompanionCore
import Foundation

/// The risk a person accepts when they allow plain http to one server's home address
/// (`ServerNetwork.allowPlainHTTPAtHome(_:accepting:)`): the choice is made by naming it, so no code path can allow
/// plain http without saying what it costs, and the server's details can show it.
///
/// Most self-hosted servers at home answer over plain http on the LAN; refusing them all would leave the app
/// unusable at home. The choice covers that one address: the server's other (away) address stays https only.
public enum PlainHTTPRisk: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Anyone on the home network can read and change what goes to the home address, the sign-in's tokens included.
    case homeNetworkCanReadAndChangeTraffic

    /// The risk in a sentence, to show where the choice is made and in the server's details.
    public var description: String {
        switch self {
        case .homeNetworkCanReadAndChangeTraffic:
            return "Plain http to the home address is not encrypted: anyone on the home network can read and change "
                + "what is sent, the sign-in's tokens included."
        }
    }
}
