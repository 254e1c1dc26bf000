import CompanionHTTP
import CompanionStore
import Foundation

/// A snapshot group as a typed value: its name, its members as requests, and how one screen value is made
/// from the members' replies.
///
/// Rule: the value is assembled from one stored group only, so what a screen shows offline comes from one
/// moment (C-OVER-3, C-OFF-1); every member is decoded with the client's decoder, fresh or stored.
public struct Snapshot<Value: Sendable>: Sendable {
    /// The group's name in the store.
    public let name: String
    /// The members, by name.
    public let members: [String: any AnyRequest]
    let assemble: @Sendable (SnapshotMembers) throws(HTTPError) -> Value

    /// A snapshot named `name` of `members`, assembled into a value by `assemble`, which reads each member
    /// with `SnapshotMembers.value(_:)`.
    public init(
        _ name: String, members: [String: any AnyRequest],
        assemble: @escaping @Sendable (SnapshotMembers) throws(HTTPError) -> Value
    ) {
        self.name = name
        self.members = members
        self.assemble = assemble
    }
}

/// The stored replies of one snapshot group, read back as typed values.
public struct SnapshotMembers: Sendable {
    /// The group's name.
    public let group: String
    /// When the whole group was fetched.
    public let fetchedAt: Date
    let resources: [String: CachedResource]
    let client: Client

    /// The reply to `request` in this group, decoded with the client's decoder.
    public func value<Response>(_ request: Request<Response>) throws(HTTPError) -> Response {
        let key = SnapshotSync.memberKey(request, in: group)
        guard let resource = resources.values.first(where: { $0.key == key }) else {
            throw .undecodable(
                HTTPError.DecodingFailure(
                    type: String(describing: Response.self), path: "",
                    detail: "\(request.path) is not in this snapshot",
                    url: request.path))
        }
        var headers = HTTPHeaders()
        if let mediaType = resource.mediaType { headers["Content-Type"] = mediaType }
        return try client.decode(request, body: resource.body, response: HTTPResponse(status: 200, headers: headers))
    }
}
