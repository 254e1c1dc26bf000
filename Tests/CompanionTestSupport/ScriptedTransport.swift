import CompanionCore
import CompanionHTTP
import Foundation

/// A transport that answers from a script, for unit tests of policies no real server can show
/// deterministically (the exact retry delays, a header the chain added). Everything else is tested
/// against the real servers.
public final class ScriptedTransport: Transport {
    /// One scripted reply.
    public enum Reply: Sendable {
        /// A response with a JSON or text body.
        case respond(status: Int, headers: HTTPHeaders = [:], body: String = "")
        /// A failure.
        case fail(HTTPError)
    }

    private let script: Locked<[Reply]>
    private let seen = Locked<[HTTPRequest]>([])

    /// Creates a transport that gives `replies` in order, then repeats the last one.
    public init(_ replies: [Reply]) { script = Locked(replies) }

    /// The requests received, in order.
    public var requests: [HTTPRequest] { seen.withLock { $0 } }

    /// Answers with the next scripted reply.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> (HTTPResponse, HTTPBody) {
        seen.withLock { $0.append(request) }
        let reply: Reply? = script.withLock { replies in
            guard let first = replies.first else { return nil }
            if replies.count > 1 { replies.removeFirst() }
            return first
        }
        switch reply {
        case .respond(let status, let headers, let body):
            return (HTTPResponse(status: status, headers: headers, url: request.url), HTTPBody(Data(body.utf8)))
        case .fail(let error):
            throw error
        case nil:
            throw .transport("the script is empty")
        }
    }
}
