import CompanionHTTP
import CompanionStore
import CompanionSync
import Foundation

extension ServerBundle {
    /// Changes one member of the stored group of `snapshot` (a pushed event that says what changed in it): the
    /// stored reply to `member` is decoded as the request decodes it, changed by `change` and stored again with
    /// the rest of the group, in one transaction; the group keeps its fetch time (nothing else of it was read
    /// again). Every feed of the snapshot shows the change. Returns whether a group holding the member was stored.
    @discardableResult
    public func update<Value: Sendable, Response: Codable & Sendable>(
        _ snapshot: Snapshot<Value>, member request: Request<Response>,
        _ change: @escaping @Sendable (inout Response) -> Void
    ) async throws(SyncError) -> Bool {
        let client = self.client
        let name = snapshot.name
        let key = SnapshotSync.memberKey(request, in: name)
        do throws(StoreError) {
            return try await store.write { transaction throws(StoreError) -> Bool in
                guard let group = try transaction.group(name),
                    let (member, stored) = group.members.first(where: { $0.value.key == key })
                else { return false }
                var headers = HTTPHeaders()
                if let mediaType = stored.mediaType { headers["Content-Type"] = mediaType }
                var resource = stored
                do throws(HTTPError) {
                    var value = try client.decode(
                        request, body: stored.body, response: HTTPResponse(status: 200, headers: headers))
                    change(&value)
                    resource.body = try Client.encodeJSON(value)
                } catch {
                    throw .encoding("the stored member \(key) could not be changed: \(error.description)")
                }
                resource.mediaType = "application/json"
                resource.etag = nil
                resource.lastModified = nil
                var members = group.members
                members[member] = resource
                try transaction.writeGroup(name, fetchedAt: group.fetchedAt, members: members)
                return true
            }
        } catch {
            throw .store(error)
        }
    }
}
