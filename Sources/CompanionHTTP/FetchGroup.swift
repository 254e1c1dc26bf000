import CompanionCore
import Foundation

/// The replies of several requests fetched together, stamped with one time.
///
/// Rule: all or nothing. Certain's overview reads four endpoints side by side "so the offline state
/// does not come from four different moments": if any member fails, the whole group fails, the
/// others are cancelled, and the caller keeps its previous complete group.
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

    /// Creates a group (the client does this).
    public init(fetchedAt: Date, members: [String: Member]) {
        self.fetchedAt = fetchedAt
        self.members = members
    }

    /// Decodes the member called `name` as `type`.
    public func decode<T: Decodable>(_ type: T.Type, _ name: String, decoder: JSONDecoder = JSONDecoder())
        throws(HTTPError) -> T
    {
        guard let member = members[name] else { throw .invalidRequest("the group has no member called \(name)") }
        return try JSONDecoding.decode(T.self, from: member.data, response: member.response, decoder: decoder)
    }
}

extension Client {
    /// Fetches every request concurrently; returns all replies with one timestamp, or throws the
    /// first failure after cancelling the rest.
    public func fetchGroup(_ requests: [String: Request<Data>]) async throws(HTTPError) -> FetchGroup {
        let fetchedAt = configuration.clock.now()
        let prepared = try requests.map { entry throws(HTTPError) in
            (entry.key, try httpRequest(for: entry.value), entry.value.maxResponseBytes)
        }
        let journal = configuration.journal
        let limit = configuration.maxResponseBytes
        do {
            let members = try await withThrowingTaskGroup(of: (String, FetchGroup.Member).self) { group in
                for (name, request, maxBytes) in prepared {
                    group.addTask {
                        let member = try await self.fetchMember(request, limit: maxBytes ?? limit)
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
            return FetchGroup(fetchedAt: fetchedAt, members: members)
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
