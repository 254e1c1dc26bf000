import CompanionCore
import Foundation

/// A `Request<Response>` with its response type hidden, so requests of different types can travel
/// together (the members of a fetch group). Only `Request` conforms.
public protocol AnyRequest: Sendable {
    /// The method.
    var method: HTTPMethod { get }
    /// The path below the server's base URL.
    var path: String { get }
    /// The query.
    var query: Query { get }
    /// What the request is for (shown by the journal).
    var label: String? { get }
    /// The largest body read; `nil` uses the client's.
    var maxResponseBytes: Int? { get }
    /// Checks that a reply decodes as the request's response type, with `client`'s decoder.
    func checkDecodes(_ data: Data, response: HTTPResponse, on client: Client) throws(HTTPError)
    /// The request as `client` sends it.
    func prepared(on client: Client) throws(HTTPError) -> HTTPRequest
}

extension Request: AnyRequest {
    /// Checks that a reply decodes as `Response`, with `client`'s decoder.
    public func checkDecodes(_ data: Data, response: HTTPResponse, on client: Client) throws(HTTPError) {
        _ = try client.decode(self, body: data, response: response)
    }

    /// The request as `client` sends it.
    public func prepared(on client: Client) throws(HTTPError) -> HTTPRequest { try client.httpRequest(for: self) }
}

/// The replies of several requests fetched together, stamped with one time.
///
/// Rule: all or nothing. An overview that reads several endpoints side by side must not show an
/// offline state made of different moments: if any member fails, or does not decode as its request's
/// response type, the whole group fails, the others are cancelled, and the caller keeps its previous
/// complete group.
public struct FetchGroup: Sendable {
    /// One member's reply.
    public struct Member: Sendable {
        /// The body.
        public let data: Data
        /// The response head.
        public let response: HTTPResponse
    }

    /// When the group was requested; every member counts as fetched at this moment.
    public let fetchedAt: Date
    /// The replies by the names the caller gave.
    public let members: [String: Member]
    /// The client that fetched the group, whose decoder reads the members.
    public let client: Client

    /// Creates a group (the client does this).
    public init(fetchedAt: Date, members: [String: Member], client: Client) {
        self.fetchedAt = fetchedAt
        self.members = members
        self.client = client
    }

    /// The member called `name`, decoded as `request` decodes its reply, with the client's decoder
    /// (the same date rules as `Client.send`).
    public func value<Response>(_ request: Request<Response>, _ name: String) throws(HTTPError) -> Response {
        let member = try member(name)
        return try client.decode(request, body: member.data, response: member.response)
    }

    /// The member called `name` decoded as `type` with the client's decoder.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, _ name: String) throws(HTTPError) -> T {
        let member = try member(name)
        return try JSONDecoding.decode(T.self, from: member.data, response: member.response, decoder: client.decoder)
    }

    private func member(_ name: String) throws(HTTPError) -> Member {
        guard let member = members[name] else { throw .invalidRequest("the group has no member called \(name)") }
        return member
    }
}

extension Client {
    /// Fetches every request concurrently; returns all replies with one timestamp, or throws the
    /// first failure after cancelling the rest. A reply that does not decode as its request's
    /// response type fails the group too.
    public func fetchGroup(_ requests: [String: any AnyRequest]) async throws(HTTPError) -> FetchGroup {
        let fetchedAt = configuration.clock.now()
        let prepared = try requests.map { entry throws(HTTPError) in
            (entry.key, entry.value, try entry.value.prepared(on: self), entry.value.maxResponseBytes)
        }
        let journal = configuration.journal
        let limit = configuration.maxResponseBytes
        do {
            let members = try await withThrowingTaskGroup(of: (String, FetchGroup.Member).self) { group in
                for (name, original, request, maxBytes) in prepared {
                    group.addTask {
                        let member = try await self.fetchMember(request, limit: maxBytes ?? limit)
                        try original.checkDecodes(member.data, response: member.response, on: self)
                        return (name, member)
                    }
                }
                var members: [String: FetchGroup.Member] = [:]
                for try await (name, member) in group { members[name] = member }
                return members
            }
            journal.record(
                .sync, "group of \(members.count) fetched",
                fields: ["members": members.keys.sorted().joined(separator: ",")])
            return FetchGroup(fetchedAt: fetchedAt, members: members, client: self)
        } catch {
            let wrapped = HTTPError.wrap(error, url: nil)
            journal.record(
                .error, "group of \(requests.count) failed; nothing kept", fields: ["error": wrapped.description])
            throw wrapped
        }
    }

    private func fetchMember(_ request: HTTPRequest, limit: Int) async throws(HTTPError) -> FetchGroup.Member {
        let (response, body) = try await sendThroughChain(request)
        let data = try await body.collect(upTo: limit, url: request.url)
        guard response.isSuccess else { throw failure(request, response, data) }
        return FetchGroup.Member(data: data, response: response)
    }
}
