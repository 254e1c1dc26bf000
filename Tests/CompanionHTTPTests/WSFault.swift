import CompanionCore
import CompanionHTTP
import CompanionTestSupport
import Foundation
import Testing

/// The WebSocket fault server (Servers/wsfault): its routes and its control API.
enum WSFault {
    /// The server's base URL (`http://127.0.0.1:port`).
    static func base() throws -> URL { try TestServers.url("COMPANION_WS_FAULT_URL") }

    /// `ws://…/path`.
    static func url(_ path: String) throws -> URL {
        var components = try #require(URLComponents(url: try base(), resolvingAgainstBaseURL: false))
        components.scheme = "ws"
        components.path = path
        return try #require(components.url)
    }

    /// A control call (`POST /_control/<name>`, or a GET of the log) and its JSON answer.
    static func control(_ name: String, method: HTTPMethod = .post) async throws -> JSONValue {
        let url = try base().appendingPathComponent("_control").appendingPathComponent(name)
        let (_, body) = try await DefaultTransport.make().send(HTTPRequest(method: method, url: url))
        return try #require(JSONValue(data: try await body.collect(upTo: 1 << 20)))
    }

    /// The log items after `after` (what every /app connection did), and the log's version.
    static func log(after: Int = 0) async throws -> (items: [JSONValue], version: Int) {
        let url = try #require(URL(string: try base().absoluteString + "/_control/log?after=\(after)"))
        let (_, body) = try await DefaultTransport.make().send(HTTPRequest(method: .get, url: url))
        let answer = try #require(JSONValue(data: try await body.collect(upTo: 64 << 20)))
        return (try #require(answer["items"]?.arrayValue), Int(try #require(answer["version"]?.intValue)))
    }

    /// The platform's WebSocket transport.
    static func transport() -> any ChannelTransport { DefaultChannelTransport.webSocket() }
}
