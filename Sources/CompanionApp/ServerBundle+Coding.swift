import CompanionHTTP
import CompanionSync
import Foundation

extension ServerBundle {
    /// `value` as the kit's JSON (the encoding of request bodies and of the store's paged lists), for what an app
    /// keeps in the account's store itself (a draft); `client.decode(_:from:)` reads it back with the same rules.
    public func encoded(_ value: some Encodable & Sendable) throws(SyncError) -> Data {
        do { return try Client.encodeJSON(value) } catch {
            throw .store(.encoding("what the app keeps could not be stored: \(error.description)"))
        }
    }
}
