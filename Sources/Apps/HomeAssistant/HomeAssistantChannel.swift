import CompanionApp
import CompanionAuth
import CompanionCore
import CompanionHTTP
import Foundation

/// Home Assistant's WebSocket API (`/api/websocket`, §2.6) as the kit's channel dialect: numbered JSON requests,
/// `result`, `event` and `pong` replies, `unsubscribe_events`, the `ping` request, and `supported_features` with
/// `coalesce_messages` as the first command on every ready connection (H-CONN-7), so a frame may be an array of
/// messages (the kit's channel handles each element in order).
enum HomeAssistantChannel {
    /// The WebSocket's path under the server's root.
    static let path = "/api/websocket"

    /// The first command after `auth_ok` (H-CONN-7).
    static let features: JSONValue = ["type": "supported_features", "features": ["coalesce_messages": 1]]

    /// The dialect, signing in with `credentials` (H-CONN-4, H-CONN-5).
    static func dialect(_ credentials: ChannelCredentials) -> NumberedJSONDialect {
        var dialect = NumberedJSONDialect(
            pingRequest: ["type": "ping"],
            unsubscribe: { id in ["type": "unsubscribe_events", "subscription": .integer(Int64(id))] },
            signIn: { link throws(ChannelError) in try await authenticate(over: link, with: credentials) })
        dialect.readyRequests = [features]
        return dialect
    }

    /// The auth phase: `auth_required` (its `ha_version` kept), `auth` with a token obtained for this connection,
    /// then `auth_ok`; `auth_invalid` is a refused credential (no retry by the channel).
    static func authenticate(over link: any ChannelLink, with credentials: ChannelCredentials)
        async throws(ChannelError)
    {
        let first = try await link.receive()
        guard first["type"]?.stringValue == "auth_required" else {
            throw .unreadable(
                "Home Assistant did not ask for authentication first (it sent \(typeName(first))); is this Home Assistant?"
            )
        }
        credentials.note(version: first["ha_version"]?.stringValue)
        let token = try await credentials.token()
        try await link.send(["type": "auth", "access_token": .string(token)])
        let answer = try await link.receive()
        switch answer["type"]?.stringValue {
        case "auth_ok":
            credentials.note(version: answer["ha_version"]?.stringValue)
        case "auth_invalid":
            throw .credentialRefused(answer["message"]?.stringValue ?? "Invalid access token or password")
        default:
            throw .unreadable("Home Assistant answered the authentication with \(typeName(answer))")
        }
    }

    static func typeName(_ message: JSONValue) -> String {
        message["type"]?.stringValue.map { "\"\($0)\"" } ?? "a message without a type"
    }
}

/// The credential a connection signs in with: the session's usable token (renewed before expiry, H-TOK-2), the
/// one last sent (so a refused one is refreshed once and never sent again, H-TOK-5, H-CONN-5), and the version
/// the server told.
final class ChannelCredentials: Sendable {
    let session: CredentialSession?
    private let state = Locked(State())

    private struct State {
        var sent: StoredCredential?
        var version: String?
        var renewedAfterRefusal: Credential?
    }

    init(session: CredentialSession?) { self.session = session }

    /// The server's version from `auth_required` or `auth_ok`.
    var version: String? { state.withLock { $0.version } }

    /// The credential last sent in an `auth` message.
    var sent: StoredCredential? { state.withLock { $0.sent } }

    func note(version: String?) {
        guard let version else { return }
        state.withLock { $0.version = version }
    }

    /// The access token to send now; a signed-out session is a refused credential.
    func token() async throws(ChannelError) -> String {
        guard let stored = await session?.usable(), case .bearer(let access, _, _) = stored.credential else {
            throw .credentialRefused("This account is signed out of Home Assistant: sign in again.")
        }
        state.withLock { $0.sent = stored }
        return access
    }

    /// Whether `credential` came from a refresh made after a refusal (refused again, it signs out: H-CONN-5).
    func isRenewalAfterRefusal(_ credential: Credential) -> Bool {
        state.withLock { $0.renewedAfterRefusal == credential }
    }

    func noteRenewalAfterRefusal(_ credential: Credential?) {
        state.withLock { $0.renewedAfterRefusal = credential }
    }
}

extension HomeAssistantServer {
    /// The version a Home Assistant at `address` tells before any sign-in (H-ADDR-4): the WebSocket is opened
    /// with the server's network settings, `auth_required`'s `ha_version` is read, and it is closed with 1000;
    /// no `auth` message, no `Authorization` header, no `/api/discovery_info`.
    public static func probeVersion(at address: ServerAddress, environment: AppEnvironment)
        async throws(ChannelError) -> String
    {
        let root: ServerAddress
        do {
            root = try HomeAssistantAddress.root(of: address, policy: environment.transportPolicy)
        } catch {
            throw .unreadable(error.description)
        }
        var text = root.url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text + HomeAssistantChannel.path) else {
            throw .unreadable("no WebSocket address could be made from \(root.url)")
        }
        let socket = try await environment.channelTransport(for: root.url).open(ChannelRequest(url: url))
        var messages = socket.messages.makeAsyncIterator()
        let first: ChannelMessage?
        do {
            first = try await messages.next()
        } catch {
            await socket.close(.normal, reason: "")
            throw (error as? ChannelError) ?? .connection(HTTPError.wrap(error, url: url))
        }
        await socket.close(.normal, reason: "")
        guard case .text(let body)? = first, let json = JSONValue(data: Data(body.utf8)),
            json["type"]?.stringValue == "auth_required", let version = json["ha_version"]?.stringValue
        else {
            throw .unreadable("the server's first WebSocket message is not Home Assistant's auth_required")
        }
        return version
    }
}
