import CompanionCore
import CompanionHTTP
import Foundation

/// The WebSocket fault server (Servers/wsfault): its `/app` route's sign-in, as an app's dialect writes it.
public enum WSFaultServer {
    /// The access token `/app` accepts (a test value of the server, not a secret of anyone's).
    public static let token = "fault-access-token-0123456789"

    /// The numbered-JSON dialect of `/app`: `auth_required`, then `auth` with `token`; `auth_invalid` is a refused
    /// credential; `ping` requests; `unsubscribe` with the subscription's number.
    public static func dialect(token: String = token) -> NumberedJSONDialect {
        NumberedJSONDialect(
            pingRequest: ["type": "ping"],
            unsubscribe: { ["type": "unsubscribe", "subscription": .integer(Int64($0))] },
            signIn: { link async throws(ChannelError) in
                _ = try await link.receive()
                try await link.send(["type": "auth", "access_token": .string(token)])
                let answer = try await link.receive()
                if answer["type"]?.stringValue == "auth_invalid" {
                    throw .credentialRefused(answer["message"]?.stringValue ?? "refused")
                }
                guard answer["type"]?.stringValue == "auth_ok" else { throw .unreadable(answer.jsonString()) }
            })
    }
}
